"""How one request wants its routes chosen (a routing policy), and how each route has been
delivering (its live stats). Pure: no I/O; the engine feeds it the stats and breaker states.

A policy filters a model's usable routes (`only`, `ignore`, `max_price_per_second`) and
orders what is left (`sort`). `allow_fallbacks: false` pins a generation to the first route
it was sent to. Invalid policies are `InvalidRequest`s naming the offending `routing.*`
param, raised before the generation exists.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from vidrouter.domain.catalog import Catalog, ListedModel, Route
from vidrouter.domain.controls import Controls
from vidrouter.domain.errors import InvalidRequest
from vidrouter.domain.generation import Generation
from vidrouter.domain.inputs import Reference, SourceVideo

SORTS = ("price", "speed", "reliability")
POLICY_FIELDS = ("sort", "only", "ignore", "max_price_per_second", "allow_fallbacks")
MAX_PROVIDER_NAMES = 32


@dataclass(frozen=True)
class RoutingPolicy:
    sort: str = "price"
    only: tuple[str, ...] | None = None  # provider names; None: every provider
    ignore: tuple[str, ...] = ()
    max_price_per_second: float | None = None
    allow_fallbacks: bool = True

    def allows(self, route: Route, controls: Controls | None = None) -> bool:
        """`controls`: what the generation asks, whose configuration's price is compared
        with `max_price_per_second` (the route's default price without)."""
        if self.only is not None and route.provider not in self.only:
            return False
        if route.provider in self.ignore:
            return False
        return self.max_price_per_second is None or (
            price_of(route, controls) <= self.max_price_per_second + 1e-12
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "sort": self.sort,
            "only": list(self.only) if self.only is not None else None,
            "ignore": list(self.ignore),
            "max_price_per_second": self.max_price_per_second,
            "allow_fallbacks": self.allow_fallbacks,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> RoutingPolicy:
        if not data:
            return DEFAULT_POLICY
        only = data.get("only")
        price = data.get("max_price_per_second")
        return cls(
            sort=str(data.get("sort") or "price"),
            only=tuple(str(p) for p in only) if only is not None else None,
            ignore=tuple(str(p) for p in data.get("ignore") or ()),
            max_price_per_second=float(price) if price is not None else None,
            allow_fallbacks=bool(data.get("allow_fallbacks", True)),
        )


DEFAULT_POLICY = RoutingPolicy()


def price_of(route: Route, controls: Controls | None, kind: str | None = None) -> float:
    """USD per second on `route` of the configuration `controls` ask for (of type `kind`)."""
    if controls is None:
        return route.price_per_second
    return route.price_for(controls.resolution, controls.generate_audio, kind)


# --- live stats -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteStats:
    """What one route delivered over the stats window: jobs completed and failed (the
    provider's failures and hangs; never the client's own errors), and the times from
    submit to completion of the completed ones."""

    completed: int = 0
    failed: int = 0
    p50_seconds: float | None = None
    p95_seconds: float | None = None

    @property
    def jobs(self) -> int:
        return self.completed + self.failed

    @property
    def success_rate(self) -> float | None:
        return self.completed / self.jobs if self.jobs else None


NO_STATS = RouteStats()


def summarise(outcomes: Iterable[tuple[bool, float | None]]) -> RouteStats:
    """Stats from (completed?, seconds) pairs, one per finished job."""
    completed, failed = 0, 0
    times: list[float] = []
    for ok, seconds in outcomes:
        if ok:
            completed += 1
            if seconds is not None:
                times.append(seconds)
        else:
            failed += 1
    times.sort()
    return RouteStats(completed, failed, percentile(times, 0.50), percentile(times, 0.95))


def percentile(ordered: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile of an ascending list (None when empty): always a time that
    was really observed, which keeps small samples honest."""
    if not ordered:
        return None
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


# --- ordering ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteAsk:
    """What one generation asks of its model's routes: its routing policy, its controls
    (None: any configuration, as the model listing shows it), its duration, its type (None:
    any) with the kinds of its references, and for an extension the route that made its
    source (None: not one of ours). Built from a create request (`CreateRequest.route_ask`)
    or a stored generation (`ask_of`), so that the create's checks and the router ask the
    same question."""

    policy: RoutingPolicy = DEFAULT_POLICY
    controls: Controls | None = None
    duration: float | None = None
    type: str | None = None
    references: tuple[str, ...] = ()
    source_route: str | None = None
    local_media: bool = False  # its media only this server serves, and not to the internet

    def taken_by(self, route: Route) -> bool:
        """Whether `route` can make what it asks of its type and inputs."""
        if self.type is None:
            return True
        return route.takes(self.type, self.references, self.source_route, self.local_media)


LISTING = RouteAsk()  # GET /v1/models: the default policy, the default configuration
# `RouteAsk.source_route` for "whichever route would need to have made it".
ANY_ROUTE = "*"


class Asking(Protocol):
    """What a create request and a stored generation both have, that routes are asked."""

    @property
    def controls(self) -> Controls: ...
    @property
    def duration(self) -> float: ...
    @property
    def type(self) -> str: ...
    @property
    def references(self) -> tuple[Reference, ...]: ...
    @property
    def video(self) -> SourceVideo | None: ...
    @property
    def local_media(self) -> bool: ...


def ask_for(policy: RoutingPolicy, asking: Asking) -> RouteAsk:
    """What a create request or a stored generation asks of its routes under `policy`."""
    video = asking.video
    return RouteAsk(
        policy,
        asking.controls,
        asking.duration,
        asking.type,
        tuple(r.kind for r in asking.references),
        video.route if video is not None else None,
        asking.local_media,
    )


def ask_of(g: Generation) -> RouteAsk:
    """What a stored generation asks of its routes."""
    return ask_for(RoutingPolicy.from_json(g.routing), g)


def route_candidates(
    routes: Sequence[Route], ask: RouteAsk, stats: Mapping[str, RouteStats]
) -> list[Route]:
    """The one answer to "which routes may serve this, in which order": the routes the
    policy allows, that honour the controls at the duration and can make the type from the
    inputs (`RouteAsk.taken_by`), in the order to try them.
    `routes` come in the operator's order (priority, then price), which is the `price` sort
    itself. `speed` puts routes by observed p50 first, `reliability` by success rate; routes
    with no history follow those with some; price (then the operator's order) breaks ties.
    Breakers are not looked at here: the router skips open routes, and a half-open one
    first in line gets its probe."""
    policy, controls, duration = ask.policy, ask.controls, ask.duration
    allowed = [
        (i, r)
        for i, r in enumerate(routes)
        if policy.allows(r, controls)
        and (controls is None or r.honours(controls, duration))
        and ask.taken_by(r)
    ]
    if policy.sort == "speed":

        def speed(p: tuple[int, Route]) -> tuple[bool, float, float, int]:
            p50 = stats.get(p[1].key, NO_STATS).p50_seconds
            return (p50 is None, p50 or 0.0, price_of(p[1], controls, ask.type), p[0])

        allowed.sort(key=speed)
    elif policy.sort == "reliability":

        def reliability(p: tuple[int, Route]) -> tuple[bool, float, float, int]:
            rate = stats.get(p[1].key, NO_STATS).success_rate
            return (rate is None, -(rate or 0.0), price_of(p[1], controls, ask.type), p[0])

        allowed.sort(key=reliability)
    return [r for _, r in allowed]


# --- parsing ----------------------------------------------------------------------------------


def known_providers(catalog: Catalog) -> frozenset[str]:
    """The provider names a policy may use: every host some route of the catalog names
    (usable here or not: naming a host without credentials is no error, it only has no
    route to give)."""
    return frozenset(r.provider for m in catalog.models for r in m.routes)


def parse_routing(
    value: object,
    model: ListedModel,
    known_providers: Collection[str],
    controls: Controls | None = None,
) -> RoutingPolicy | None:
    """The `routing` object of a create request, checked against the model's usable routes
    (None when absent). A provider name we do not know, or a policy that leaves the model no
    route, is an InvalidRequest naming the `routing.*` param responsible."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise _invalid_type("routing", "an object", value)
    for name in value:
        if name not in POLICY_FIELDS:
            raise InvalidRequest(
                f"unknown parameter routing.{str(name)[:80]}; accepted: "
                + ", ".join(POLICY_FIELDS),
                code="parameter_unknown",
                param=f"routing.{str(name)[:80]}",
            )
    sort = value.get("sort", "price")
    if sort is None:
        sort = "price"
    if not isinstance(sort, str):
        raise _invalid_type("routing.sort", "a string", sort)
    if sort not in SORTS:
        raise InvalidRequest(
            f"routing.sort {sort[:40]!r} is not one of: {', '.join(SORTS)}",
            code="routing_sort_invalid",
            param="routing.sort",
        )
    only = _providers(value, "only", known_providers)
    ignore = _providers(value, "ignore", known_providers) or ()
    price = value.get("max_price_per_second")
    if price is not None:
        if isinstance(price, bool) or not isinstance(price, int | float):
            raise _invalid_type("routing.max_price_per_second", "a number", price)
        if not math.isfinite(price) or price < 0:
            raise InvalidRequest(
                "routing.max_price_per_second must be a number >= 0",
                code="parameter_invalid",
                param="routing.max_price_per_second",
            )
    fallbacks = value.get("allow_fallbacks", True)
    if fallbacks is None:
        fallbacks = True
    if not isinstance(fallbacks, bool):
        raise _invalid_type("routing.allow_fallbacks", "a boolean", fallbacks)
    policy = RoutingPolicy(
        sort=sort,
        only=only,
        ignore=ignore,
        max_price_per_second=float(price) if price is not None else None,
        allow_fallbacks=fallbacks,
    )
    _check_leaves_a_route(policy, model, controls)
    return policy


def _providers(
    value: Mapping[str, object], name: str, known: Collection[str]
) -> tuple[str, ...] | None:
    items = value.get(name)
    param = f"routing.{name}"
    if items is None:
        return None
    if not isinstance(items, list) or not all(isinstance(p, str) for p in items):
        raise _invalid_type(param, "an array of provider names", items)
    if len(items) > MAX_PROVIDER_NAMES:
        raise InvalidRequest(
            f"{param} may name at most {MAX_PROVIDER_NAMES} providers",
            code="parameter_invalid",
            param=param,
        )
    for provider in items:
        if provider not in known:
            raise InvalidRequest(
                f"{param}: unknown provider {provider[:80]!r}; known: {', '.join(sorted(known))}",
                code="provider_unknown",
                param=param,
            )
    return tuple(dict.fromkeys(items))


def _check_leaves_a_route(
    policy: RoutingPolicy, model: ListedModel, controls: Controls | None
) -> None:
    """Apply the filters one by one: the first that leaves nothing is the param named."""
    routes = list(model.routes)
    steps: list[tuple[str, RoutingPolicy]] = [
        ("routing.only", RoutingPolicy(only=policy.only)),
        ("routing.ignore", RoutingPolicy(ignore=policy.ignore)),
        (
            "routing.max_price_per_second",
            RoutingPolicy(max_price_per_second=policy.max_price_per_second),
        ),
    ]
    for param, step in steps:
        routes = [r for r in routes if step.allows(r, controls)]
        if not routes:
            hosts = ", ".join(
                sorted({f"{r.provider} ({price_of(r, controls):g}/s)" for r in model.routes})
            )
            raise InvalidRequest(
                f"{param} leaves model {model.id} no route; its routes here: {hosts}",
                code="routing_no_route",
                param=param,
            )


def _invalid_type(param: str, wanted: str, value: object) -> InvalidRequest:
    return InvalidRequest(
        f"{param} must be {wanted}",
        code="parameter_invalid_type",
        param=param,
    )
