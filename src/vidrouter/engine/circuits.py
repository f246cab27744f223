"""Circuit breakers per route, shared by every worker through the store.

closed  -> open       after `threshold` retryable failures within `window`
open    -> half-open  once `cooldown` has passed: one caller (in any process) may probe
half-open -> closed   when the probe succeeds; -> open again when it fails

Auth and quota failures at a provider open the circuit at once: the route is unusable
until a probe shows it works again.

Breakers judge delivery, not acceptance: a route's success is a job that completed
(`delivered`); a job the provider failed for its own reasons, or one that outran the route's
limit, is a lost job (`undelivered`), and a refused submit or poll is a failure (`failure`).
A job the provider took (`answered`) is no success: it only ends a run of refused calls, and
leaves the lost jobs counted (store/routes.py keeps the two counts). Delivered and undelivered jobs also go into the live
route stats (store/route_stats.py), read back through `stats()`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from vidrouter.domain.clock import Clock
from vidrouter.domain.routing import RouteStats
from vidrouter.store.route_health import CLOSED, RouteHealth, RouteStore
from vidrouter.store.route_stats import COMPLETED, FAILED, RouteStatsStore


class CircuitState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass(frozen=True)
class BreakerPolicy:
    threshold: int = 5
    window: timedelta = timedelta(seconds=60)
    cooldown: timedelta = timedelta(seconds=30)
    probe_lease: timedelta = timedelta(seconds=120)
    stats_window: timedelta = timedelta(hours=1)  # the sliding window of the route stats


class Circuits:
    def __init__(
        self,
        store: RouteStore,
        clock: Clock,
        policy: BreakerPolicy,
        cache_seconds: float = 1.0,
        stats: RouteStatsStore | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self.policy = policy
        self._cache_seconds = cache_seconds
        self._view: dict[str, RouteHealth] = {}
        self._read_at = float("-inf")
        self._stats_store = stats
        self._stats: dict[str, RouteStats] = {}
        self._stats_read_at = float("-inf")

    async def view(self) -> dict[str, RouteHealth]:
        if time.monotonic() - self._read_at > self._cache_seconds:
            self._view = await self._store.all()
            self._read_at = time.monotonic()
        return self._view

    def _invalidate(self) -> None:
        self._read_at = float("-inf")

    def state(self, health: RouteHealth | None, now: datetime) -> CircuitState:
        if health is None or health.state == CLOSED:
            return CircuitState.CLOSED
        if health.opened_at is not None and now - health.opened_at >= self.policy.cooldown:
            return CircuitState.HALF_OPEN
        return CircuitState.OPEN

    async def state_of(self, route: str) -> CircuitState:
        return self.state((await self.view()).get(route), self._clock())

    async def may_use(self, route: str) -> bool:
        """Closed: yes. Open: no. Half-open: yes for the one caller that takes the probe."""
        now = self._clock()
        state = self.state((await self.view()).get(route), now)
        if state is CircuitState.CLOSED:
            return True
        if state is CircuitState.OPEN:
            return False
        taken = await self._store.take_probe(route, now=now, until=now + self.policy.probe_lease)
        self._invalidate()
        return taken

    async def failure(self, route: str, *, fatal: bool = False, lost_job: bool = False) -> None:
        threshold = 1 if fatal else self.policy.threshold
        await self._store.record_failure(
            route,
            now=self._clock(),
            window=self.policy.window,
            threshold=threshold,
            lost_job=lost_job,
        )
        self._invalidate()

    async def answered(self, route: str) -> None:
        """The route accepted a call (e.g. a submit): its refused calls no longer run in a
        row. Not a success: a circuit is closed only by a completed job."""
        health = (await self.view()).get(route)
        if health is None or health.state != CLOSED or health.failures == 0:
            return
        await self._store.record_answered(route, now=self._clock())
        self._invalidate()

    async def success(self, route: str) -> None:
        health = (await self.view()).get(route)
        if health is None or (
            health.state == CLOSED and health.failures == 0 and health.job_failures == 0
        ):
            return
        await self._store.record_success(route, now=self._clock())
        self._invalidate()

    # --- delivery ---------------------------------------------------------------------------

    async def delivered(self, route: str, seconds: float) -> None:
        """A job of this route completed, `seconds` after its submit."""
        await self.success(route)
        await self._record(route, COMPLETED, seconds)

    async def undelivered(self, route: str, seconds: float, *, outcome: str = FAILED) -> None:
        """A job of this route failed at the provider for the provider's own reasons, or
        outran the route's limit (`outcome="timed_out"`): a failure of the route."""
        await self.failure(route, lost_job=True)
        await self._record(route, outcome, seconds)

    async def _record(self, route: str, outcome: str, seconds: float) -> None:
        if self._stats_store is None:
            return
        await self._stats_store.record(
            route, outcome, max(0.0, seconds), now=self._clock(), keep=self.policy.stats_window
        )
        self._stats_read_at = float("-inf")

    async def stats(self) -> dict[str, RouteStats]:
        """Every route's stats over the window (read at most once per cache period)."""
        if self._stats_store is None:
            return {}
        if time.monotonic() - self._stats_read_at > self._cache_seconds:
            since = self._clock() - self.policy.stats_window
            self._stats = await self._stats_store.summary(since=since)
            self._stats_read_at = time.monotonic()
        return self._stats

    def known_stats(self) -> dict[str, RouteStats]:
        """The stats last read by `stats` (never reads)."""
        return self._stats

    async def seconds_until_probe(self, routes: list[str]) -> int:
        """How long until one of these open routes may be tried again (for Retry-After)."""
        view = await self.view()
        now = self._clock()
        waits = []
        for route in routes:
            health = view.get(route)
            if health is not None and health.opened_at is not None:
                waits.append((health.opened_at + self.policy.cooldown - now).total_seconds())
        return max(1, int(min(waits, default=1)) + 1)
