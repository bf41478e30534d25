"""planwatch's embedded core: transcript readers, plan replay, checklists and the record store.

Nothing in this package imports Textual or Rich (tests/test_core_boundary.py checks it).
"""
