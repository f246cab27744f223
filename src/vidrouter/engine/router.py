"""Which route serves a generation's next submit, and how long a route's job may run.

The routes of a model come ordered by the generation's routing policy (domain/routing.py:
by default the operator's priority, then price; or by observed speed or reliability), with
the routes the policy excludes, and those that cannot make what the generation asks (its
controls: `Route.honours`), left out. For one generation, routes that already failed it
(or hung) come last, so a retryable failure fails over to the next host; a generation routed
with `allow_fallbacks: false` stays on the first route it was sent to. A route is skipped
while its circuit is open or its provider account runs as many jobs as its cap allows; when
every route is skipped the work waits in our queue.

A job may run for its route's limit (`job_limit`): the provider's documented longest run,
or, once the route has history, a multiple of its observed p95 (never less than a floor).

A cap counts the jobs the store shows on the route plus the submits chosen for it and not
yet saved (`release` ends those). With `slots` (the service always passes them) those
submits are rows of the database, so the cap is exact across processes
(store/route_slots.py); without, only this process's own are counted.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from vidrouter.domain.catalog import Catalog, ListedModel, Route
from vidrouter.domain.generation import Generation
from vidrouter.domain.routing import (
    LISTING,
    NO_STATS,
    RouteAsk,
    RouteStats,
    ask_of,
    route_candidates,
)
from vidrouter.engine.circuits import Circuits, CircuitState
from vidrouter.providers.registry import Providers
from vidrouter.store.route_health import RouteStore
from vidrouter.store.route_slots import RouteSlots

FAILED_OUTCOMES = frozenset({"submit_failed", "failed", "timed_out"})
_BUSY_WAIT = timedelta(seconds=2)


@dataclass(frozen=True)
class HangPolicy:
    """When a job has run too long on its route (see `Router.job_limit`)."""

    p95_multiple: float = 3.0
    floor: timedelta = timedelta(seconds=120)
    min_samples: int = 5  # completed jobs in the window before the p95 is trusted


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
        hang: HangPolicy | None = None,
    ) -> None:
        self._catalog = catalog
        self._providers = providers
        self._circuits = circuits
        self._routes = routes
        self.hang = hang or HangPolicy()
        self._reserved: defaultdict[str, set[str]] = defaultdict(set)  # route -> generations
        self._cap_lock = asyncio.Lock()
        self._slots = slots  # exact caps across processes (see store/route_slots.py)

    def failures_of(self, g: Generation) -> list[str]:
        return [a.route for a in g.attempts if a.outcome in FAILED_OUTCOMES]

    async def choose(self, g: Generation) -> RouteChoice:
        listed = self._catalog.find_listed(g.model, self._providers.usable)
        if listed is None:
            return RouteChoice(None)
        ordered = await self.candidates(g, listed)
        if not ordered:
            return RouteChoice(None)
        for route in ordered:
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

    async def candidates(self, g: Generation, listed: ListedModel) -> list[Route]:
        """The model's candidates for the generation (`candidates`, as its create was
        checked against), those that already failed it last."""
        ask = ask_of(g)
        ordered = await candidates(self._circuits, listed, ask)
        if not ask.policy.allow_fallbacks and g.attempts:
            first = g.attempts[0].route
            return [r for r in ordered if r.key == first]
        failed = self.failures_of(g)
        ranked = sorted(enumerate(ordered), key=lambda p: (failed.count(p[1].key), p[0]))
        return [route for _, route in ranked]

    def untried(self, g: Generation) -> bool:
        """Whether some usable route the policy allows has not failed this generation yet."""
        return bool(self._untried_routes(g))

    def _untried_routes(self, g: Generation, leaving: str | None = None) -> list[Route]:
        listed = self._catalog.find_listed(g.model, self._providers.usable)
        if listed is None:
            return []
        ask = ask_of(g)
        if not ask.policy.allow_fallbacks and g.attempts:
            return []
        failed = set(self.failures_of(g))
        # Which routes, not their order, matters here: the stats last read do.
        ordered = route_candidates(listed.routes, ask, self._circuits.known_stats())
        return [r for r in ordered if r.key not in failed and r.key != leaving]

    async def room_to_move(
        self, g: Generation, remaining: timedelta, leaving: str | None = None
    ) -> bool:
        """Whether a generation whose job hung (on route `leaving`) may move: some other
        route its policy allows has not failed it yet, and the time left before its deadline
        covers that route's usual run (its observed p50; any time at all with no history)."""
        stats = await self._circuits.stats()
        for route in self._untried_routes(g, leaving):
            p50 = stats.get(route.key, NO_STATS).p50_seconds
            if remaining.total_seconds() > (p50 or 0.0):
                return True
        return False

    async def job_limit(self, route: Route, max_wait: timedelta) -> timedelta:
        """How long a job of this route may run: `max_wait` (the provider's documented
        longest run) until the route has `min_samples` completed jobs in the stats window,
        then `p95_multiple` times their p95, at least `floor` and at most `max_wait`."""
        stats = (await self._circuits.stats()).get(route.key, NO_STATS)
        if stats.p95_seconds is None or stats.completed < self.hang.min_samples:
            return max_wait
        learned = timedelta(seconds=stats.p95_seconds * self.hang.p95_multiple)
        return min(max_wait, max(self.hang.floor, learned))

    async def limit_for(
        self, g: Generation, route: Route, max_wait: timedelta, now: datetime
    ) -> timedelta:
        """The limit of the generation's job in hand. The learned limit (`job_limit`) is a
        reason to move, not to give up: it applies only while the generation has somewhere
        to move to; a job with nowhere else to go may run the provider's documented time."""
        learned = await self.job_limit(route, max_wait)
        if learned >= max_wait:
            return max_wait
        remaining = g.deadline_at - now if g.deadline_at is not None else timedelta.max
        movable = await self.room_to_move(g, remaining, leaving=route.key)
        return learned if movable else max_wait


async def candidates(circuits: Circuits, model: ListedModel, ask: RouteAsk) -> list[Route]:
    """The routes of `model` that may serve `ask`, in the order to try them, by the routes'
    live stats: the one function the create's checks (the open-circuit refusal, the cost
    estimate), the model listing and the router all ask."""
    return route_candidates(model.routes, ask, await circuits.stats())


# --- what a model's routes look like now (GET /v1/models) ---------------------------------------


@dataclass(frozen=True)
class RouteReport:
    route: Route
    state: CircuitState
    stats: RouteStats


async def first_usable(circuits: Circuits, routes: list[Route]) -> Route | None:
    """The first of `routes` (candidates, in order) whose circuit is not open."""
    for route in routes:
        if await circuits.state_of(route.key) is not CircuitState.OPEN:
            return route
    return None


async def chosen_now(circuits: Circuits, model: ListedModel) -> Route:
    """The route the default policy would choose now, breakers included: the first in
    order whose circuit is not open (the first of all when every one is). Its price is the
    model's listed price."""
    ordered = await candidates(circuits, model, LISTING)
    return await first_usable(circuits, ordered) or ordered[0]


async def route_reports(circuits: Circuits, model: ListedModel) -> list[RouteReport]:
    """Every usable route of the model in default order, with its breaker and its stats."""
    ordered = await candidates(circuits, model, LISTING)
    stats = circuits.known_stats()
    return [
        RouteReport(route, await circuits.state_of(route.key), stats.get(route.key, NO_STATS))
        for route in ordered
    ]
