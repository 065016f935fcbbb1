"""Entry point of the ``wirework`` command."""

from __future__ import annotations

import argparse
import os
import sys
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
    try:
        if args.command == "demo":
            from wirework.cli.demo import run

            run(rows=args.rows)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (| head): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's flush at exit fails otherwise
        return 1
    except OSError as error:  # the output could not be written (a full disk, say)
        print(f"wirework {args.command}: could not write the output: {error}", file=sys.stderr)
        return 1
    return 0
