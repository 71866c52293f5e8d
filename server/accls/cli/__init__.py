"""The command line: `accls suggest|annotate|check|verify|feedback`."""

from accls.cli.commands import main

__all__ = ["main"]
