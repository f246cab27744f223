"""`vidrouter` as a real subprocess: serve and kill -9; the environment of a run; the CLI's
commands (`run_cli`, in the test's process: see tests/support/cli.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.support.cli import CliResult, invoke_cli
from tests.support.servers import free_port

VIDROUTER = [sys.executable, "-m", "vidrouter.cli"]


def cli_env(data_dir: Path, database_url: str | None = None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDROUTER_")}
    env.update(
        VIDROUTER_DATA_DIR=str(data_dir),
        VIDROUTER_ALLOW_PRIVATE_WEBHOOK_URLS="true",
        VIDROUTER_LOG_LEVEL="WARNING",
    )
    if database_url:
        env["VIDROUTER_DATABASE_URL"] = database_url
    env.update(extra)
    return env


def run_cli(env: dict[str, str], *args: str) -> CliResult:
    return invoke_cli(env, *args)


def create_key(env: dict[str, str], name: str = "test", *limits: str) -> dict[str, Any]:
    """A new key (`limits`: more `keys create` options, e.g. `--rpm`, `100000`)."""
    result = run_cli(env, "keys", "create", "--name", name, "--json", *limits)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


class ServeProcess:
    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        self.env = {**env, "VIDROUTER_PORT": str(self.port)}
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(env["VIDROUTER_DATA_DIR"]).parent / f"serve-{self.port}.log"

    async def start(self, timeout: float = 30.0) -> None:
        handle = self.log.open("ab")
        self.proc = subprocess.Popen(
            [*VIDROUTER, "serve"],
            env=self.env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: kill -9 takes the renderers too
        )
        deadline = asyncio.get_running_loop().time() + timeout
        async with httpx.AsyncClient() as client:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"serve exited: {self.log.read_text()[-2000:]}")
                try:
                    if (await client.get(self.base_url + "/readyz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                if asyncio.get_running_loop().time() > deadline:
                    raise TimeoutError(self.log.read_text()[-2000:])
                await asyncio.sleep(0.1)

    def kill9(self) -> None:
        """SIGKILL the whole process group: the server and its render processes."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    async def terminate(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return await asyncio.to_thread(self.proc.wait, timeout)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
