"""The catalog as clients see it right now: the models listed with the credentials at hand,
how healthy their routes are (circuit breakers) and how they deliver (route stats), and the
price a generation created now would pay (docs/routing.md)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from vidrouter.domain.catalog import Catalog, ListedModel, ModelSpec, Route, RouteFilter
from vidrouter.domain.errors import Unavailable
from vidrouter.domain.routing import RouteAsk, RouteStats, known_providers
from vidrouter.engine.circuits import Circuits, CircuitState
from vidrouter.engine.router import candidates, chosen_now, first_usable, route_reports

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

    async def candidates(self, model: ListedModel, ask: RouteAsk) -> list[Route]:
        """The routes that may serve `ask`, in the router's order (`engine.router.candidates`)."""
        return await candidates(self._circuits, model, ask)

    async def ensure_servable(self, model: ListedModel, routes: list[Route]) -> Route:
        """The route a request would be sent to now: the first of its candidates (`routes`,
        from `candidates`) whose circuit is not open. When every one is open, a 503 with
        Retry-After beats queueing a generation that would only wait."""
        route = await first_usable(self._circuits, routes)
        if route is not None:
            return route
        keys = [r.key for r in routes]
        wait = await self._circuits.seconds_until_probe(keys)
        raise Unavailable(
            f"every provider of model {model.id} is failing right now; try again in {wait} s",
            code="model_unavailable",
            param="model",
            retry_after=wait,
        )
