"""Gauges about the shared database, read when scraped: every process of a deployment
reports the same truth (the queue and the circuits belong to the database, not to the
process that happens to be scraped).

The readers are handed in by the composition root (the queries live in the store and the
engine); they run at most once every `cache_seconds`, and concurrent scrapes share a read.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CIRCUIT_STATES = ("closed", "half_open", "open")
QUEUE_STATES = ("due", "running", "waiting")

log = logging.getLogger(__name__)

QueueReader = Callable[[], Awaitable[Mapping[str, Mapping[str, int]]]]
CircuitReader = Callable[[], Awaitable[Mapping[str, str]]]


@dataclass(frozen=True)
class Snapshot:
    queues: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    circuits: Mapping[str, str] = field(default_factory=dict)
    ok: bool = True


class SharedState(Collector):
    def __init__(
        self, queues: QueueReader, circuits: CircuitReader, *, cache_seconds: float = 2.0
    ) -> None:
        self._queues = queues
        self._circuits = circuits
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
                    log.warning("metrics_shared_state_unreadable", exc_info=True)
                    self._snapshot = Snapshot(ok=False)
                self._read_at = time.monotonic()
            return self._snapshot

    async def _read(self) -> Snapshot:
        return Snapshot(dict(await self._queues()), dict(await self._circuits()))

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
