"""A found file (`discover.TranscriptFile`) is a frozen dataclass whose `__init__` is
written out (one write of its dict, faster than the generated one): its parameters are
its fields, in order, with their defaults, and it stays frozen, equal by its compared
fields, hashable and picklable."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from pathlib import Path

import pytest

from planwatch.core.transcripts.discover import TranscriptFile


def test_the_written_init_takes_the_fields_in_order_with_their_defaults() -> None:
    parameters = list(inspect.signature(TranscriptFile.__init__).parameters.values())[1:]
    fields = dataclasses.fields(TranscriptFile)
    assert [p.name for p in parameters] == [f.name for f in fields]
    assert [p.default for p in parameters] == [
        inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default for f in fields
    ]


def test_a_found_file_is_frozen_equal_by_its_compared_fields_hashable_and_picklable() -> None:
    one = TranscriptFile(Path("/t/a.jsonl"), "claude", 1.5, 10, log_ident=(1, 2, 3, 4, 5), ident=(1, 2, 3, 4, 5))
    same = TranscriptFile(Path("/t/a.jsonl"), "claude", 1.5, 10)
    assert one == same and hash(one) == hash(same)  # log_ident and ident are not compared
    assert one != TranscriptFile(Path("/t/a.jsonl"), "claude", 1.5, 11)
    assert (one.subagent, one.parent_hint, one.folder_hint, one.ident) == (False, None, None, (1, 2, 3, 4, 5))
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.size = 3  # type: ignore[misc]
    back = pickle.loads(pickle.dumps(one))
    assert back == one and back.log_ident == (1, 2, 3, 4, 5)
    assert dataclasses.replace(one, size=11).size == 11
    assert "TranscriptFile(path=" in repr(one)


@pytest.mark.parametrize("folder", ["/", "/t", "/t/u/", ".", "rel", "rel/sub", "./rel", "..", "//t"])
def test_a_child_path_made_by_the_walk_is_the_path_slash_makes(folder: str) -> None:
    """Discovery makes each found file's path with pathlib's own child maker and, on
    3.11, sets its text as 3.12 does: the same path (text, parts, equality, hash) as
    `folder / name` makes."""
    from planwatch.core.transcripts.discover import _child_maker

    for name in ("a.jsonl", "x y", "é", ".hidden"):
        made = _child_maker(Path(folder))(name)
        slash = Path(folder) / name
        assert (str(made), made.parts, made, hash(made)) == (str(slash), slash.parts, slash, hash(slash))
        assert (made.parent, made.name, made.is_absolute()) == (slash.parent, slash.name, slash.is_absolute())
