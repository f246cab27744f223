"""Several replicas starting at once on an empty PostgreSQL database (a Kubernetes rollout,
`docker compose up --scale`): every process migrates on start, under an advisory lock, so
all of them come up and the schema is made once.

"At once" is made exact: while the processes start, the test holds the empty database's
`public` schema dropped in an open transaction, so that any process creating a table there
waits; once all four wait, the test rolls back and they go on together. Without the lock
they would all create the same tables at that moment, and all but one would fail."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import pytest

from tests.support.databases import PG_ADMIN_DB, PG_HOST, PG_PORT, PG_USER, pg_url
from tests.support.process import ServeProcess, cli_env

pytestmark = [pytest.mark.system, pytest.mark.postgres]


async def test_four_processes_started_together_on_a_new_database_all_come_up(
    tmp_path: Path, pg_name: str
) -> None:
    roles = ("api", "api", "worker", "worker")
    servers = [
        ServeProcess(cli_env(tmp_path / f"data-{i}", pg_url(pg_name), VIDROUTER_ROLE=role))
        for i, role in enumerate(roles)
    ]
    barrier = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=pg_name)
    held = barrier.transaction()
    await held.start()
    await barrier.execute("DROP SCHEMA public CASCADE")
    started = [asyncio.create_task(server.start(timeout=90)) for server in servers]
    try:
        await _until_waiting(pg_name, len(servers))
        await held.rollback()
        await asyncio.gather(*started)
    finally:
        for task in started:
            task.cancel()
        await barrier.close()  # rolls back what is still open
        codes = await asyncio.gather(*(_stop(server) for server in servers))
    assert codes == [0, 0, 0, 0]
    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=pg_name)
    try:
        versions = await conn.fetch("SELECT version_num FROM alembic_version")
    finally:
        await conn.close()
    assert len(versions) == 1


async def _until_waiting(database: str, count: int) -> None:
    """Until `count` sessions of the database wait on a lock (the schema held, or the
    migration lock of the one that got it). Asked on a connection of its own: a transaction
    sees one snapshot of pg_stat_activity."""
    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB)
    try:
        await _poll_waiting(conn, database, count)
    finally:
        await conn.close()


async def _poll_waiting(conn: asyncpg.Connection, database: str, count: int) -> None:
    for _ in range(600):
        waiting = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()"
            " AND wait_event_type = 'Lock'",
            database,
        )
        if waiting >= count:
            return
        await asyncio.sleep(0.1)
    rows = await conn.fetch(
        "SELECT pid, state, wait_event_type, wait_event, left(query, 80) AS q"
        " FROM pg_stat_activity WHERE datname = $1",
        database,
    )
    raise TimeoutError(f"{waiting} of {count} processes reached the migration: {rows}")


async def _stop(server: ServeProcess) -> int | None:
    if server.proc is None or server.proc.poll() is not None:
        return server.proc.returncode if server.proc else None
    return await server.terminate()
