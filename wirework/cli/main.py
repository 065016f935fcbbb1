"""Entry point of the ``wirework`` command."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def _count(text: str) -> int:
    """A whole number >= 0, for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    parser = argparse.ArgumentParser(prog="wirework", description="Learning networks for Python.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = commands.add_parser("demo", help="train the seed's three example networks on a bundled dataset")
    demo.add_argument("--rows", type=_count, default=5, help="how many predictions to print per network (default 5)")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from wirework.cli.demo import run

        run(rows=args.rows)
    return 0
