"""Fail early, and clearly, on a Python older than 3.11."""

import sys

# ruff: noqa: UP036 - this file exists to run on Pythons older than we support

if sys.version_info < (3, 11):
    sys.exit(
        f"vidrouter needs Python 3.11 or newer; this is {sys.version.split()[0]}. "
        "Run with PYTHON=python3.11 (or newer), e.g. `make run PYTHON=python3.12`."
    )
