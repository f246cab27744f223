"""Fixtures: databases (SQLite always; PostgreSQL when the server is reachable) and the app."""

from __future__ import annotations

import os
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.fakes.base import sample_mp4
from tests.support.cost import classify
from tests.support.databases import (
    PG_AVAILABLE,
    PG_SKIP_REASON,
    fresh_pg_database,
    pg_url,
)
from tests.support.db_templates import copy_migrated_sqlite, drop_templates, migrated_pg_database
from tests.support.harness import Harness, running, test_settings
from tests.support.images import image_host
from vidrouter.store.database import Database

# pytest-xdist's workers inherit COLUMNS=80 / LINES=24 from execnet. The CLI's rich consoles
# (made when vidrouter.cli is imported) would keep that width for good; without it they read
# each command's own COLUMNS (tests/support/cli.py), as a process started with it does.
for _name in ("COLUMNS", "LINES"):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop(_name, None)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test `unit`, `integration` or `system` by what it uses (tests/support/cost.py).
    Under pytest-xdist, each module's system tests form one group (`--dist loadgroup` runs a
    group on one worker, one test after another, so a module's served process is started once
    and its tests never race each other) and come first, so that the longest pieces of work
    start first; two groups run side by side, one per worker."""
    costs = {item.nodeid: classify(item) for item in items}
    for item in items:
        item.add_marker(costs[item.nodeid])
        if costs[item.nodeid] == "system" and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(f"system:{item.nodeid.split('::')[0]}"))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: costs[item.nodeid] != "system")


def pytest_sessionfinish(session: pytest.Session) -> None:
    drop_templates()


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """The same test once on a SQLite file and once on a fresh PostgreSQL database, each at
    the newest migration already (a copy of one migrated once: tests/support/db_templates.py)."""
    if request.param == "sqlite":
        await copy_migrated_sqlite(tmp_path / "test.sqlite3")
        yield f"sqlite+aiosqlite:///{tmp_path / 'test.sqlite3'}"
        return
    if not PG_AVAILABLE:
        if os.environ.get("VIDROUTER_TEST_REQUIRE_POSTGRES"):
            pytest.fail("VIDROUTER_TEST_REQUIRE_POSTGRES is set but PostgreSQL is not reachable")
        pytest.skip(PG_SKIP_REASON)
    async with migrated_pg_database() as name:
        yield pg_url(name)


@pytest.fixture
async def pg_name() -> AsyncIterator[str]:
    """A fresh, empty PostgreSQL database's name, for tests only PostgreSQL can run."""
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
