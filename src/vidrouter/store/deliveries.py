"""Webhook deliveries: outbox rows written with the terminal state, sent on their own schedule."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.store.database import Database
from vidrouter.store.leases import LeasedRows
from vidrouter.store.records import from_row
from vidrouter.store.tables import webhook_deliveries as t

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"


@dataclass(frozen=True)
class Delivery:
    id: str
    generation_id: str | None  # None: a batch's (`batch_id`)
    account_id: str
    api_key_id: str | None
    url: str
    event_type: str
    payload: str
    created_at: datetime
    status: str = PENDING
    tries: int = 0
    next_attempt_at: datetime | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    delivered_at: datetime | None = None
    batch_id: str | None = None


async def insert_delivery(conn: AsyncConnection, delivery: Delivery) -> None:
    await conn.execute(
        insert(t).values(
            id=delivery.id,
            generation_id=delivery.generation_id,
            batch_id=delivery.batch_id,
            account_id=delivery.account_id,
            api_key_id=delivery.api_key_id,
            url=delivery.url,
            event_type=delivery.event_type,
            payload=delivery.payload,
            status=delivery.status,
            tries=delivery.tries,
            created_at=delivery.created_at,
            next_attempt_at=delivery.next_attempt_at or delivery.created_at,
        )
    )


class DeliveryStore(LeasedRows[Delivery]):
    def __init__(self, db: Database) -> None:
        super().__init__(db, t, _delivery)

    async def record(
        self,
        delivery_id: str,
        *,
        owner: str,
        status: str,
        tries: int,
        next_attempt_at: datetime | None,
        status_code: int | None,
        error: str | None,
        delivered_at: datetime | None = None,
    ) -> bool:
        """The outcome of a try, if `owner` still holds the delivery's lease (grouped with
        other tasks' writes: store/group_commit.py)."""
        statement = (
            update(t)
            .where(t.c.id == delivery_id, t.c.lease_owner == owner)
            .values(
                status=status,
                tries=tries,
                next_attempt_at=next_attempt_at,
                last_status_code=status_code,
                last_error=error,
                delivered_at=delivered_at,
                lease_owner=None,
                lease_until=None,
            )
        )

        async def write(conn: AsyncConnection) -> bool:
            return (await conn.execute(statement)).rowcount == 1

        return await self._db.grouped(write)

    async def for_generation(self, generation_id: str) -> list[Delivery]:
        async with self._db.read() as conn:
            rows = await conn.execute(
                select(t).where(t.c.generation_id == generation_id).order_by(t.c.created_at)
            )
            return [_delivery(r) for r in rows]


def _delivery(row: Row[Any]) -> Delivery:
    return from_row(Delivery, row._mapping)
