"""GET /v1/models and GET /v1/models/{model_id}."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from vidrouter.api.deps import CurrentKey, ServiceDep
from vidrouter.api.schemas import ERRORS, ModelList, ModelOut
from vidrouter.domain.errors import NotFound
from vidrouter.domain.representation import model_object

router = APIRouter(prefix="/v1/models", tags=["models"])


@router.get("", response_model=None, responses={200: {"model": ModelList}, **ERRORS})
async def list_models(service: ServiceDep, _key: CurrentKey) -> JSONResponse:
    listed = service.catalog.listed(service.providers.usable)
    return JSONResponse(
        {"object": "list", "data": [model_object(m, with_object=False) for m in listed]}
    )


@router.get("/{model_id}", response_model=None, responses={200: {"model": ModelOut}, **ERRORS})
async def get_model(model_id: str, service: ServiceDep, _key: CurrentKey) -> JSONResponse:
    listed = service.catalog.find_listed(model_id, service.providers.usable)
    if listed is None:
        raise NotFound(
            f"no model with id {model_id[:100]!r}", code="model_not_found", param="model_id"
        )
    return JSONResponse(model_object(listed, with_object=True))
