"""The `vidrouter` command line: one module per command group."""
