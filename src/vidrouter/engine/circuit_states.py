"""The circuit state of every route, for the metrics (`observability.shared`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from vidrouter.domain.catalog import Catalog, RouteFilter
from vidrouter.domain.clock import Clock
from vidrouter.engine.circuits import Circuits


def circuit_reader(
    circuits: Circuits, catalog: Catalog, usable: RouteFilter, clock: Clock
) -> Callable[[], Awaitable[Mapping[str, str]]]:
    """Every usable route's state (closed when it never failed), and any other route the
    breakers know, from the breakers' own short-cached view."""

    async def read() -> Mapping[str, str]:
        now = clock()
        view = await circuits.view()
        states = {route: circuits.state(health, now).value for route, health in view.items()}
        for model in catalog.listed(usable):
            for route in model.routes:
                states.setdefault(route.key, "closed")
        return states

    return read
