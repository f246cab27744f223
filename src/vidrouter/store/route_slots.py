"""Exact `max_concurrent` caps across processes: a slot per submit, reserved in the database.

A route's jobs at its provider are the generations saved `in_progress` on it plus the
submits under way (chosen, not yet saved). The second kind lives in `route_slots`, written
in the same transaction that counts both, under a lock per route (PostgreSQL: an advisory
transaction lock; SQLite: its single writer), so two processes can never both take the last
free slot. A slot is removed once the step's outcome is saved; one left by a process that
died expires after `ttl`.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from sqlalchemy import ColumnElement, and_, delete, func, insert, select, text

from vidrouter.domain.clock import Clock
from vidrouter.domain.generation import Status
from vidrouter.store.database import Database
from vidrouter.store.tables import generations, route_slots

log = logging.getLogger(__name__)


def with_provider(route: str) -> ColumnElement[bool]:
    """Generations whose job is with this route's provider right now."""
    return and_(
        generations.c.route == route,
        generations.c.status == Status.IN_PROGRESS.value,
        generations.c.provider_job_id.is_not(None),
    )


class RouteSlots:
    def __init__(self, db: Database, owner: str, clock: Clock, ttl: timedelta) -> None:
        self._db = db
        self._owner = owner
        self._clock = clock
        self._ttl = ttl
        self._held: set[str] = set()  # generations this process holds a slot for
        self._pending: set[asyncio.Task[None]] = set()

    async def reserve(self, route: str, cap: int, generation_id: str) -> bool:
        now = self._clock()
        async with self._db.write() as conn:
            if self._db.dialect == "postgresql":
                await conn.execute(
                    text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                    {"key": f"route_slots:{route}"},
                )
            await conn.execute(
                delete(route_slots).where(
                    and_(route_slots.c.route == route, route_slots.c.expires_at < now)
                )
            )
            # One statement, one snapshot: a slot released between two statements would be
            # counted neither as a slot nor as a job (PostgreSQL's READ COMMITTED).
            slotted = select(route_slots.c.generation_id).where(route_slots.c.route == route)
            jobs_q = (
                select(func.count())
                .select_from(generations)
                .where(
                    with_provider(route),
                    generations.c.id.not_in(slotted),  # counted once, as a slot
                )
                .scalar_subquery()
            )
            slots_q = (
                select(func.count())
                .select_from(route_slots)
                .where(
                    and_(route_slots.c.route == route, route_slots.c.generation_id != generation_id)
                )
                .scalar_subquery()
            )
            row = (await conn.execute(select(jobs_q, slots_q))).one()
            jobs, slots = row[0], row[1]
            if int(jobs or 0) + int(slots or 0) >= cap:
                return False
            await conn.execute(
                delete(route_slots).where(route_slots.c.generation_id == generation_id)
            )
            await conn.execute(
                insert(route_slots).values(
                    generation_id=generation_id,
                    route=route,
                    owner=self._owner,
                    expires_at=now + self._ttl,
                )
            )
        self._held.add(generation_id)
        return True

    async def release(self, generation_id: str) -> None:
        if generation_id not in self._held:
            return
        self._held.discard(generation_id)
        try:
            async with self._db.write() as conn:
                await conn.execute(
                    delete(route_slots).where(route_slots.c.generation_id == generation_id)
                )
        except Exception:
            # The slot expires by itself; until then the cap is only conservative.
            log.warning("route_slot_release_failed", extra={"generation_id": generation_id})

    def release_soon(self, generation_id: str) -> None:
        """From synchronous code (the step's `finally`): release in the background."""
        if generation_id not in self._held:
            return
        task = asyncio.get_running_loop().create_task(self.release(generation_id))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
