"""`python -m vidrouter.cli`."""

from vidrouter.cli.main import main

main()
