"""GET /v1/models and GET /v1/models/{model_id}.

A model's listed price is that of the route the default policy would choose now, breakers
included; the item also shows every usable route with its state and live stats
(docs/routing.md)."""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from vidrouter.api.deps import CurrentKey, ServiceDep
from vidrouter.api.schemas import ERRORS, ModelList, ModelOut
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.errors import NotFound
from vidrouter.domain.representation import model_object, route_object
from vidrouter.engine.circuits import CircuitState
from vidrouter.engine.router import chosen_now, route_reports
from vidrouter.service import Service

router = APIRouter(prefix="/v1/models", tags=["models"])

ROUTE_STATES = {
    CircuitState.CLOSED: "available",
    CircuitState.HALF_OPEN: "degraded",
    CircuitState.OPEN: "unavailable",
}


@router.get("", response_model=None, responses={200: {"model": ModelList}, **ERRORS})
async def list_models(service: ServiceDep, _key: CurrentKey) -> JSONResponse:
    data = []
    for listed in service.catalog.listed(service.providers.usable):
        model = await _as_priced_now(service, listed)
        data.append(model_object(model, with_object=False, status=await _status(service, model)))
    return JSONResponse({"object": "list", "data": data})


@router.get("/{model_id}", response_model=None, responses={200: {"model": ModelOut}, **ERRORS})
async def get_model(model_id: str, service: ServiceDep, _key: CurrentKey) -> JSONResponse:
    listed = service.catalog.find_listed(model_id, service.providers.usable)
    if listed is None:
        raise NotFound(
            f"no model with id {model_id[:100]!r}", code="model_not_found", param="model_id"
        )
    model = await _as_priced_now(service, listed)
    body = model_object(model, with_object=True, status=await _status(service, model))
    body["routes"] = [
        route_object(r.route, ROUTE_STATES[r.state], r.stats)
        for r in await route_reports(service.circuits, listed)
    ]
    return JSONResponse(body)


async def _as_priced_now(service: Service, model: ListedModel) -> ListedModel:
    """The model with the route the default policy would choose now first, so that its
    price is the one a generation created now would pay."""
    chosen = await chosen_now(service.circuits, model)
    return replace(model, routes=(chosen, *(r for r in model.routes if r is not chosen)))


async def _status(service: Service, model: ListedModel) -> str:
    """available: every route works; degraded: some have open circuits; unavailable: all."""
    states = [await service.circuits.state_of(r.key) for r in model.routes]
    open_count = sum(1 for s in states if s is CircuitState.OPEN)
    if open_count == 0:
        return "available" if all(s is CircuitState.CLOSED for s in states) else "degraded"
    return "unavailable" if open_count == len(states) else "degraded"
