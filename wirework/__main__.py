"""``python -m wirework``: the command line."""

from wirework.cli.main import main

raise SystemExit(main())
