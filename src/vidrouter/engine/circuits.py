"""Circuit breakers per route, shared by every worker through the store.

closed  -> open       after `threshold` retryable failures within `window`
open    -> half-open  once `cooldown` has passed: one caller (in any process) may probe
half-open -> closed   when the probe succeeds; -> open again when it fails

Auth and quota failures at a provider open the circuit at once: the route is unusable
until a probe shows it works again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from vidrouter.domain.clock import Clock
from vidrouter.store.route_health import CLOSED, RouteHealth, RouteStore


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


class Circuits:
    def __init__(
        self, store: RouteStore, clock: Clock, policy: BreakerPolicy, cache_seconds: float = 1.0
    ) -> None:
        self._store = store
        self._clock = clock
        self.policy = policy
        self._cache_seconds = cache_seconds
        self._view: dict[str, RouteHealth] = {}
        self._read_at = float("-inf")

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

    async def failure(self, route: str, *, fatal: bool = False) -> None:
        threshold = 1 if fatal else self.policy.threshold
        await self._store.record_failure(
            route, now=self._clock(), window=self.policy.window, threshold=threshold
        )
        self._invalidate()

    async def success(self, route: str) -> None:
        health = (await self.view()).get(route)
        if health is None or (health.state == CLOSED and health.failures == 0):
            return
        await self._store.record_success(route, now=self._clock())
        self._invalidate()

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
