"""Cross-node wake-ups on PostgreSQL: a worker whose idle poll would take 1000 s still takes a
generation created by another process at once (LISTEN/NOTIFY), also after its listening
connection was cut (it reconnects, and catches up on what it missed)."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import pytest

from tests.support.databases import (
    PG_ADMIN_DB,
    PG_HOST,
    PG_PORT,
    PG_USER,
    pg_url,
)
from tests.support.harness import running, test_settings

pytestmark = pytest.mark.postgres


async def _cut_listeners(name: str) -> int:
    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB)
    try:
        rows = await conn.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = $1 AND query LIKE 'LISTEN%'",
            name,
        )
    finally:
        await conn.close()
    return len(rows)


async def test_a_create_on_another_process_wakes_an_idle_worker(
    tmp_path: Path, pg_name: str
) -> None:
    url = pg_url(pg_name)
    async with AsyncExitStack() as stack:
        api = await stack.enter_async_context(
            running(test_settings(tmp_path / "api", url, role="api"), workers=False)
        )
        worker = await stack.enter_async_context(
            running(test_settings(tmp_path / "worker", url, idle_poll_seconds=1000))
        )
        assert worker.service.wakeups is not None
        await asyncio.wait_for(worker.service.wakeups.connected.wait(), 30)
        await asyncio.sleep(0.5)  # the worker is idle now, in its 1000 s sleep
        key = await api.new_key()
        first = await api.create(key, model="local-preview", prompt="wake", duration=1)
        assert (await api.wait_for(key, first.json()["id"], timeout=60))["status"] == "completed"

        # The listening connection is cut; what is created meanwhile is caught up with.
        assert await _cut_listeners(pg_name) == 1
        second = await api.create(key, model="local-preview", prompt="again", duration=1)
        assert (await api.wait_for(key, second.json()["id"], timeout=60))["status"] == "completed"
        await asyncio.wait_for(worker.service.wakeups.connected.wait(), 30)
        third = await api.create(key, model="local-preview", prompt="after", duration=1)
        assert (await api.wait_for(key, third.json()["id"], timeout=60))["status"] == "completed"
