"""Cross-node wake-ups: PostgreSQL's LISTEN/NOTIFY.

Triggers (migration 0005) notify channel `vidrouter_work` at commit whenever a generation or
a webhook delivery becomes due now and unleased, with the table's name as payload. Each
worker process keeps one dedicated connection LISTENing and wakes the matching loop, so a
generation created on an API node is claimed by an idle worker on another node within a
round trip. The idle poll stays as the safety net: a notification lost while the listening
connection was down is made up for by waking every loop when it comes back.

SQLite has no such thing (and no second machine): this is a no-op there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

CHANNEL = "vidrouter_work"
_RETRY_MIN = 0.5
_RETRY_MAX = 10.0


def asyncpg_dsn(database_url: str) -> str | None:
    """The plain `postgresql://` DSN asyncpg takes, or None for other databases."""
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        return None
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


class WakeupListener:
    def __init__(self, database_url: str, wake: Mapping[str, Callable[[], None]]) -> None:
        """`wake`: table name -> what to call when a row of it becomes due."""
        self._dsn = asyncpg_dsn(database_url)
        self._wake = dict(wake)
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()

    @property
    def enabled(self) -> bool:
        return self._dsn is not None

    def start(self) -> None:
        if self._dsn is not None and self._task is None:
            self._task = asyncio.create_task(self._run(), name="wakeups")

    async def _run(self) -> None:
        assert self._dsn is not None
        delay = _RETRY_MIN
        while True:
            lost = asyncio.Event()
            conn: Any = None
            try:
                conn = await asyncpg.connect(self._dsn, timeout=10)
                conn.add_termination_listener(lambda _c, lost=lost: lost.set())
                await conn.add_listener(CHANNEL, self._notified)
                self.connected.set()
                delay = _RETRY_MIN
                self._wake_all()  # whatever was notified while we were not listening
                await lost.wait()
                log.warning("wakeup_listener_lost")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("wakeup_listener_unavailable", extra={"error": str(exc)[:200]})
            finally:
                self.connected.clear()
                if conn is not None and not conn.is_closed():
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.close(), 2)
            await asyncio.sleep(delay)
            delay = min(delay * 2, _RETRY_MAX)

    def _notified(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        wake = self._wake.get(payload)
        if wake is not None:
            wake()

    def _wake_all(self) -> None:
        for wake in self._wake.values():
            wake()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
