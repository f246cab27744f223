"""The batches resource: submit a JSONL file of creates, follow it, read its results."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, StreamingResponse

from vidrouter.api.batch_body import parse_batch_body
from vidrouter.api.deps import BatchesDep, CurrentKey
from vidrouter.api.schemas import ERRORS, ERRORS_CREATE, ERRORS_ID, BatchList, BatchOut
from vidrouter.domain.batch import Batch
from vidrouter.store.batches import Progress
from vidrouter.usecases.batch_view import batch_object

router = APIRouter(prefix="/v1/batches", tags=["batches"])


def _shown(found: tuple[Batch, Progress]) -> dict[str, Any]:
    return batch_object(*found)


_CREATE_BODY = {
    "requestBody": {
        "required": True,
        "description": "JSON `lines` (described here); or the JSONL file itself as "
        "`multipart/form-data` (`file`, optional `webhook_url` and `metadata` as JSON text) or "
        "as the body (`Content-Type: application/jsonl`). A bad line is a 400 whose param is "
        "`lines[N].field`, N counting lines from 1; nothing is created then (docs/api.md).",
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
}


@router.post(
    "",
    status_code=202,
    response_model=None,
    responses={202: {"model": BatchOut}, **ERRORS_CREATE},
    openapi_extra=_CREATE_BODY,
)
async def create_batch(request: Request, batches: BatchesDep, key: CurrentKey) -> JSONResponse:
    body = parse_batch_body(request.headers.get("content-type", ""), await request.body())
    batch = await batches.submit(
        key, body.lines, webhook_url=body.webhook_url, metadata=body.metadata
    )
    return JSONResponse(
        _shown(await batches.get(key.account_id, batch.id)),
        status_code=202,
        headers={"Location": f"/v1/batches/{batch.id}"},
    )


@router.get("", response_model=None, responses={200: {"model": BatchList}, **ERRORS})
async def list_batches(
    batches: BatchesDep,
    key: CurrentKey,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    after: Annotated[str | None, Query(max_length=64)] = None,
) -> JSONResponse:
    page = await batches.list(key.account_id, limit=limit, after=after)
    data = [_shown((b, await batches.store.progress(b.id))) for b in page.data]
    return JSONResponse({"object": "list", "data": data, "has_more": page.has_more})


@router.get("/{batch_id}", response_model=None, responses={200: {"model": BatchOut}, **ERRORS_ID})
async def get_batch(batch_id: str, batches: BatchesDep, key: CurrentKey) -> JSONResponse:
    return JSONResponse(_shown(await batches.get(key.account_id, batch_id)))


@router.get(
    "/{batch_id}/results",
    response_model=None,
    responses={200: {"content": {"application/jsonl": {}}}, **ERRORS_ID},
)
async def batch_results(batch_id: str, batches: BatchesDep, key: CurrentKey) -> StreamingResponse:
    lines = await batches.results(key.account_id, batch_id)

    async def jsonl() -> AsyncIterator[bytes]:
        async for line in lines:
            yield json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"

    return StreamingResponse(jsonl(), media_type="application/jsonl")


@router.post(
    "/{batch_id}/cancel",
    response_model=None,
    responses={200: {"model": BatchOut}, 409: ERRORS_CREATE[400], **ERRORS_ID},
)
async def cancel_batch(batch_id: str, batches: BatchesDep, key: CurrentKey) -> JSONResponse:
    return JSONResponse(_shown(await batches.cancel(key.account_id, batch_id)))
