"""Fixtures: databases (SQLite always; PostgreSQL when the server is reachable) and the app."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.databases import (
    PG_HOST,
    PG_PORT,
    create_pg_database,
    drop_pg_database,
    pg_url,
    postgres_reachable,
)
from tests.support.harness import Harness, running, test_settings

PG_AVAILABLE = postgres_reachable()
PG_SKIP_REASON = (
    f"PostgreSQL is not reachable at {PG_HOST}:{PG_PORT} (set VIDROUTER_TEST_PG_HOST/PORT to "
    "point at one); the SQLite variant of this test still runs"
)


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """The same test once on a SQLite file and once on a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'test.sqlite3'}"
        return
    if not PG_AVAILABLE:
        if os.environ.get("VIDROUTER_TEST_REQUIRE_POSTGRES"):
            pytest.fail("VIDROUTER_TEST_REQUIRE_POSTGRES is set but PostgreSQL is not reachable")
        pytest.skip(PG_SKIP_REASON)
    name = await create_pg_database()
    try:
        yield pg_url(name)
    finally:
        await drop_pg_database(name)


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[Harness]:
    """The app with workers, on SQLite."""
    async with running(test_settings(tmp_path / "data")) as harness:
        yield harness


@pytest.fixture
async def app_any_db(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    """The app with workers, on each database."""
    async with running(test_settings(tmp_path / "data", database_url)) as harness:
        yield harness
