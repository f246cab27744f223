"""Test databases: a fresh SQLite file, or a fresh PostgreSQL database per test."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from collections.abc import AsyncIterator

import asyncpg  # type: ignore[import-untyped]

PG_HOST = os.environ.get("VIDROUTER_TEST_PG_HOST", "127.0.0.1")
PG_PORT = int(os.environ.get("VIDROUTER_TEST_PG_PORT", "5432"))
PG_USER = os.environ.get("VIDROUTER_TEST_PG_USER", "postgres")
PG_ADMIN_DB = os.environ.get("VIDROUTER_TEST_PG_DB", "test")


def postgres_reachable() -> bool:
    try:
        with socket.create_connection((PG_HOST, PG_PORT), timeout=1):
            return True
    except OSError:
        return False


PG_AVAILABLE = postgres_reachable()
PG_SKIP_REASON = (
    f"PostgreSQL is not reachable at {PG_HOST}:{PG_PORT} (set VIDROUTER_TEST_PG_HOST/PORT to "
    "point at one); the SQLite variant of this test still runs"
)


async def pg_admin(statement: str) -> None:
    """One statement on the server's admin database (CREATE / DROP DATABASE)."""
    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def create_pg_database(template: str | None = None) -> str:
    """A new database's name: empty, or a copy of `template` (a database nobody is using)."""
    name = "vr_test_" + secrets.token_hex(6)
    copy = f' TEMPLATE "{template}"' if template else ""
    await pg_admin(f'CREATE DATABASE "{name}"{copy}')
    return name


async def drop_pg_database(name: str) -> None:
    await pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.asynccontextmanager
async def fresh_pg_database(template: str | None = None) -> AsyncIterator[str]:
    """A new PostgreSQL database (its name; a copy of `template` if one is named), dropped
    on the way out."""
    name = await create_pg_database(template)
    try:
        yield name
    finally:
        await drop_pg_database(name)


def pg_url(name: str) -> str:
    return f"postgresql+asyncpg://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
