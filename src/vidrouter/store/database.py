"""The database seam: one async engine, read and write transactions, migrations."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from importlib import resources
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Executable, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from vidrouter.domain.errors import VidrouterError
from vidrouter.store import dialect
from vidrouter.store.group_commit import GroupCommit, Work
from vidrouter.store.write_lock import WriteLock, write_lock_for

R = TypeVar("R")
GROUP_COMMIT_PARALLEL = 4  # on PostgreSQL: batches written at once

log = logging.getLogger(__name__)

# Set while this task is inside a write: a nested one must not wait for the lock it holds.
_writing: ContextVar[bool] = ContextVar("vidrouter_writing", default=False)
# Set in the engine's tasks (see `as_background`): their writes yield to the API's.
_background: ContextVar[bool] = ContextVar("vidrouter_background", default=False)


def as_background() -> None:
    """Mark the current task, and the tasks it starts, as background work: on SQLite its
    writes wait while a request's writes are queued, so that a create answers in
    milliseconds while the engine drains a backlog."""
    _background.set(True)


class StoreError(VidrouterError):
    """The database could not do what was asked (unreachable, locked too long, ...)."""


class Database:
    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = url
        self.dialect = dialect.name_of(url)
        self.engine: AsyncEngine = create_async_engine(
            url, **dialect.engine_options(url, pool_size)
        )
        dialect.install_hooks(self.engine)
        self._writer = self.engine.execution_options(**dialect.WRITE_OPTIONS)
        self._reader = self.engine.execution_options(**dialect.read_options(self.dialect))
        # SQLite has one writer: this process's writers queue for it in one lock per file
        # (store/write_lock.py), whichever `Database` and event loop they write through.
        self._write_lock: WriteLock | None = None
        if self.dialect == "sqlite":
            memory = ":memory:" in url or "mode=memory" in url
            self._write_lock = WriteLock() if memory else write_lock_for(url)
        self._group: GroupCommit | None = None

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """Reads outside an explicit transaction: each statement sees committed data; the
        round trips of BEGIN and ROLLBACK are saved on the hot read paths."""
        async with self._reader.connect() as conn:
            yield conn

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A transaction that will write: on SQLite it takes the write lock up front, so two
        writers never deadlock upgrading a read lock."""
        lock = self._write_lock if not _writing.get() else None
        if lock is None:
            async with self._writer.begin() as conn:
                yield conn
            return
        await lock.acquire(_background.get())
        token = _writing.set(True)
        try:
            async with self._writer.begin() as conn:
                yield conn
        finally:
            _writing.reset(token)
            lock.release()

    async def grouped(self, work: Work[R]) -> R:
        """Run `work` in a write transaction shared with other tasks' grouped writes (group
        commit, store/group_commit.py): for small writes of many concurrent tasks. Its
        result once that transaction committed; an exception only for its own failure."""
        if _writing.get():
            # Inside a write already: a batch would wait for the lock this task holds.
            async with self.write() as conn:
                return await work(conn)
        loop = asyncio.get_running_loop()
        if self._group is None or self._group.loop is not loop:
            # SQLite writes one batch at a time anyway (its single writer); PostgreSQL a few
            # at once, each on its own connection.
            parallel = 1 if self.dialect == "sqlite" else GROUP_COMMIT_PARALLEL
            self._group = GroupCommit(self, loop, parallel=parallel)
        return await self._group.run(work)

    async def changed(self, statement: Executable) -> int:
        """Run one writing statement in a transaction of its own: the rows it changed."""
        async with self.write() as conn:
            result = await conn.execute(statement)
        return int(result.rowcount)

    async def ping(self) -> bool:
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return True
        except (SQLAlchemyError, OSError):
            log.warning("database_ping_failed", exc_info=True)
            return False

    async def migrate(self) -> None:
        """Bring the schema to the newest migration (idempotent; safe on every start)."""
        async with self.engine.begin() as conn:
            await dialect.lock_for_migration(conn)
            await conn.run_sync(_upgrade)

    async def close(self) -> None:
        await self.engine.dispose()


def _upgrade(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def alembic_config(**attributes: Any) -> Config:
    config = Config()
    location = resources.files("vidrouter.store").joinpath("migrations")
    config.set_main_option("script_location", str(location))
    config.attributes.update(attributes)
    return config
