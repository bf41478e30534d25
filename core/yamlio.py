"""The two ruamel.yaml set-ups planwatch reads and writes its YAML files with (store
records and the settings file): a strict safe loader, and a round-trip one that writes
block lists as people write them and never folds a long line."""

from ruamel.yaml import YAML


def safe_yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.allow_duplicate_keys = False
    return yaml


def rt_yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    yaml.preserve_quotes = True
    yaml.default_flow_style = False
    yaml.width = 4096  # never fold a long title over two lines
    yaml.indent(mapping=2, sequence=4, offset=2)  # block lists as people write them: "  - db"
    return yaml


def uses_aliases(text: str) -> bool:
    """Whether YAML `text` holds an anchor or an alias (looked at as parse events, only
    when an `&` or `*` occurs at all). A file that aliases a list inside a list, ten
    deep, stands for 10^10 values: whatever walks it never ends."""
    if "&" not in text and "*" not in text:
        return False
    for event in safe_yaml().parse(text):
        if type(event).__name__ == "AliasEvent" or getattr(event, "anchor", None):
            return True
    return False
