"""The `vidrouter` command line: one module per command group."""

from vidrouter.cli.main import app, main

__all__ = ["app", "main"]
