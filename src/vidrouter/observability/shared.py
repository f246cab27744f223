"""Gauges about the shared database, read when scraped: every process of a deployment
reports the same truth (the queue and the circuits belong to the database, not to the
process that happens to be scraped).

One cheap query per scrape at most every `cache_seconds` (the queue counts go through the
partial due-index; the circuit states come from the circuit breakers' own cached view), and
concurrent scrapes share it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Table, and_, case, func, or_, select

from vidrouter.domain.catalog import Catalog, RouteFilter
from vidrouter.domain.clock import Clock
from vidrouter.engine.circuits import Circuits
from vidrouter.store.database import Database
from vidrouter.store.tables import generations, webhook_deliveries

CIRCUIT_STATES = ("closed", "half_open", "open")
QUEUE_STATES = ("due", "running", "waiting")

CircuitReader = Callable[[], Awaitable[Mapping[str, str]]]


@dataclass(frozen=True)
class Snapshot:
    queues: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    circuits: Mapping[str, str] = field(default_factory=dict)
    ok: bool = True


class SharedState(Collector):
    def __init__(
        self, db: Database, circuits: CircuitReader, clock: Clock, *, cache_seconds: float = 2.0
    ) -> None:
        self._db = db
        self._circuits = circuits
        self._clock = clock
        self._cache_seconds = cache_seconds
        self._snapshot = Snapshot(ok=False)
        self._read_at = float("-inf")
        self._lock = asyncio.Lock()

    async def refresh(self) -> Snapshot:
        """The snapshot, read again when older than the cache time."""
        async with self._lock:
            if time.monotonic() - self._read_at >= self._cache_seconds:
                try:
                    self._snapshot = await self._read()
                except Exception:
                    # A database that does not answer must not break the process's own
                    # metrics: the scrape says so in vidrouter_shared_state_up.
                    self._snapshot = Snapshot(ok=False)
                self._read_at = time.monotonic()
            return self._snapshot

    async def _read(self) -> Snapshot:
        now = self._clock()
        queues = {
            "generations": await _queue(self._db, generations, now),
            "webhooks": await _queue(self._db, webhook_deliveries, now),
        }
        return Snapshot(queues, dict(await self._circuits()))

    def describe(self) -> Iterator[GaugeMetricFamily]:
        """The names, for the registry's duplicate check (the values come at scrape time)."""
        yield GaugeMetricFamily("vidrouter_shared_state_up", "")
        yield GaugeMetricFamily("vidrouter_queue_depth", "", labels=["queue", "state"])
        yield GaugeMetricFamily("vidrouter_circuit_state", "", labels=["route", "state"])

    def collect(self) -> Iterator[GaugeMetricFamily]:
        snap = self._snapshot
        up = GaugeMetricFamily(
            "vidrouter_shared_state_up",
            "1 when the last read of the shared database's gauges succeeded.",
        )
        up.add_metric([], 1.0 if snap.ok else 0.0)
        yield up
        if not snap.ok:
            return
        depth = GaugeMetricFamily(
            "vidrouter_queue_depth",
            "Unfinished work in the shared database: due (waiting for a worker), running "
            "(leased by a worker), waiting (scheduled later: the next poll, a backoff).",
            labels=["queue", "state"],
        )
        for queue, counts in snap.queues.items():
            for state in QUEUE_STATES:
                depth.add_metric([queue, state], float(counts.get(state, 0)))
        yield depth
        circuit = GaugeMetricFamily(
            "vidrouter_circuit_state",
            "1 for the route's current circuit state (closed, half_open, open), else 0.",
            labels=["route", "state"],
        )
        for route, current in sorted(snap.circuits.items()):
            for state in CIRCUIT_STATES:
                circuit.add_metric([route, state], 1.0 if state == current else 0.0)
        yield circuit


async def _queue(db: Database, table: Table, now: datetime) -> dict[str, int]:
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


def circuit_reader(
    circuits: Circuits, catalog: Catalog, usable: RouteFilter, clock: Clock
) -> CircuitReader:
    """The state of every usable route's circuit (closed when it never failed), and of any
    other route the breakers know, from the breakers' own short-cached view."""

    async def read() -> Mapping[str, str]:
        now = clock()
        view = await circuits.view()
        states = {route: circuits.state(health, now).value for route, health in view.items()}
        for model in catalog.listed(usable):
            for route in model.routes:
                states.setdefault(route.key, "closed")
        return states

    return read
