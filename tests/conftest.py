"""Fixtures: databases (SQLite always; PostgreSQL when the server is reachable) and the app."""

from __future__ import annotations

import os
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.fakes.base import sample_mp4
from tests.support.databases import (
    PG_HOST,
    PG_PORT,
    fresh_pg_database,
    pg_url,
    postgres_reachable,
)
from tests.support.harness import Harness, running, test_settings
from tests.support.images import image_host
from vidrouter.store.database import Database

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
    async with fresh_pg_database() as name:
        yield pg_url(name)


@pytest.fixture
async def pg_name() -> AsyncIterator[str]:
    """A fresh PostgreSQL database's name, for tests only PostgreSQL can run."""
    if not PG_AVAILABLE:
        pytest.skip(PG_SKIP_REASON)
    async with fresh_pg_database() as name:
        yield name


@pytest.fixture
def postgres_url(pg_name: str) -> str:
    """A fresh PostgreSQL database, for tests only PostgreSQL can run."""
    return pg_url(pg_name)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    """A migrated database, on each database."""
    database = Database(database_url)
    await database.migrate()
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
async def images() -> AsyncIterator[str]:
    """A server hosting input images (see tests/support/images.py); its base URL."""
    async with image_host() as url:
        yield url


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


@pytest.fixture(scope="module")
def chaos_sample() -> Iterator[None]:
    """For tests against OpenAI-style fakes: the sample video rendered once, before any
    request the fakes answer is timed, and the SDK's warning that it flags the Sora API
    silenced."""
    sample_mp4()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield
