"""Route health rows (circuit breakers) and in-flight counts per route.

A breaker counts two kinds of failure in one window: refused calls (`failures`: a submit or
poll answered 5xx, 429, a timeout...), which any accepted call resets, since the route
answers again; and lost jobs (`job_failures`: accepted, then failed at the provider or
hung), which only a completed job resets, since only delivery shows the route works. Either
reaching the threshold opens the circuit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from vidrouter.store.database import Database
from vidrouter.store.records import from_row
from vidrouter.store.route_slots import with_provider
from vidrouter.store.tables import generations, route_health

CLOSED, OPEN = "closed", "open"


@dataclass(frozen=True)
class RouteHealth:
    route: str
    state: str
    failures: int
    window_started_at: datetime | None
    opened_at: datetime | None
    probe_until: datetime | None
    job_failures: int = 0


class RouteStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def all(self) -> dict[str, RouteHealth]:
        async with self._db.read() as conn:
            rows = await conn.execute(select(route_health))
            return {r.route: _health(r) for r in rows}

    async def record_failure(
        self,
        route: str,
        *,
        now: datetime,
        window: timedelta,
        threshold: int,
        lost_job: bool = False,
    ) -> RouteHealth:
        """Count a refused call (or, `lost_job`, a job lost after it was accepted); open the
        circuit when `threshold` of one kind fall in one window. A failure while open (a
        failed probe, or a late one) opens it again at once."""
        # Two processes may count the first failure of a route at once: the row is made
        # apart (tolerating the other's insert), then read under a row lock so neither
        # count is lost (FOR UPDATE is a no-op on SQLite, whose writes are serialized).
        await self.ensure(route, now=now)
        async with self._db.write() as conn:
            row = (
                await conn.execute(
                    select(route_health).where(route_health.c.route == route).with_for_update()
                )
            ).one()
            current = _health(row)
            probing = current.state == OPEN
            in_window = (
                current.window_started_at is not None and now - current.window_started_at < window
            )
            failures = current.failures if in_window else 0
            job_failures = current.job_failures if in_window else 0
            if lost_job:
                job_failures += 1
            else:
                failures += 1
            started = current.window_started_at if in_window else now
            opens = probing or max(failures, job_failures) >= threshold
            new = RouteHealth(
                route,
                OPEN if opens else CLOSED,
                failures,
                started,
                now if opens else current.opened_at,
                None,
                job_failures,
            )
            await _write(conn, new, now)
        return new

    async def record_success(self, route: str, *, now: datetime) -> None:
        async with self._db.write() as conn:
            await _write(conn, RouteHealth(route, CLOSED, 0, None, None, None), now)

    async def record_answered(self, route: str, *, now: datetime) -> None:
        """A call was accepted: the refused calls no longer run in a row. Lost jobs and the
        circuit's state stay as they are (only a completed job shows delivery)."""
        async with self._db.write() as conn:
            await conn.execute(
                update(route_health)
                .where(route_health.c.route == route, route_health.c.state == CLOSED)
                .values(failures=0, updated_at=now)
            )

    async def take_probe(self, route: str, *, now: datetime, until: datetime) -> bool:
        """Let exactly one caller (across processes) probe an open circuit."""
        changed = await self._db.changed(
            update(route_health)
            .where(
                route_health.c.route == route,
                route_health.c.state == OPEN,
                or_(route_health.c.probe_until.is_(None), route_health.c.probe_until < now),
            )
            .values(probe_until=until, updated_at=now)
        )
        return changed == 1

    async def in_flight(self, route: str) -> int:
        """Generations whose job is with this route's provider right now."""
        async with self._db.read() as conn:
            count = await conn.scalar(
                select(func.count()).select_from(generations).where(with_provider(route))
            )
        return int(count or 0)

    async def ensure(self, route: str, *, now: datetime) -> None:
        try:
            async with self._db.write() as conn:
                await conn.execute(
                    insert(route_health).values(
                        route=route, state=CLOSED, failures=0, updated_at=now
                    )
                )
        except IntegrityError:
            pass


async def _write(conn: AsyncConnection, health: RouteHealth, now: datetime) -> None:
    """Replace the route's row with `health`, every column."""
    values = asdict(health)
    del values["route"]
    await conn.execute(
        update(route_health)
        .where(route_health.c.route == health.route)
        .values(**values, updated_at=now)
    )


def _health(row: Row[Any]) -> RouteHealth:
    return from_row(RouteHealth, row._mapping)
