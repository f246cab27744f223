"""Service-wide values kept in the database, so every process of a deployment shares them."""

from __future__ import annotations

import secrets

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from vidrouter.store.database import Database
from vidrouter.store.tables import service_values


async def get_or_create_secret(db: Database, name: str) -> str:
    """A random secret stored under `name`; the first process to ask creates it."""
    async with db.read() as conn:
        value = await conn.scalar(
            select(service_values.c.value).where(service_values.c.name == name)
        )
    if value is not None:
        return str(value)
    try:
        async with db.write() as conn:
            await conn.execute(
                insert(service_values).values(name=name, value=secrets.token_urlsafe(32))
            )
    except IntegrityError:
        pass  # another process created it first: use theirs
    async with db.read() as conn:
        value = await conn.scalar(
            select(service_values.c.value).where(service_values.c.name == name)
        )
    return str(value)
