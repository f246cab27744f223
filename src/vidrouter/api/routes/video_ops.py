"""OpenAI's video operations at /v1/videos: remix, edits and extensions, each a new
generation made from a source video through the rules of POST /v1/generations (the
mapping is `openai_video_ops`). The source is a completed video of the same account
(another's is a 404, an unfinished one a 409) or, for edits and extensions, an MP4
uploaded with the request (multipart), held to the model's size and length limits.

The OpenAPI document describes the JSON bodies (`prompt` and `seconds` filled in by
`api/openapi.py`); the multipart form is described in docs/openai-compatibility.md, since
whether an uploaded file is taken depends on its content, which no schema can say, and so
are `model` and `size`, whose acceptance depends on the source's model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from vidrouter.api import openai_video_ops as ops
from vidrouter.api import openai_videos_map as wire
from vidrouter.api.body import parse_json
from vidrouter.api.deps import CatalogDep, CurrentKey, GenerationsDep, IdempotencyKey
from vidrouter.api.errors import error_response
from vidrouter.api.routes.videos import UnsupportedMediaType, VideoOut
from vidrouter.api.schemas import ERRORS_CREATE, ERRORS_ID, ErrorOut
from vidrouter.api.uploads import is_multipart, upload_form
from vidrouter.domain.create_request import CreateRequest
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound, RequestError
from vidrouter.domain.generation import Generation, Status
from vidrouter.domain.inputs import VIDEO_EXTEND, VIDEO_TO_VIDEO
from vidrouter.store.keys import ApiKey
from vidrouter.usecases.generations import Generations
from vidrouter.usecases.models import ModelCatalog

router = APIRouter(prefix="/v1/videos", tags=["openai-compatible videos"])

_BY_ID: dict[str, Any] = {
    "type": "object",
    "required": ["id"],
    "additionalProperties": False,
    "properties": {"id": {"type": "string", "examples": ["gen_7HqXb2cV9kLmN3pQrS4tUvW8"]}},
}


def _json_body(**properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON request body of these required properties (`prompt` and `seconds` are
    described from the server's settings and models in api/openapi.py)."""
    schema = {
        "type": "object",
        "required": list(properties),
        "additionalProperties": False,
        "properties": properties,
    }
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": VideoOut},
    409: {"model": ErrorOut, "description": "The source video is not completed"},
    413: {"model": ErrorOut, "description": "The upload exceeds the server's limit"},
    415: {"model": ErrorOut},
    **ERRORS_CREATE,
    **ERRORS_ID,
}
# These paths (and /v1/videos/characters) fall inside /v1/videos/{video_id}: another method
# is not a read or delete of a video called `edits`, but a 405 naming the one they take.
NOT_POST = ["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]


@router.post(
    "/{video_id}/remix",
    response_model=None,
    responses=_RESPONSES,
    openapi_extra=_json_body(prompt={}),
)
async def remix_video(
    video_id: str,
    request: Request,
    generations: GenerationsDep,
    key: CurrentKey,
    idempotency_key: IdempotencyKey,
) -> JSONResponse:
    """A new video of the same model from a completed one (video-to-video), with a new
    prompt; it shows `remixed_from_video_id`."""
    if not _is_json(request):
        raise _unsupported(request, "application/json")
    op = ops.op_from_json(parse_json(await request.body()), VIDEO_TO_VIDEO, remix_of=video_id)
    source = await _completed(generations, key.account_id, video_id, "video_id")
    body = ops.op_body(op, source, [])
    return await _create(generations, key, op, body, idempotency_key)


@router.post(
    "/edits",
    response_model=None,
    responses=_RESPONSES,
    openapi_extra=_json_body(prompt={}, video=_BY_ID),
)
async def edit_video(
    request: Request,
    generations: GenerationsDep,
    catalog: CatalogDep,
    key: CurrentKey,
    idempotency_key: IdempotencyKey,
) -> JSONResponse:
    """A video-to-video edit of a completed video (JSON `video: {id}`) or of an uploaded
    MP4 (multipart `video` file)."""
    return await _operate(request, generations, catalog, key, VIDEO_TO_VIDEO, idempotency_key)


@router.post(
    "/extensions",
    response_model=None,
    responses=_RESPONSES,
    openapi_extra=_json_body(prompt={}, seconds={}, video=_BY_ID),
)
async def extend_video(
    request: Request,
    generations: GenerationsDep,
    catalog: CatalogDep,
    key: CurrentKey,
    idempotency_key: IdempotencyKey,
) -> JSONResponse:
    """`seconds` more of a completed video (or of an uploaded MP4): the result is the whole
    video, and its `seconds` the joined total."""
    return await _operate(request, generations, catalog, key, VIDEO_EXTEND, idempotency_key)


@router.api_route("/edits", methods=NOT_POST, include_in_schema=False)
@router.api_route("/extensions", methods=NOT_POST, include_in_schema=False)
async def post_only(request: Request) -> JSONResponse:
    message = f"method {request.method[:20]} not allowed here; allowed: POST"
    return error_response(405, "method_not_allowed", message, headers={"Allow": "POST"})


async def _operate(
    request: Request,
    generations: Generations,
    catalog: ModelCatalog,
    key: ApiKey,
    kind: str,
    idempotency_key: str | None,
) -> JSONResponse:
    if is_multipart(request):
        async with upload_form(request, file_field="video") as form:
            op = ops.op_from_form(form.fields, kind, uploaded=form.file is not None)
            if form.file is None:
                return await _by_id(generations, catalog, key, op, idempotency_key)
            body = ops.op_body(op, None, catalog.listed())
            checked = _checked(generations, op, body)
            try:
                g = await generations.create_from_upload(
                    key,
                    replace(checked, video=None),
                    form.file,
                    form.filename,
                    idempotency_key=idempotency_key,
                )
            except (InvalidRequest, NotFound, Conflict) as exc:
                raise ops.rename_op_error(exc, op) from None
            return JSONResponse(wire.video_object(g))
    if not _is_json(request):
        raise _unsupported(request, "application/json or multipart/form-data")
    op = ops.op_from_json(parse_json(await request.body()), kind)
    return await _by_id(generations, catalog, key, op, idempotency_key)


async def _by_id(
    generations: Generations,
    catalog: ModelCatalog,
    key: ApiKey,
    op: ops.VideoOp,
    idempotency_key: str | None,
) -> JSONResponse:
    assert op.video_id is not None
    source = await _completed(generations, key.account_id, op.video_id, "video.id")
    body = ops.op_body(op, source, catalog.listed())
    return await _create(generations, key, op, body, idempotency_key)


async def _create(
    generations: Generations,
    key: ApiKey,
    op: ops.VideoOp,
    body: dict[str, object],
    idempotency_key: str | None,
) -> JSONResponse:
    checked = _checked(generations, op, body)
    if op.remix and checked.video is not None:
        checked = replace(checked, video=replace(checked.video, remix=True))
    try:
        g = await generations.create(key, checked, idempotency_key=idempotency_key)
    except (InvalidRequest, NotFound, Conflict) as exc:
        raise ops.rename_op_error(exc, op) from None
    return JSONResponse(wire.video_object(g))


def _checked(generations: Generations, op: ops.VideoOp, body: dict[str, object]) -> CreateRequest:
    try:
        return generations.check(body)
    except InvalidRequest as exc:
        raise ops.rename_op_error(exc, op) from None


async def _completed(
    generations: Generations, account_id: str, video_id: str, param: str
) -> Generation:
    """The source: the account's (else 404), completed (else 409)."""
    try:
        source = await generations.get(account_id, video_id)
    except NotFound:
        raise NotFound.for_id("video", video_id, param=param) from None
    if source.status is not Status.COMPLETED or source.video_key is None:
        shown = wire.video_object(source)["status"]
        raise Conflict(
            f"video {source.id} is {shown}; only a completed video can be a source",
            code="video_not_ready",
            param=param,
        )
    return source


def _is_json(request: Request) -> bool:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media in ("", "application/json") or media.endswith("+json")


def _unsupported(request: Request, wanted: str) -> RequestError:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return UnsupportedMediaType(
        f"unsupported Content-Type {media[:80]!r}; send {wanted}", code="unsupported_media_type"
    )
