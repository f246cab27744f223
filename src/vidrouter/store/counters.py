"""Counters behind the API's limits, shared by every process of a deployment.

`RateCounters` is the seam: `hit` counts one request against a named fixed window and says
how many the window holds now. `StoreRateCounters` keeps them in the database (the default),
`redis_counters.RedisRateCounters` in Redis. `UnfinishedGenerations` counts a key's queued and
running generations for the concurrency limit; those live in the database whatever the
rate backend.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.dialects import postgresql, sqlite

from vidrouter.domain.generation import Status
from vidrouter.store.database import Database, StoreError
from vidrouter.store.tables import generations, rate_counters

UNFINISHED = (Status.QUEUED.value, Status.IN_PROGRESS.value)


class CountersUnavailable(StoreError):
    """The counter backend could not be reached; the limiter lets the request through."""


@dataclass(frozen=True)
class Hit:
    count: int  # requests in the window, this one included
    window_start: int  # unix seconds: the window the count belongs to


class RateCounters(Protocol):
    async def hit(
        self, name: str, *, window_start: int, window_seconds: int, amount: int = 1
    ) -> Hit:
        """Count one request against counter `name` in the window starting at
        `window_start` (a multiple of `window_seconds`)."""
        ...

    async def aclose(self) -> None: ...


class StoreRateCounters:
    """One row per counter, reset in place when a newer window starts: the table holds one
    row per key, and each request is a single UPSERT ... RETURNING, run outside an explicit
    transaction (one round trip; the statement alone is atomic on both databases).

    A process whose clock lags behind still counts into the newest window, so clock skew
    between processes can only make the limit stricter, never looser."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._upsert = _upsert_statement(db.dialect)

    async def hit(
        self, name: str, *, window_start: int, window_seconds: int, amount: int = 1
    ) -> Hit:
        async with self._db.read() as conn:  # an autocommit connection: see the docstring
            params = {"name": name, "window_start": window_start, "amount": amount}
            row = (await conn.execute(self._upsert, params)).one()
        return Hit(count=int(row.hits), window_start=int(row.window_start))

    async def aclose(self) -> None:
        pass


def _upsert_statement(dialect_name: str) -> Any:
    """INSERT ... ON CONFLICT (name) DO UPDATE ... RETURNING, in the dialect's own words
    (both spell it the same, but SQLAlchemy builds it per dialect)."""
    insert = postgresql.insert if dialect_name == "postgresql" else sqlite.insert
    t = rate_counters
    stmt = insert(t).values(
        name=bindparam("name"), window_start=bindparam("window_start"), hits=bindparam("amount")
    )
    newer = stmt.excluded.window_start > t.c.window_start
    return stmt.on_conflict_do_update(
        index_elements=[t.c.name],
        set_={
            "hits": case((newer, stmt.excluded.hits), else_=t.c.hits + stmt.excluded.hits),
            "window_start": case((newer, stmt.excluded.window_start), else_=t.c.window_start),
        },
    ).returning(t.c.hits, t.c.window_start)


class UnfinishedGenerations:
    """How many generations of a key are queued or in progress: one COUNT over the
    (account_id, status, api_key_id) index, read from the index alone."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def count(self, account_id: str, api_key_id: str) -> int:
        g = generations
        async with self._db.read() as conn:
            value = await conn.scalar(
                select(func.count())
                .select_from(g)
                .where(
                    g.c.account_id == account_id,
                    g.c.status.in_(UNFINISHED),
                    g.c.api_key_id == api_key_id,
                )
            )
        return int(value or 0)


@dataclass
class _Local:
    window_start: int
    shared: int = 0  # the shared count as this process last read it
    pending: int = 0  # counted here, not yet added to the shared count
    synced_at: float = float("-inf")


class BatchedRateCounters:
    """Counts in memory and adds to the shared counter at most every `sync_seconds` per
    counter: one shared write per key and interval instead of one per request, so a busy
    poller costs the database nothing much. A decision uses the shared count as last read
    plus what this process counted since; processes together may overshoot a limit by what
    they count within one interval."""

    def __init__(self, inner: RateCounters, sync_seconds: float) -> None:
        self._inner = inner
        self._sync = sync_seconds
        self._local: dict[str, _Local] = {}

    async def hit(
        self, name: str, *, window_start: int, window_seconds: int, amount: int = 1
    ) -> Hit:
        local = self._local.get(name)
        if local is None or local.window_start != window_start:
            local = self._local[name] = _Local(window_start)
        local.pending += amount
        now = time.monotonic()
        if now - local.synced_at < self._sync:
            return Hit(local.shared + local.pending, window_start)
        sending, local.pending, local.synced_at = local.pending, 0, now
        try:
            shared = await self._inner.hit(
                name, window_start=window_start, window_seconds=window_seconds, amount=sending
            )
        except CountersUnavailable:
            local.pending += sending
            raise
        local.shared = shared.count
        if len(self._local) > 50_000:  # old keys' windows: forget them
            self._local = {k: v for k, v in self._local.items() if v.window_start >= window_start}
        return Hit(local.shared + local.pending, shared.window_start)

    async def aclose(self) -> None:
        await self._inner.aclose()
