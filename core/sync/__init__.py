"""The store shared across hosts through git (docs/sync.md).

Each host appends its changes, field by field, to a log only it writes
(`planwatch/log/<host>` on the remote); every host rebuilds the same store from the
union of the logs by one deterministic merge (merge.py). No Textual here: the app and
the command line drive it.

- fields.py — a record as fields and back; rendering from scratch (the same bytes everywhere).
- ops.py — the operations and their canonical lines.
- capture.py — a local change (a tool's write, a hand edit) as operations.
- merge.py — the operations → the records; text3.py — the body's three-way merge.
"""
