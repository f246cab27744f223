"""The generations resource: create, retrieve, list, cancel."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from vidrouter.api.body import json_body
from vidrouter.api.deps import CurrentKey, GenerationsDep, PresenterDep
from vidrouter.api.schemas import (
    ERRORS,
    ERRORS_CREATE,
    ERRORS_ID,
    GenerationList,
    GenerationOut,
)
from vidrouter.domain.generation import Status
from vidrouter.usecases.generations import check_idempotency_key

router = APIRouter(prefix="/v1/generations", tags=["generations"])

# The body's schema is the declaration's (api/openapi_requests.py fills it in).
_CREATE_BODY = {"requestBody": {"required": True, "content": {"application/json": {"schema": {}}}}}


@router.post(
    "",
    status_code=202,
    response_model=None,
    responses={202: {"model": GenerationOut}, **ERRORS_CREATE},
    openapi_extra=_CREATE_BODY,
)
async def create_generation(
    request: Request, generations: GenerationsDep, present: PresenterDep, key: CurrentKey
) -> JSONResponse:
    body = await json_body(request)
    idempotency_key = check_idempotency_key(request.headers.get("idempotency-key"))
    g = await generations.create(key, generations.check(body), idempotency_key=idempotency_key)
    return JSONResponse(
        present(g), status_code=202, headers={"Location": f"/v1/generations/{g.id}"}
    )


@router.get("", response_model=None, responses={200: {"model": GenerationList}, **ERRORS})
async def list_generations(
    generations: GenerationsDep,
    present: PresenterDep,
    key: CurrentKey,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    after: Annotated[str | None, Query(max_length=64)] = None,
    status: Status | None = None,
    model: Annotated[str | None, Query(max_length=200)] = None,
) -> JSONResponse:
    page = await generations.list(
        key.account_id, limit=limit, after=after, status=status, model=model
    )
    return JSONResponse(
        {"object": "list", "data": [present(g) for g in page.data], "has_more": page.has_more}
    )


@router.get(
    "/{generation_id}", response_model=None, responses={200: {"model": GenerationOut}, **ERRORS_ID}
)
async def get_generation(
    generation_id: str, generations: GenerationsDep, present: PresenterDep, key: CurrentKey
) -> Response:
    g = await generations.get(key.account_id, generation_id, for_display=True)
    # The same bytes as the poll fast path's (api/fastpath.py).
    return Response(present.generation_json(g), media_type="application/json")


@router.post(
    "/{generation_id}/cancel",
    response_model=None,
    responses={200: {"model": GenerationOut}, 409: ERRORS_CREATE[400], **ERRORS_ID},
)
async def cancel_generation(
    generation_id: str, generations: GenerationsDep, present: PresenterDep, key: CurrentKey
) -> JSONResponse:
    return JSONResponse(present(await generations.cancel(key.account_id, generation_id)))
