"""Claiming leased work, the same way for every table of it (generations, deliveries)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row, Table, and_, or_, select, update

from vidrouter.store import dialect
from vidrouter.store.database import Database


async def claim_due(
    db: Database, table: Table, owner: str, *, now: datetime, lease_until: datetime, limit: int
) -> list[Row[Any]]:
    """Take up to `limit` due, unleased rows (earliest due first), setting the lease in one
    statement; PostgreSQL's concurrent claimers skip each other's rows."""
    c = table.c
    free = and_(
        c.next_attempt_at.is_not(None),
        c.next_attempt_at <= now,
        or_(c.lease_until.is_(None), c.lease_until < now),
    )
    due = dialect.skip_locked(
        select(c.id).where(free).order_by(c.next_attempt_at).limit(limit), db.dialect
    )
    statement = (
        update(table)
        .where(c.id.in_(due.scalar_subquery()), free)
        .values(lease_owner=owner, lease_until=lease_until)
        .returning(*c)
    )
    async with db.write() as conn:
        return list((await conn.execute(statement)).all())
