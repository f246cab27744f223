"""GET /v1/models and GET /v1/models/{model_id}.

A model's listed price is that of the route the default policy would choose now, breakers
included; the item also shows every usable route with its state and live stats
(docs/routing.md)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from vidrouter.api.deps import CatalogDep, CurrentKey
from vidrouter.api.schemas import ERRORS, ModelList, ModelOut
from vidrouter.domain.errors import NotFound
from vidrouter.domain.representation import model_object, route_object

router = APIRouter(prefix="/v1/models", tags=["models"])


@router.get("", response_model=None, responses={200: {"model": ModelList}, **ERRORS})
async def list_models(catalog: CatalogDep, _key: CurrentKey) -> JSONResponse:
    data = []
    for listed in catalog.listed():
        model = await catalog.priced_now(listed)
        data.append(model_object(model, with_object=False, status=await catalog.status(model)))
    return JSONResponse({"object": "list", "data": data})


@router.get("/{model_id}", response_model=None, responses={200: {"model": ModelOut}, **ERRORS})
async def get_model(model_id: str, catalog: CatalogDep, _key: CurrentKey) -> JSONResponse:
    listed = catalog.find(model_id)
    if listed is None:
        raise NotFound(
            f"no model with id {model_id[:100]!r}", code="model_not_found", param="model_id"
        )
    model = await catalog.priced_now(listed)
    body = model_object(model, with_object=True, status=await catalog.status(model))
    body["routes"] = [route_object(r.route, r.state, r.stats) for r in await catalog.routes(listed)]
    return JSONResponse(body)
