"""GET /v1/models and GET /v1/models/{model_id}."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from vidrouter.api.deps import CurrentKey, ServiceDep
from vidrouter.api.schemas import ERRORS, ModelList, ModelOut
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.errors import NotFound
from vidrouter.domain.representation import model_object
from vidrouter.engine.circuits import CircuitState
from vidrouter.service import Service

router = APIRouter(prefix="/v1/models", tags=["models"])


@router.get("", response_model=None, responses={200: {"model": ModelList}, **ERRORS})
async def list_models(service: ServiceDep, _key: CurrentKey) -> JSONResponse:
    listed = service.catalog.listed(service.providers.usable)
    data = [model_object(m, with_object=False, status=await _status(service, m)) for m in listed]
    return JSONResponse({"object": "list", "data": data})


@router.get("/{model_id}", response_model=None, responses={200: {"model": ModelOut}, **ERRORS})
async def get_model(model_id: str, service: ServiceDep, _key: CurrentKey) -> JSONResponse:
    listed = service.catalog.find_listed(model_id, service.providers.usable)
    if listed is None:
        raise NotFound(
            f"no model with id {model_id[:100]!r}", code="model_not_found", param="model_id"
        )
    return JSONResponse(
        model_object(listed, with_object=True, status=await _status(service, listed))
    )


async def _status(service: Service, model: ListedModel) -> str:
    """available: every route works; degraded: some have open circuits; unavailable: all."""
    states = [await service.circuits.state_of(r.key) for r in model.routes]
    open_count = sum(1 for s in states if s is CircuitState.OPEN)
    if open_count == 0:
        return "available" if all(s is CircuitState.CLOSED for s in states) else "degraded"
    return "unavailable" if open_count == len(states) else "degraded"
