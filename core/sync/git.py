"""The system `git`, driven as a subprocess over a bare repository with plumbing only.

Why a module of its own: every network step (fetch, push, ls-remote) has a timeout and
is told apart as *rejected* (the remote moved: a compare-and-swap lost) or *unreachable*
(offline, refused, killed), and every local step is one batched call, never a process
per record. The system git's transports and credentials are used as they are; a prompt
for a password never waits (`GIT_TERMINAL_PROMPT=0`).

- `Git(repo)`; `init()`, `commit(files, parent, message)`, `ref(name)`, `refs(prefix)`,
  `update_ref(name, new, old)` (a local compare-and-swap), `read(specs)` (one
  `cat-file --batch` for many blobs), `is_ancestor(a, b)`, `commit_times(commits)`.
- `fetch(remote, refspec)`, `push(remote, updates)` → True, or False when rejected
  (the remote always after `--`: a remote named `--upload-pack=…` is a name, never an
  option that runs a command);
  `ls_remote(remote, pattern)`; each raises `GitUnreachable` with git's own last line.
- `kill_running(thread)` — the network steps running now (of one thread, or all),
  ended with their children; `end_network()` — that, and none starts after (the process
  is ending).

Each git runs in a process group of its own, and a step that outlives its timeout, is
interrupted, or is still running when the process exits (`planwatch mcp` ended mid-poll)
is ended with its whole group: killing git alone would leave its transport (`ssh`, a
remote helper) running on for minutes. Its stdin is never the caller's (`planwatch
mcp` speaks on its own). ssh gives up connecting after 20 s unless the person's own
`GIT_SSH_COMMAND` says otherwise.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
from pathlib import Path

NETWORK_TIMEOUT = 30.0
IDENTITY = ("-c", "user.name=planwatch", "-c", "user.email=planwatch@localhost")


class GitUnreachable(Exception):
    """The remote could not be reached (or git failed): the sentence says why."""


class GitFailed(Exception):
    """A local git step failed: the repository under .sync/ is damaged or git is missing."""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes -o ConnectTimeout=20")
    return env


_RUNNING: dict[subprocess.Popen[bytes], int] = {}
"""The network steps running now: each one's git (the leader of its process group) → the
thread that waits for it."""
_ENDED: set[int] = set()
"""Threads whose network steps were ended (`kill_running(thread)`): a step such a thread
begins after that is refused at once, until `release(thread)`."""
_RUNNING_LOCK = threading.RLock()
_STARTING = 0
"""Network steps whose git is being started: not listed in `_RUNNING` yet, though git (and
its ssh) may already run; under load the thread that started it can wait a while for the
interpreter before it lists it."""
_LISTED = threading.Condition(_RUNNING_LOCK)
"""Told when a network step that was starting is listed (or failed to start)."""


def _end_group(proc: subprocess.Popen[bytes]) -> None:
    """End git and everything it started (its group), and reap git."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


_CLOSING = False
"""Set once the process ends: no network step starts any more."""


def kill_running(thread: int | None = None) -> None:
    """End every network step this process runs now (`thread`: only the one that thread
    waits for, and every one it begins after, until `release(thread)`), with its
    children: the waiting call raises `GitUnreachable` at once."""
    with _RUNNING_LOCK:
        if thread is not None:
            _ENDED.add(thread)
        for proc, waiter in _RUNNING.items():
            # Only a git still listed and not yet reaped: once reaped, its pid (the group's
            # id) may be given to another process; a step leaves the table under this lock.
            if (thread is None or waiter == thread) and proc.returncode is None:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)


def _network_ended() -> str | None:
    """Why this thread may begin no network step now, or None. (The lock is reentrant: the
    look is made both before git starts and under the lock as it is listed.)"""
    with _RUNNING_LOCK:
        if _CLOSING:
            return "the process is ending"
        if threading.get_ident() in _ENDED:
            return "the sync was stopped"
    return None


def release(thread: int) -> None:
    """`thread`'s network steps may run again (it ended, or was joined): a thread id is
    reused by a later thread, which must not inherit the refusal."""
    with _RUNNING_LOCK:
        _ENDED.discard(thread)


def end_network() -> None:
    """The process is ending (at exit, or before an `os._exit`): every network step ends
    now with its children, and none starts after, so no `ssh` of a poll or a pass still
    on its way outlives the process that started it."""
    global _CLOSING
    with _RUNNING_LOCK:
        _CLOSING = True
        # A step whose git started but is not listed yet would be missed: wait for it
        # (its thread lists it, or sees the process ending and ends it itself); bounded,
        # since an ending process must end.
        _LISTED.wait_for(lambda: _STARTING == 0, timeout=10.0)
        kill_running()


atexit.register(end_network)


