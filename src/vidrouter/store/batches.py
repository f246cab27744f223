"""Batches and their lines: insert, read, list, and the batch runner's side under a lease.

A line is started by the guard `start_line`, run in the transaction that inserts its
generation: it sets the line's `generation_id` only while the line has none and the batch
is still running, so a line makes its generation exactly once whatever process dies when.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, case, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain.batch import Batch, BatchLine, BatchStatus
from vidrouter.domain.errors import VidrouterError
from vidrouter.domain.generation import GenerationError
from vidrouter.store import pages
from vidrouter.store.database import Database
from vidrouter.store.deliveries import Delivery, insert_delivery
from vidrouter.store.generations import InsertGuard
from vidrouter.store.leases import LeasedRows
from vidrouter.store.records import from_row
from vidrouter.store.tables import batch_lines as lines_t
from vidrouter.store.tables import batches as t
from vidrouter.store.tables import generations as gen_t

RUNNING = (
    BatchStatus.QUEUED.value,
    BatchStatus.IN_PROGRESS.value,
    BatchStatus.CANCELING.value,
)
_INSERT_CHUNK = 500


class LineTaken(VidrouterError):
    """The line was started already, or its batch stopped: no generation for it now."""


@dataclass(frozen=True)
class BatchPage:
    data: list[Batch]
    has_more: bool


@dataclass(frozen=True)
class Progress:
    """Where a batch's lines are: generations by status, lines never started (by why),
    lines still to start, and the cost of its generations so far."""

    by_status: dict[str, int]
    pending: int  # lines not started yet
    not_started: dict[str, int]  # lines that ended without a generation, by error code
    cost: float
    unfinished: int  # generations not terminal


@dataclass(frozen=True)
class LineResult:
    line: int
    custom_id: str
    generation_id: str | None
    status: str | None  # the generation's; None: no generation
    video_key: str | None
    cost: float | None
    error_code: str | None  # the line's own, else its generation's
    error_message: str | None
    deleted: bool


class BatchStore(LeasedRows[Batch]):
    def __init__(self, db: Database) -> None:
        super().__init__(db, t, batch_from_row)
        self._listing = pages.Listing(db, t, batch_from_row)

    async def insert(self, batch: Batch, lines: Sequence[BatchLine]) -> None:
        """The batch and all its lines in one transaction: all or nothing."""
        async with self._db.write() as conn:
            await conn.execute(insert(t).values(**_columns(batch)))
            rows = [
                {"batch_id": batch.id, "line": x.line, "custom_id": x.custom_id, "body": x.body}
                for x in lines
            ]
            for start in range(0, len(rows), _INSERT_CHUNK):
                await conn.execute(insert(lines_t), rows[start : start + _INSERT_CHUNK])

    async def get(self, batch_id: str, *, account_id: str | None = None) -> Batch | None:
        query = select(t).where(t.c.id == batch_id)
        if account_id is not None:
            query = query.where(t.c.account_id == account_id)
        async with self._db.read() as conn:
            row = (await conn.execute(query)).first()
        return batch_from_row(row) if row is not None else None

    async def page(self, account_id: str, *, limit: int, after: str | None) -> BatchPage:
        """Newest first; `after` is the id of the last batch of the previous page."""
        query = select(t).where(t.c.account_id == account_id)
        data, has_more = await self._listing.page(query, account_id, limit=limit, after=after)
        return BatchPage(data, has_more)

    async def progress(self, batch_id: str) -> Progress:
        async with self._db.read() as conn:
            by_status = {
                r.status: int(r.n)
                for r in await conn.execute(
                    select(gen_t.c.status, func.count().label("n"))
                    .where(gen_t.c.batch_id == batch_id)
                    .group_by(gen_t.c.status)
                )
            }
            cost = await conn.scalar(
                select(func.coalesce(func.sum(gen_t.c.cost_amount), 0.0)).where(
                    gen_t.c.batch_id == batch_id
                )
            )
            unstarted = {
                r.error_code: int(r.n)
                for r in await conn.execute(
                    select(lines_t.c.error_code, func.count().label("n"))
                    .where(lines_t.c.batch_id == batch_id, lines_t.c.generation_id.is_(None))
                    .group_by(lines_t.c.error_code)
                )
            }
        pending = unstarted.pop(None, 0)
        unfinished = sum(n for s, n in by_status.items() if s in ("queued", "in_progress"))
        return Progress(
            by_status, pending, dict(unstarted), round(float(cost or 0.0), 6), unfinished
        )

    async def unstarted(self, batch_id: str, limit: int) -> list[BatchLine]:
        """The first `limit` lines still to start, in file order."""
        query = (
            select(lines_t.c.line, lines_t.c.custom_id, lines_t.c.body)
            .where(
                lines_t.c.batch_id == batch_id,
                lines_t.c.generation_id.is_(None),
                lines_t.c.error_code.is_(None),
            )
            .order_by(lines_t.c.line)
            .limit(limit)
        )
        async with self._db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [BatchLine(r.line, r.custom_id, r.body) for r in rows]

    def start_line(self, batch_id: str, line: int, generation_id: str) -> InsertGuard:
        """The guard of a line's generation insert: the line has no generation yet and has
        not ended (a stopped batch's lines not started have ended, in the transaction that
        stopped it). Raises LineTaken otherwise, and nothing is inserted. Only the line's
        own row is written: a group of inserts (store/group_commit.py) never waits on a
        row another transaction of the engine holds."""

        async def start(conn: AsyncConnection) -> None:
            marked = await conn.execute(
                update(lines_t)
                .where(*_unstarted(batch_id, line))
                .values(generation_id=generation_id)
            )
            if marked.rowcount != 1:
                raise LineTaken(f"line {line} of {batch_id} was started or has ended")

        return start

    async def end_line(self, batch_id: str, line: int, error: GenerationError) -> None:
        """A line that cannot make a generation (its body no longer passes the create
        rules): it ends with this error."""
        await self._db.changed(
            update(lines_t)
            .where(*_unstarted(batch_id, line))
            .values(error_code=error.code, error_message=error.message)
        )

    async def stop(
        self,
        batch_id: str,
        error: GenerationError,
        *,
        status: BatchStatus,
        now: datetime,
        account_id: str | None = None,
    ) -> bool:
        """Stop a running batch: its lines not started end with `error`, and it is due at
        once; the runner ends it when its generations have ended (CANCELING: after
        canceling them). False when it had ended or was stopped already."""
        where = [t.c.id == batch_id, t.c.status.in_(RUNNING), t.c.error_code.is_(None)]
        if account_id is not None:
            where.append(t.c.account_id == account_id)
        async with self._db.write() as conn:
            changed = await conn.execute(
                update(t)
                .where(*where)
                .values(
                    status=status.value,
                    error_code=error.code,
                    error_message=error.message,
                    updated_at=now,
                    next_attempt_at=now,
                )
            )
            if changed.rowcount != 1:
                return False
            await conn.execute(
                update(lines_t)
                .where(
                    lines_t.c.batch_id == batch_id,
                    lines_t.c.generation_id.is_(None),
                    lines_t.c.error_code.is_(None),
                )
                .values(error_code=error.code, error_message=error.message)
            )
        return True

    async def reschedule(self, batch_id: str, *, owner: str, due: datetime, now: datetime) -> bool:
        """The runner's turn ended: due again at `due`, the lease given back (and a queued
        batch now in progress)."""
        changed = await self._db.changed(
            update(t)
            .where(t.c.id == batch_id, t.c.status.in_(RUNNING), t.c.lease_owner == owner)
            .values(
                status=case(
                    (t.c.status == BatchStatus.QUEUED.value, BatchStatus.IN_PROGRESS.value),
                    else_=t.c.status,
                ),
                next_attempt_at=due,
                updated_at=now,
                lease_owner=None,
                lease_until=None,
            )
        )
        return changed == 1

    async def finish(
        self, ended: Batch, *, was: BatchStatus, owner: str, deliveries: Sequence[Delivery] = ()
    ) -> bool:
        """End a batch the runner holds, if it is still `was` (a cancel meanwhile wins),
        with the webhook deliveries of its end in the same transaction (the outbox)."""
        async with self._db.write() as conn:
            changed = await conn.execute(
                update(t)
                .where(t.c.id == ended.id, t.c.status == was.value, t.c.lease_owner == owner)
                .values(
                    status=ended.status.value,
                    updated_at=ended.updated_at,
                    completed_at=ended.completed_at,
                    next_attempt_at=None,
                    lease_owner=None,
                    lease_until=None,
                )
            )
            if changed.rowcount != 1:
                return False
            for delivery in deliveries:
                await insert_delivery(conn, delivery)
        return True

    async def unfinished_generations(self, batch_id: str) -> list[str]:
        async with self._db.read() as conn:
            rows = await conn.execute(
                select(gen_t.c.id).where(
                    gen_t.c.batch_id == batch_id, gen_t.c.status.in_(("queued", "in_progress"))
                )
            )
            return [r.id for r in rows]

    async def results(self, batch_id: str, *, chunk: int = 1000) -> AsyncIterator[LineResult]:
        """Every line in file order with its generation, read `chunk` lines at a time."""
        last = 0
        while True:
            query = (
                select(
                    lines_t.c.line,
                    lines_t.c.custom_id,
                    lines_t.c.generation_id,
                    lines_t.c.error_code,
                    lines_t.c.error_message,
                    gen_t.c.status,
                    gen_t.c.video_key,
                    gen_t.c.cost_amount,
                    gen_t.c.error_code.label("g_error_code"),
                    gen_t.c.error_message.label("g_error_message"),
                    gen_t.c.deleted_at,
                )
                .select_from(lines_t.outerjoin(gen_t, gen_t.c.id == lines_t.c.generation_id))
                .where(lines_t.c.batch_id == batch_id, lines_t.c.line > last)
                .order_by(lines_t.c.line)
                .limit(chunk)
            )
            async with self._db.read() as conn:
                rows = (await conn.execute(query)).all()
            for r in rows:
                yield LineResult(
                    line=r.line,
                    custom_id=r.custom_id,
                    generation_id=r.generation_id,
                    status=r.status,
                    video_key=r.video_key,
                    cost=r.cost_amount,
                    error_code=r.error_code or r.g_error_code,
                    error_message=r.error_message or r.g_error_message,
                    deleted=r.deleted_at is not None,
                )
            if len(rows) < chunk:
                return
            last = rows[-1].line


def _columns(b: Batch) -> dict[str, Any]:
    return {
        "id": b.id,
        "account_id": b.account_id,
        "api_key_id": b.api_key_id,
        "status": b.status.value,
        "total": b.total,
        "estimated_total": b.estimated_total,
        "webhook_url": b.webhook_url,
        "metadata": b.metadata,
        "error_code": b.error.code if b.error else None,
        "error_message": b.error.message if b.error else None,
        "created_at": b.created_at,
        "updated_at": b.updated_at,
        "completed_at": b.completed_at,
        "next_attempt_at": b.next_attempt_at,
        "lease_owner": b.lease_owner,
        "lease_until": b.lease_until,
    }


def batch_from_row(row: Row[Any]) -> Batch:
    m = row._mapping
    error = GenerationError(m["error_code"], m["error_message"] or "") if m["error_code"] else None
    return from_row(
        Batch, m, status=BatchStatus(m["status"]), metadata=m["metadata"] or {}, error=error
    )


def _unstarted(batch_id: str, line: int) -> tuple[ColumnElement[bool], ...]:
    """The line, while it has neither a generation nor an end."""
    return (
        lines_t.c.batch_id == batch_id,
        lines_t.c.line == line,
        lines_t.c.generation_id.is_(None),
        lines_t.c.error_code.is_(None),
    )
