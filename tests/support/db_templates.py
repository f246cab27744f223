"""Migrated databases without migrating each time: each test process migrates one SQLite file
and one PostgreSQL database once (the real migrations, through `Database.migrate`), and every
test that wants a migrated database gets a copy of it: the SQLite file copied, the PostgreSQL
database made with `CREATE DATABASE ... TEMPLATE`. A migration from an empty database costs
about 0.2 s of CPU on SQLite and 1 to 2 s on PostgreSQL; the copy a millisecond and 0.1 s.

The app still runs its migrations on every start (now finding the schema at its head), and
the migrations from an empty database still run: here once per process, in every
`vidrouter serve` a system test starts on its own data directory, and in
`test_migrations_concurrent.py` (the `pg_name` fixture stays empty)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from tests.support.databases import (
    create_pg_database,
    drop_pg_database,
    fresh_pg_database,
    pg_url,
)
from vidrouter.settings import Settings
from vidrouter.store.database import Database

SQLITE_PREFIX = "sqlite+aiosqlite:///"

_templates: dict[str, str] = {}  # "sqlite": the template file, "postgres": the database


async def _migrated(url: str) -> None:
    database = Database(url)
    try:
        await database.migrate()
    finally:
        await database.close()  # no connection left: PostgreSQL copies only an idle template


async def copy_migrated_sqlite(path: Path) -> None:
    """Make `path` a SQLite database at the newest migration (a copy of this process's)."""
    template = _templates.get("sqlite")
    if template is None:
        folder = Path(tempfile.mkdtemp(prefix="vidrouter-template-"))
        template = str(folder / "template.sqlite3")
        await _migrated(SQLITE_PREFIX + template)
        _templates["sqlite"] = template
    await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
    await asyncio.to_thread(shutil.copyfile, template, path)


async def seed_sqlite(settings: Settings) -> None:
    """The app's own SQLite file (its data directory's, or the URL's), migrated already, when
    the file does not exist yet; a database that exists (a restart) is left as it is."""
    url = settings.resolved_database_url
    if url.startswith(SQLITE_PREFIX):
        path = Path(url.removeprefix(SQLITE_PREFIX))
        if not await asyncio.to_thread(path.exists):
            await copy_migrated_sqlite(path)


@contextlib.asynccontextmanager
async def migrated_pg_database() -> AsyncIterator[str]:
    """A new PostgreSQL database at the newest migration (its name), dropped on the way out."""
    template = _templates.get("postgres")
    if template is None:
        template = await create_pg_database()
        try:
            await _migrated(pg_url(template))
        except BaseException:
            await drop_pg_database(template)
            raise
        _templates["postgres"] = template
    async with fresh_pg_database(template) as name:
        yield name


def drop_templates() -> None:
    """At the end of the session: this process's templates go."""
    template = _templates.pop("sqlite", None)
    if template is not None:
        shutil.rmtree(Path(template).parent, ignore_errors=True)
    database = _templates.pop("postgres", None)
    if database is not None:
        asyncio.run(drop_pg_database(database))
