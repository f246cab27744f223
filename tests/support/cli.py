"""The `vidrouter` command line run in the test's own process (typer's `CliRunner` over the
real app): the exit code and what the command wrote to stdout and stderr, without a Python
start-up per command. What only a real process shows (a signal, a terminal, the installed
entry point) is tested by spawning `vidrouter` (`tests/support/process.py`)."""

from __future__ import annotations

import asyncio
import os
import traceback
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from vidrouter.cli import app


@dataclass(frozen=True)
class CliResult:
    returncode: int
    stdout: str
    stderr: str


def invoke_cli(env: Mapping[str, str], *args: str, cwd: Path | None = None) -> CliResult:
    """Run `vidrouter *args` with exactly `env`'s VIDROUTER_ variables (the process's own
    are hidden from it) and, if given, `cwd` as the working directory.

    From inside a running event loop (an async test) the command runs on a thread of its
    own, since it starts an event loop of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _invoke(env, args, cwd)
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(_invoke, env, args, cwd).result()


def _invoke(env: Mapping[str, str], args: tuple[str, ...], cwd: Path | None) -> CliResult:
    hidden: dict[str, str | None] = {k: None for k in os.environ if k.startswith("VIDROUTER_")}
    before = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, list(args), env={**hidden, **env})
    finally:
        os.chdir(before)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # What a real process would have printed on an unhandled exception.
        stderr += "".join(traceback.format_exception(result.exception))
    return CliResult(result.exit_code, result.stdout, stderr)
