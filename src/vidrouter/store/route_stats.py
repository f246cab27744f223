"""Live route stats: one row per job a route finished, read over a sliding window.

Why a row per job rather than bucketed counters: the p50/p95 times need the times
themselves (counters would need a histogram and still only give bucket edges), and an
INSERT is the cheapest write there is: no row that every process updates, so no lock
contention on a hot counter row. The window is kept short by deleting a route's rows older
than the window in the same transaction (an index range scan that touches the one or two
rows that aged out since the last job). Reads take at most the last `MAX_SAMPLES` jobs of
each route in the window, so a busy route costs a bounded read, and readers cache the
summary for a second or two.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from sqlalchemy import delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.domain.routing import RouteStats, summarise
from vidrouter.store.database import Database
from vidrouter.store.tables import route_outcomes

COMPLETED, FAILED, TIMED_OUT = "completed", "failed", "timed_out"
MAX_SAMPLES = 1000  # per route: plenty for a p95, and a bounded read however busy it is


class RouteStatsStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def record(
        self, route: str, outcome: str, seconds: float | None, *, now: datetime, keep: timedelta
    ) -> None:
        """One finished job of `route`: `completed`, `failed` or `timed_out` (grouped with
        other tasks' writes: store/group_commit.py)."""

        async def write(conn: AsyncConnection) -> None:
            await conn.execute(
                insert(route_outcomes).values(
                    route=route, outcome=outcome, seconds=seconds, finished_at=now
                )
            )
            await conn.execute(
                delete(route_outcomes).where(
                    route_outcomes.c.route == route, route_outcomes.c.finished_at < now - keep
                )
            )

        await self._db.grouped(write)

    async def summary(self, *, since: datetime) -> dict[str, RouteStats]:
        """Every route's stats over the jobs finished since `since`."""
        t = route_outcomes
        newest_first = (
            func.row_number()
            .over(partition_by=t.c.route, order_by=(t.c.finished_at.desc(), t.c.id.desc()))
            .label("n")
        )
        recent = (
            select(t.c.route, t.c.outcome, t.c.seconds, newest_first)
            .where(t.c.finished_at >= since)
            .subquery()
        )
        async with self._db.read() as conn:
            rows = await conn.execute(
                select(recent.c.route, recent.c.outcome, recent.c.seconds).where(
                    recent.c.n <= MAX_SAMPLES
                )
            )
            per_route: defaultdict[str, list[tuple[bool, float | None]]] = defaultdict(list)
            for route, outcome, seconds in rows:
                per_route[route].append((outcome == COMPLETED, seconds))
        return {route: summarise(outcomes) for route, outcomes in per_route.items()}
