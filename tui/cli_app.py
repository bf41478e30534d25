"""Arguments and start-up of the app itself (`planwatch`, `planwatch --pane`, `--demo`)."""

from __future__ import annotations

import argparse


def add_app_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pane", action="store_true", help="one narrow column that follows the newest session")
    parser.add_argument("--cwd", metavar="DIR", help="in pane mode, follow the newest session of this folder")
    parser.add_argument("--demo", action="store_true", help="open the app on the bundled fixtures")
    parser.add_argument("--root", metavar="DIR", action="append", default=[], help="an extra transcript folder (repeatable)")


def run_app(args: argparse.Namespace) -> int:
    from tui.app import make_app

    app = make_app(args)
    app.run()
    return 0
