"""The generations resource: create, retrieve, list, cancel."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

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
from vidrouter.domain import ids
from vidrouter.domain.catalog import ListedModel, ModelSpec
from vidrouter.domain.errors import Conflict, NotFound
from vidrouter.domain.generation import Generation, Status, Step
from vidrouter.domain.requests import RequestLimits, parse_create
from vidrouter.service import Service
from vidrouter.webhooks.outbox import deliveries_for

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

    def lookup(model_id: str) -> ListedModel | ModelSpec | None:
        listed = service.catalog.find_listed(model_id, service.providers.usable)
        return listed if listed is not None else service.catalog.get(model_id)

    limits = RequestLimits(
        max_prompt_chars=service.settings.max_prompt_chars,
        allow_private_webhook_urls=service.settings.allow_private_webhook_urls,
    )
    req = parse_create(body, lookup, limits)
    now = service.clock()
    g = Generation(
        id=ids.generation_id(),
        account_id=key.account_id,
        api_key_id=key.id,
        model=req.model.id,
        prompt=req.prompt,
        duration=req.duration,
        aspect_ratio=req.aspect_ratio,
        image_url=req.image_url,
        webhook_url=req.webhook_url,
        metadata=req.metadata,
        status=Status.QUEUED,
        step=Step.SUBMIT,
        created_at=now,
        updated_at=now,
        next_attempt_at=now,
    )
    await service.generations.insert(g)
    service.wake()
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


async def _owned(service: Service, key_account: str, generation_id: str) -> Generation:
    g = None
    if generation_id.startswith("gen_") and len(generation_id) <= 64:
        g = await service.generations.get(generation_id, account_id=key_account)
    if g is None:
        raise NotFound(
            f"no generation with id {generation_id[:64]!r}",
            code="generation_not_found",
            param="generation_id",
        )
    return g


@router.get(
    "/{generation_id}", response_model=None, responses={200: {"model": GenerationOut}, **ERRORS_ID}
)
async def get_generation(generation_id: str, service: ServiceDep, key: CurrentKey) -> JSONResponse:
    g = await _owned(service, key.account_id, generation_id)
    return JSONResponse(present(service, g))


@router.post(
    "/{generation_id}/cancel",
    response_model=None,
    responses={200: {"model": GenerationOut}, 409: ERRORS_CREATE[400], **ERRORS_ID},
)
async def cancel_generation(
    generation_id: str, service: ServiceDep, key: CurrentKey
) -> JSONResponse:
    g = await _owned(service, key.account_id, generation_id)
    now = service.clock()
    canceled = replace(
        g,
        status=Status.CANCELED,
        step=Step.DONE,
        completed_at=now,
        updated_at=now,
        next_attempt_at=None,
        lease_owner=None,
        lease_until=None,
    )
    if g.status.terminal or not await service.generations.cancel(
        canceled, deliveries=deliveries_for(canceled, None, now)
    ):
        raise Conflict(
            f"generation {g.id} has already finished ({g.status.value if g.status.terminal else 'just now'})",
            code="generation_not_cancelable",
        )
    if service.webhook_loop is not None:
        service.webhook_loop.wake()
    return JSONResponse(present(service, canceled))
