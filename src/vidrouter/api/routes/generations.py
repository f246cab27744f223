"""The generations resource: create, retrieve, list, cancel."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from vidrouter.api import actions
from vidrouter.api.body import json_body
from vidrouter.api.deps import CurrentKey, ServiceDep
from vidrouter.api.presenter import present
from vidrouter.api.schemas import (
    ERRORS,
    ERRORS_CREATE,
    ERRORS_ID,
    GenerationCreate,
    GenerationList,
    GenerationOut,
)
from vidrouter.domain.generation import Status

router = APIRouter(prefix="/v1/generations", tags=["generations"])

_CREATE_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": GenerationCreate.model_json_schema()}},
    }
}


@router.post(
    "",
    status_code=202,
    response_model=None,
    responses={202: {"model": GenerationOut}, **ERRORS_CREATE},
    openapi_extra=_CREATE_BODY,
)
async def create_generation(request: Request, service: ServiceDep, key: CurrentKey) -> JSONResponse:
    body = await json_body(request)
    idempotency_key = actions.check_idempotency_key(request.headers.get("idempotency-key"))
    req = actions.check_create(service, body)
    await actions.ensure_servable(service, req.model, req.routing)
    await service.limiter.check_concurrency(key)
    g = await actions.accept(
        service,
        key,
        req,
        idempotency_key=idempotency_key,
        fingerprint=actions.request_fingerprint(body),
    )
    return JSONResponse(
        present(service, g), status_code=202, headers={"Location": f"/v1/generations/{g.id}"}
    )


@router.get("", response_model=None, responses={200: {"model": GenerationList}, **ERRORS})
async def list_generations(
    service: ServiceDep,
    key: CurrentKey,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    after: Annotated[str | None, Query(max_length=64)] = None,
    status: Status | None = None,
    model: Annotated[str | None, Query(max_length=200)] = None,
) -> JSONResponse:
    page = await service.generations.page(
        key.account_id,
        limit=limit,
        after=after,
        status=status.value if status else None,
        model=model,
    )
    return JSONResponse(
        {
            "object": "list",
            "data": [present(service, g) for g in page.data],
            "has_more": page.has_more,
        }
    )


@router.get(
    "/{generation_id}", response_model=None, responses={200: {"model": GenerationOut}, **ERRORS_ID}
)
async def get_generation(generation_id: str, service: ServiceDep, key: CurrentKey) -> JSONResponse:
    g = await actions.owned(service, key.account_id, generation_id, for_display=True)
    return JSONResponse(present(service, g))


@router.post(
    "/{generation_id}/cancel",
    response_model=None,
    responses={200: {"model": GenerationOut}, 409: ERRORS_CREATE[400], **ERRORS_ID},
)
async def cancel_generation(
    generation_id: str, service: ServiceDep, key: CurrentKey
) -> JSONResponse:
    g = await actions.owned(service, key.account_id, generation_id)
    canceled = await actions.cancel(service, g)
    return JSONResponse(present(service, canceled))
