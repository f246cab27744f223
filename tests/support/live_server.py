"""A real `vidrouter serve` subprocess on a free port, with a fresh data dir and a key, for
the tests of what runs outside the server: the client, `vidrouter generate`, the console."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.process import VIDROUTER, cli_env, create_key
from tests.support.servers import free_port


@dataclass(frozen=True)
class LiveServer:
    base_url: str
    key: str
    webhook_secret: str
    env: dict[str, str]

    def fresh_key(self, name: str) -> str:
        """A key of a new account: listings see only what the test made."""
        return str(create_key(self.env, name)["key"])


def module_server(name: str) -> Any:
    """A module-scoped fixture: one live server for the module's tests."""

    @pytest.fixture(scope="module")
    def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
        with live_server(tmp_path_factory.mktemp(name)) as live:
            yield live

    return server


@contextlib.contextmanager
def live_server(root: Path, **extra_env: str) -> Iterator[LiveServer]:
    port = free_port()
    env = cli_env(
        root / "data",
        VIDROUTER_PORT=str(port),
        VIDROUTER_RENDER_PROCESSES="1",
        VIDROUTER_IDLE_POLL_SECONDS="0.2",
        **extra_env,
    )
    made = create_key(env, "live")
    log = (root / f"serve-{port}.log").open("ab")
    proc = subprocess.Popen(
        [*VIDROUTER, "serve"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(proc, base_url, root / f"serve-{port}.log")
        yield LiveServer(base_url, made["key"], made["webhook_secret"], env)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        log.close()


def _wait_ready(proc: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError(f"serve exited: {log.read_text()[-2000:]}")
        try:
            # /healthz, not /readyz: it also answers with VIDROUTER_WORKERS=0.
            if httpx.get(base_url + "/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise TimeoutError(log.read_text()[-2000:])