def _last_line(text: str) -> str:
    """git's own reason: its first `fatal:`/`error:` line, else its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return line[len(prefix) :].rstrip(".")
    return lines[-1].rstrip(".") if lines else "no answer"


class Git:
    def __init__(self, repo: Path, network_timeout: float = NETWORK_TIMEOUT) -> None:
        self.repo = Path(repo)
        self.network_timeout = network_timeout

    def _run(
        self, *args: str, data: bytes | None = None, timeout: float | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[bytes]:
        argv = ["git", "--git-dir", str(self.repo), *IDENTITY, *args]
        global _STARTING
        if timeout is not None:
            with _RUNNING_LOCK:
                if (ended := _network_ended()) is not None:
                    raise GitUnreachable(ended)  # refused before git (and its ssh) starts
                _STARTING += 1  # an ending process waits for it to be listed (end_network)
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=_env(),
                start_new_session=True,  # its own group: ended whole, transport included
            )
        except BaseException as exc:
            if timeout is not None:
                with _RUNNING_LOCK:
                    _STARTING -= 1
                    _LISTED.notify_all()
            if isinstance(exc, FileNotFoundError):
                raise GitFailed("git is not installed (planwatch sync runs the system git)") from exc
            raise
        if timeout is not None:  # a network step: listed at once, or ended at once
            with _RUNNING_LOCK:
                _STARTING -= 1
                ended = _network_ended()  # since the look above
                if ended is None:
                    _RUNNING[proc] = threading.get_ident()
                _LISTED.notify_all()
            if ended is not None:
                _end_group(proc)
                raise GitUnreachable(ended)
        try:
            stdout, stderr = proc.communicate(data, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            _end_group(proc)
            raise GitUnreachable(f"git {args[0]} took longer than {timeout:.0f} s") from exc
        except BaseException:
            _end_group(proc)  # interrupted: nothing of it runs on
            raise
        finally:
            with _RUNNING_LOCK:
                _RUNNING.pop(proc, None)
        out = subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)
        if check and out.returncode != 0:
            raise GitFailed(f"git {args[0]} failed: {_last_line(out.stderr.decode('utf-8', 'replace'))}")
        return out

    def init(self) -> None:
        if (self.repo / "HEAD").exists():
            return
        self.repo.parent.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(["git", "init", "--bare", "-q", str(self.repo)], capture_output=True, env=_env())
        if out.returncode != 0:
            raise GitFailed(f"git init failed: {_last_line(out.stderr.decode('utf-8', 'replace'))}")

    def blob(self, data: bytes) -> str:
        return self._run("hash-object", "-w", "--stdin", data=data).stdout.decode().strip()

    def commit(self, files: dict[str, bytes], parent: str | None, message: str) -> str:
        entries = "".join(f"100644 blob {self.blob(data)}\t{name}\n" for name, data in sorted(files.items()))
        tree = self._run("mktree", data=entries.encode()).stdout.decode().strip()
        args = ["commit-tree", tree, "-m", message]
        if parent:
            args += ["-p", parent]
        return self._run(*args).stdout.decode().strip()

    def ref(self, name: str) -> str | None:
        out = self._run("rev-parse", "--verify", "-q", name + "^{commit}", check=False)
        return out.stdout.decode().strip() or None if out.returncode == 0 else None

    def refs(self, prefix: str) -> dict[str, str]:
        out = self._run("for-each-ref", "--format=%(objectname) %(refname)", prefix)
        found: dict[str, str] = {}
        for line in out.stdout.decode().splitlines():
            sha, _, name = line.partition(" ")
            found[name] = sha
        return found

    def update_ref(self, name: str, new: str, old: str | None = None) -> None:
        self._run("update-ref", name, new, old or "0" * 40)

    def set_ref(self, name: str, new: str) -> None:
        self._run("update-ref", name, new)

    def read(self, specs: list[str]) -> dict[str, bytes | None]:
        """Each `<commit>:<path>` → the blob's bytes, None when there is none."""
        if not specs:
            return {}
        out = self._run("cat-file", "--batch", data="".join(s + "\n" for s in specs).encode()).stdout
        found: dict[str, bytes | None] = {}
        at = 0
        for spec in specs:
            end = out.index(b"\n", at)
            header = out[at:end].decode()
            at = end + 1
            if header.endswith(" missing") or header.endswith(" ambiguous"):
                found[spec] = None
                continue
            size = int(header.rsplit(" ", 1)[1])
            found[spec] = out[at : at + size]
            at += size + 1
        return found

    def is_ancestor(self, a: str, b: str) -> bool:
        return self._run("merge-base", "--is-ancestor", a, b, check=False).returncode == 0

    def commit_times(self, commits: list[str]) -> dict[str, int]:
        """Each commit → its committer time (seconds since the epoch, by the clock of the
        host that made it), in one call."""
        if not commits:
            return {}
        out = self._run("log", "--no-walk=unsorted", "--format=%H %ct", *sorted(set(commits)))
        found: dict[str, int] = {}
        for line in out.stdout.decode().splitlines():
            sha, _, when = line.partition(" ")
            if when.isdigit():
                found[sha] = int(when)
        return found

    def first_parents(self, tip: str) -> list[str]:
        return self._run("rev-list", "--first-parent", tip).stdout.decode().split()

    # -- the network

    def fetch(self, remote: str, refspec: str) -> None:
        out = self._run("fetch", "--no-tags", "-q", "--", remote, refspec, timeout=self.network_timeout, check=False)
        if out.returncode != 0:
            raise GitUnreachable(_last_line(out.stderr.decode("utf-8", "replace")))

    def push(self, remote: str, updates: dict[str, str]) -> bool:
        """Push `{ref: commit}` without force, atomically; False when the remote refused
        because a ref moved (the compare-and-swap lost)."""
        specs = [f"{sha}:{ref}" for ref, sha in sorted(updates.items())]
        out = self._run(
            "push", "--atomic", "--porcelain", "-q", "--", remote, *specs, timeout=self.network_timeout, check=False
        )
        if out.returncode == 0:
            return True
        text = out.stdout.decode("utf-8", "replace")
        if any(line.startswith("!") for line in text.splitlines()):
            return False
        raise GitUnreachable(_last_line(out.stderr.decode("utf-8", "replace")))

    def ls_remote(self, remote: str, pattern: str) -> dict[str, str]:
        out = self._run("ls-remote", "--", remote, pattern, timeout=self.network_timeout, check=False)
        if out.returncode != 0:
            raise GitUnreachable(_last_line(out.stderr.decode("utf-8", "replace")))
        found: dict[str, str] = {}
        for line in out.stdout.decode().splitlines():
            sha, _, name = line.partition("\t")
            found[name] = sha
        return found
