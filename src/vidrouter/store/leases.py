"""Leased work, the same way for every table of it (generations, deliveries): claiming due
rows, renewing the leases of rows in hand, giving them back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import Row, Table, and_, or_, select, update

from vidrouter.store import dialect
from vidrouter.store.database import Database

Item = TypeVar("Item")


class LeasedRows(Generic[Item]):
    """A store's side of leased work: claiming its due rows and telling when more fall due."""

    def __init__(self, db: Database, table: Table, item: Callable[[Row[Any]], Item]) -> None:
        self._db = db
        self._table = table
        self._item = item

    async def claim(
        self,
        owner: str,
        *,
        now: datetime,
        lease_until: datetime,
        limit: int,
        due_by: datetime | None = None,
    ) -> list[Item]:
        """Take up to `limit` due, unleased rows, setting the lease in one statement."""
        rows = await claim_due(
            self._db,
            self._table,
            owner,
            now=now,
            lease_until=lease_until,
            limit=limit,
            due_by=due_by,
        )
        return [self._item(r) for r in rows]

    async def next_due_at(self, now: datetime) -> datetime | None:
        return await next_due(self._db, self._table, now=now)

    async def renew(self, owner: str, ids: Sequence[str], *, until: datetime) -> int:
        """Extend the leases `owner` still holds on these rows (a heartbeat): how many."""
        if not ids:
            return 0
        c = self._table.c
        # A row another transaction is writing right now (its step's save, in a group
        # commit that locks its rows in its own order) is skipped, not waited for: waiting
        # could deadlock on PostgreSQL and lose every lease in this heartbeat; the save
        # ends or moves that lease itself, and the next heartbeat renews it if not.
        # (SQLite has one writer and no row locks: the clause is not rendered there.)
        free = (
            select(c.id)
            .where(c.id.in_(list(ids)), c.lease_owner == owner)
            .with_for_update(skip_locked=True)
        )
        return await self._db.changed(
            update(self._table)
            .where(c.id.in_(free), c.lease_owner == owner)
            .values(lease_until=until)
        )

    async def release(self, owner: str, ids: Sequence[str] | None = None) -> int:
        """Give `owner`'s leases back (all, or these rows') so that another worker can go on
        at once (a graceful shutdown)."""
        c = self._table.c
        condition = c.lease_owner == owner
        if ids is not None:
            condition = and_(condition, c.id.in_(list(ids)))
        return await self._db.changed(
            update(self._table).where(condition).values(lease_owner=None, lease_until=None)
        )


async def claim_due(
    db: Database,
    table: Table,
    owner: str,
    *,
    now: datetime,
    lease_until: datetime,
    limit: int,
    due_by: datetime | None = None,
) -> list[Row[Any]]:
    """Take up to `limit` unleased rows due by `due_by` (default `now`; later lets one claim
    take the rows about to fall due too), earliest first, setting the lease in one statement;
    PostgreSQL's concurrent claimers skip each other's rows."""
    c = table.c
    free = and_(
        c.next_attempt_at.is_not(None),
        c.next_attempt_at <= (now if due_by is None else due_by),
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


async def next_due(db: Database, table: Table, *, now: datetime) -> datetime | None:
    """When the earliest row nobody holds falls due. Held rows are left out: their holder
    reports their next time itself, and a dead holder's rows are found by the idle poll."""
    c = table.c
    # Walks the partial due index in order, past the few held rows; a bare min() would be
    # cheaper only without the lease condition, and a full scan with it.
    query = (
        select(c.next_attempt_at)
        .where(
            c.next_attempt_at.is_not(None),
            or_(c.lease_until.is_(None), c.lease_until < now),
        )
        .order_by(c.next_attempt_at)
        .limit(1)
    )
    async with db.read() as conn:
        value: datetime | None = await conn.scalar(query)
    return value
