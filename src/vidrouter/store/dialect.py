"""Everything that differs between SQLite and PostgreSQL, in one place."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, event, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.pool import ConnectionPoolEntry

WRITE_OPTIONS = {"vidrouter_write": True}
_READ_OPTIONS: dict[str, dict[str, Any]] = {
    # SQLite: no BEGIN (see _on_begin); switching the isolation level instead would cost
    # several round trips to the driver's thread on every checkout.
    "sqlite": {"vidrouter_read": True},
    "postgresql": {"isolation_level": "AUTOCOMMIT"},
}


def read_options(dialect_name: str) -> dict[str, Any]:
    return dict(_READ_OPTIONS[dialect_name])


_MIGRATION_LOCK = 7_260_424_113  # arbitrary, stable advisory-lock key for migrations


def name_of(url: str) -> str:
    if url.startswith("sqlite"):
        return "sqlite"
    if url.startswith("postgresql"):
        return "postgresql"
    raise ValueError(f"unsupported database URL {url.split(':', 1)[0]!r}: use sqlite or postgresql")


def engine_options(url: str, pool_size: int) -> dict[str, Any]:
    if name_of(url) == "sqlite":
        return {"pool_size": pool_size, "max_overflow": 0, "connect_args": {"timeout": 30}}
    return {"pool_size": pool_size, "max_overflow": pool_size, "pool_pre_ping": True}


def install_hooks(engine: AsyncEngine) -> None:
    if engine.dialect.name != "sqlite":
        return
    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # Take transaction control from the driver so that BEGIN is ours (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # WAL: readers never block the writer; NORMAL is durable across process crashes.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        options = conn.get_execution_options()
        if options.get("vidrouter_read"):
            return  # single-statement reads: no transaction needed
        conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("vidrouter_write") else "BEGIN")


def skip_locked(query: Select[Any], dialect_name: str) -> Select[Any]:
    """Claim queries: PostgreSQL lets concurrent claimers skip each other's rows; SQLite has
    a single writer, so the claiming UPDATE is atomic already."""
    if dialect_name == "postgresql":
        return query.with_for_update(skip_locked=True)
    return query


async def lock_for_migration(conn: AsyncConnection) -> None:
    """Serialise concurrent migrations of several processes starting at once."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
