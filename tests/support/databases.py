"""Test databases: a fresh SQLite file, or a fresh PostgreSQL database per test."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from collections.abc import AsyncIterator

import asyncpg

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


async def create_pg_database() -> str:
    name = "vr_test_" + secrets.token_hex(6)
    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return name


async def drop_pg_database(name: str) -> None:
    conn = await asyncpg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, database=PG_ADMIN_DB)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def fresh_pg_database() -> AsyncIterator[str]:
    """A new PostgreSQL database (its name), dropped on the way out."""
    name = await create_pg_database()
    try:
        yield name
    finally:
        await drop_pg_database(name)


def pg_url(name: str) -> str:
    return f"postgresql+asyncpg://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"
