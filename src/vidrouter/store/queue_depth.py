"""How much leased work waits in the shared database, for the metrics: counts of the
unfinished rows of a work table (generations, webhook deliveries) by what they wait for."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Table, and_, case, func, or_, select

from vidrouter.store.database import Database
from vidrouter.store.tables import generations, webhook_deliveries

QUEUES: dict[str, Table] = {"generations": generations, "webhooks": webhook_deliveries}


async def queue_depths(db: Database, now: datetime) -> dict[str, dict[str, int]]:
    """Per queue: `due` (waiting for a worker), `running` (leased), `waiting` (due later)."""
    return {name: await _depth(db, table, now) for name, table in QUEUES.items()}


async def _depth(db: Database, table: Table, now: datetime) -> dict[str, int]:
    c = table.c
    free = or_(c.lease_until.is_(None), c.lease_until <= now)
    statement = select(
        func.sum(case((c.lease_until > now, 1), else_=0)),
        func.sum(case((and_(free, c.next_attempt_at <= now), 1), else_=0)),
        func.sum(case((and_(free, c.next_attempt_at > now), 1), else_=0)),
    ).where(c.next_attempt_at.is_not(None))  # the partial due-index: unfinished rows only
    async with db.read() as conn:
        row = (await conn.execute(statement)).one()
    running, due, waiting = (int(v or 0) for v in row)
    return {"due": due, "running": running, "waiting": waiting}
