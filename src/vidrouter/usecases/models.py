"""The catalog as clients see it right now: the models listed with the credentials at hand,
how healthy their routes are (circuit breakers) and how they deliver (route stats), and the
price a generation created now would pay (docs/routing.md)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from vidrouter.domain.catalog import Catalog, ListedModel, ModelSpec, Route, RouteFilter
from vidrouter.domain.controls import Controls
from vidrouter.domain.errors import Unavailable
from vidrouter.domain.routing import (
    DEFAULT_POLICY,
    RouteStats,
    RoutingPolicy,
    known_providers,
    order_routes,
)
from vidrouter.engine.circuits import Circuits, CircuitState
from vidrouter.engine.router import chosen_now, route_reports

ROUTE_STATES = {
    CircuitState.CLOSED: "available",
    CircuitState.HALF_OPEN: "degraded",
    CircuitState.OPEN: "unavailable",
}


@dataclass(frozen=True)
class RouteView:
    route: Route
    state: str  # available | degraded | unavailable
    stats: RouteStats


class ModelCatalog:
    def __init__(self, catalog: Catalog, usable: RouteFilter, circuits: Circuits) -> None:
        self._catalog = catalog
        self._usable = usable
        self._circuits = circuits

    def listed(self) -> list[ListedModel]:
        """The models offered now (at least one route has credentials)."""
        return self._catalog.listed(self._usable)

    def find(self, model_id: str) -> ListedModel | None:
        return self._catalog.find_listed(model_id, self._usable)

    def lookup(self, model_id: str) -> ListedModel | ModelSpec | None:
        """For checking a create: the listed model, else the known but unusable one (whose
        refusal then says why), else None."""
        listed = self.find(model_id)
        return listed if listed is not None else self._catalog.get(model_id)

    def providers(self) -> frozenset[str]:
        """The provider names a routing policy may use."""
        return known_providers(self._catalog)

    async def priced_now(self, model: ListedModel) -> ListedModel:
        """The model with the route the default policy would choose now (breakers included)
        first, so that its listed price is what a generation created now would pay."""
        chosen = await chosen_now(self._circuits, model)
        return replace(model, routes=(chosen, *(r for r in model.routes if r is not chosen)))

    async def routes(self, model: ListedModel) -> list[RouteView]:
        """Every usable route in default order, with its state and live stats."""
        return [
            RouteView(r.route, ROUTE_STATES[r.state], r.stats)
            for r in await route_reports(self._circuits, model)
        ]

    async def status(self, model: ListedModel) -> str:
        """available: every route works; degraded: some have open circuits; unavailable: all."""
        states = [await self._circuits.state_of(r.key) for r in model.routes]
        open_count = sum(1 for s in states if s is CircuitState.OPEN)
        if open_count == 0:
            return "available" if all(s is CircuitState.CLOSED for s in states) else "degraded"
        return "unavailable" if open_count == len(states) else "degraded"

    async def ensure_servable(
        self,
        model: ListedModel,
        policy: RoutingPolicy | None = None,
        controls: Controls | None = None,
    ) -> None:
        """Refuse work that cannot run: when every route of the model (that the request's
        routing policy allows and that honours its controls) has an open circuit, a 503
        with Retry-After beats queueing a generation that would only wait."""
        allowed = policy or DEFAULT_POLICY
        routes = [r.key for r in order_routes(model.routes, allowed, {}, controls)]
        for route in routes:
            if await self._circuits.state_of(route) is not CircuitState.OPEN:
                return
        wait = await self._circuits.seconds_until_probe(routes)
        raise Unavailable(
            f"every provider of model {model.id} is failing right now; try again in {wait} s",
            code="model_unavailable",
            param="model",
            retry_after=wait,
        )
