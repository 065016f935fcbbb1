"""The command line: ``python -m wirework demo`` (more commands come with later layers)."""
