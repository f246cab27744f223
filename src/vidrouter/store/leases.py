"""Leased work, the same way for every table of it (generations, deliveries): claiming due
rows, renewing the leases of rows in hand, giving them back."""

from __future__ import annotations

from collections.abc import Sequence
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


async def renew(db: Database, table: Table, owner: str, ids: Sequence[str], until: datetime) -> int:
    """Extend the leases `owner` still holds on these rows (a heartbeat): the count renewed."""
    if not ids:
        return 0
    c = table.c
    return await db.changed(
        update(table).where(c.id.in_(list(ids)), c.lease_owner == owner).values(lease_until=until)
    )


async def release(db: Database, table: Table, owner: str, ids: Sequence[str] | None) -> int:
    """Give `owner`'s leases back (all, or these rows') so that another worker can go on at
    once (a graceful shutdown)."""
    c = table.c
    condition = c.lease_owner == owner
    if ids is not None:
        condition = and_(condition, c.id.in_(list(ids)))
    return await db.changed(
        update(table).where(condition).values(lease_owner=None, lease_until=None)
    )
