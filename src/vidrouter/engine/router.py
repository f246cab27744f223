"""Which route serves a generation's next submit.

The routes of a model come ordered by the operator's policy (priority, then price). For one
generation, routes that already failed it come last, so a retryable failure fails over to
the next host. A route is skipped while its circuit is open or its provider account runs
as many jobs as its cap allows; when every route is skipped the work waits in our queue.

A cap counts the jobs the store shows on the route plus the submits chosen for it and not
yet saved (`release` ends those). With `slots` (the service always passes them) those
submits are rows of the database, so the cap is exact across processes
(store/route_slots.py); without, only this process's own are counted.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from vidrouter.domain.catalog import Catalog, Route
from vidrouter.domain.generation import Generation
from vidrouter.engine.circuits import Circuits
from vidrouter.providers.registry import Providers
from vidrouter.store.route_health import RouteStore
from vidrouter.store.route_slots import RouteSlots

FAILED_OUTCOMES = frozenset({"submit_failed", "failed"})
_BUSY_WAIT = timedelta(seconds=2)


@dataclass(frozen=True)
class RouteChoice:
    route: Route | None
    wait: timedelta | None = None  # no route now: try again after this; None: never


class Router:
    def __init__(
        self,
        catalog: Catalog,
        providers: Providers,
        circuits: Circuits,
        routes: RouteStore,
        slots: RouteSlots | None = None,
    ) -> None:
        self._catalog = catalog
        self._providers = providers
        self._circuits = circuits
        self._routes = routes
        self._reserved: defaultdict[str, set[str]] = defaultdict(set)  # route -> generations
        self._cap_lock = asyncio.Lock()
        self._slots = slots  # exact caps across processes (see store/route_slots.py)

    def failures_of(self, g: Generation) -> list[str]:
        return [a.route for a in g.attempts if a.outcome in FAILED_OUTCOMES]

    async def choose(self, g: Generation) -> RouteChoice:
        listed = self._catalog.find_listed(g.model, self._providers.usable)
        if listed is None:
            return RouteChoice(None)
        failed = self.failures_of(g)
        ranked = sorted(enumerate(listed.routes), key=lambda p: (failed.count(p[1].key), p[0]))
        candidates = [route for _, route in ranked]
        for route in candidates:
            if route.max_concurrent is not None:
                if await self._reserve(route, route.max_concurrent, g.id):
                    return RouteChoice(route)
            elif await self._circuits.may_use(route.key):
                return RouteChoice(route)
        wait = await self._circuits.seconds_until_probe([r.key for r in listed.routes])
        return RouteChoice(None, min(_BUSY_WAIT * 5, max(_BUSY_WAIT, timedelta(seconds=wait))))

    async def _reserve(self, route: Route, cap: int, generation_id: str) -> bool:
        if self._slots is not None:
            if not await self._slots.reserve(route.key, cap, generation_id):
                return False
            if not await self._circuits.may_use(route.key):
                await self._slots.release(generation_id)
                return False
            return True
        async with self._cap_lock:
            held = self._reserved[route.key]
            # Counted before the read: a submit saved and released during it is then still
            # counted once (twice at worst, which only delays the next submit a little).
            reserved = len(held)
            if await self._routes.in_flight(route.key) + reserved >= cap:
                return False
            if not await self._circuits.may_use(route.key):
                return False
            held.add(generation_id)
            return True

    def release(self, generation_id: str) -> None:
        """The generation's step is saved (or given up): a slot it reserved is free again."""
        for held in self._reserved.values():
            held.discard(generation_id)
        if self._slots is not None:
            self._slots.release_soon(generation_id)

    def untried(self, g: Generation) -> bool:
        """Whether some usable route has not failed this generation yet."""
        listed = self._catalog.find_listed(g.model, self._providers.usable)
        if listed is None:
            return False
        failed = set(self.failures_of(g))
        return any(r.key not in failed for r in listed.routes)
