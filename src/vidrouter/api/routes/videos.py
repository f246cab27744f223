"""OpenAI's Videos API at /v1/videos, over our generations: a client written for OpenAI's
`client.videos.*` works by changing only its base URL and key.

A video is a generation (the same id, visible through both APIs); every create goes through
the rules of POST /v1/generations. The wire format is translated in `openai_videos_map`.
Errors keep our shape, which is OpenAI's: `{"error": {"message", "type", "param", "code"}}`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from vidrouter.api import openai_video_ops as ops
from vidrouter.api import openai_videos_forms as forms
from vidrouter.api import openai_videos_map as wire
from vidrouter.api.body import parse_json
from vidrouter.api.deps import (
    CatalogDep,
    ContentDep,
    CurrentKey,
    GenerationsDep,
    IdempotencyKey,
    PresenterDep,
)
from vidrouter.api.routes.content import ensure_preview, serve_blob
from vidrouter.api.schemas import (
    ERRORS,
    ERRORS_CREATE,
    ERRORS_ID,
    Cost,
    ErrorOut,
)
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound, RequestError
from vidrouter.domain.generation import Generation, Status
from vidrouter.usecases.generations import Generations

router = APIRouter(prefix="/v1/videos", tags=["openai-compatible videos"])


class UnsupportedMediaType(InvalidRequest):
    status_code = 415


# --- the OpenAPI document (handlers build the JSON in `openai_videos_map`) ---------------


class VideoErrorOut(BaseModel):
    code: str = Field(examples=["provider_error"])
    message: str


# The controls are written in from their declaration (api/openapi.py).
class VideoOut(BaseModel):
    """OpenAI's Video object; `id` is the generation id, shared with /v1/generations. The
    controls are vidrouter's extension, as on a Generation."""

    id: str = Field(examples=["gen_7HqXb2cV9kLmN3pQrS4tUvW8"])
    object: Literal["video"] = "video"
    model: str
    status: Literal["queued", "in_progress", "completed", "failed"]
    progress: int = Field(ge=0, le=100)
    created_at: int = Field(description="Unix seconds.")
    completed_at: int | None = Field(description="Unix seconds, once finished.")
    expires_at: int | None = Field(description="Always null: stored videos do not expire.")
    seconds: str = Field(
        examples=["8"], description="Its length; an extension's is the whole video's."
    )
    size: str = Field(examples=["1280x720"])
    error: VideoErrorOut | None = Field(
        description="Set when failed; code `canceled` for a canceled generation."
    )
    remixed_from_video_id: str | None = Field(
        description="The video it remixes (POST /v1/videos/{video_id}/remix), else null."
    )
    prompt: str
    estimated_cost: Cost | None = Field(
        description="vidrouter's extension: requested seconds x the price it would be billed "
        "at, from creation (USD)."
    )
    cost: Cost | None = Field(
        description="vidrouter's extension: what it cost, once completed (USD)."
    )


class VideoListOut(BaseModel):
    object: Literal["list"] = "list"
    data: list[VideoOut]
    first_id: str | None
    last_id: str | None
    has_more: bool


class VideoDeletedOut(BaseModel):
    id: str
    object: Literal["video.deleted"] = "video.deleted"
    deleted: Literal[True] = True


# The bodies' schemas follow from the create request's declaration, per model listed
# (api/openapi_requests.py fills them in).
_CREATE_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {}}, "multipart/form-data": {"schema": {}}},
    }
}


@router.post(
    "",
    response_model=None,
    responses={200: {"model": VideoOut}, 415: {"model": ErrorOut}, **ERRORS_CREATE},
    openapi_extra=_CREATE_BODY,
)
async def create_video(
    request: Request,
    generations: GenerationsDep,
    catalog: CatalogDep,
    key: CurrentKey,
    idempotency_key: IdempotencyKey,
) -> JSONResponse:
    """Create a video (JSON, or multipart/form-data with an `input_reference` file)."""
    req = await _video_request(request)
    named = catalog.find(req.model) if isinstance(req.model, str) else None
    body = wire.create_body(
        req, catalog.listed() if req.model is None else [named] if named else []
    )
    given = ops.with_characters(body, req.values.get("characters"))
    try:
        checked = generations.check(body)
    except InvalidRequest as exc:
        raise _characters_named(wire.rename_error(exc, req), given) from None
    try:
        g = await generations.create(key, checked, idempotency_key=idempotency_key)
    except (InvalidRequest, NotFound) as exc:  # a character that is not the account's
        raise _characters_named(exc, given) from None
    return JSONResponse(wire.video_object(g))


def _characters_named(exc: RequestError, given: int | None) -> RequestError:
    """`exc` naming `characters[i]` where our rules named the reference it became."""
    return ops.renamed(exc, ops.character_param(exc.param, given))


@router.get("", response_model=None, responses={200: {"model": VideoListOut}, **ERRORS})
async def list_videos(
    generations: GenerationsDep,
    key: CurrentKey,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    after: Annotated[str | None, Query(max_length=64)] = None,
    order: Literal["asc", "desc"] = "desc",
) -> JSONResponse:
    page = await generations.list(
        key.account_id, limit=limit, after=after, oldest_first=order == "asc"
    )
    return JSONResponse(wire.list_object(page.data, page.has_more))


@router.get("/{video_id}", response_model=None, responses={200: {"model": VideoOut}, **ERRORS_ID})
async def retrieve_video(
    video_id: str, generations: GenerationsDep, present: PresenterDep, key: CurrentKey
) -> Response:
    g = await _owned(generations, key.account_id, video_id)
    # The same bytes as the poll fast path's (api/fastpath.py).
    return Response(present.video_json(g), media_type="application/json")


@router.delete(
    "/{video_id}",
    response_model=None,
    responses={200: {"model": VideoDeletedOut}, **ERRORS_ID},
)
async def delete_video(video_id: str, generations: GenerationsDep, key: CurrentKey) -> JSONResponse:
    """Delete the video and its stored MP4; an unfinished one is canceled first."""
    try:
        removed = await generations.delete(key.account_id, video_id)
    except NotFound:
        raise NotFound.for_id("video", video_id) from None
    return JSONResponse(wire.deleted_object(removed.id))


@router.get(
    "/{video_id}/content",
    response_model=None,
    responses={
        200: {
            "description": "The MP4 (H.264); with `variant=thumbnail` the poster (WebP), with "
            "`variant=spritesheet` the sprite sheet (JPEG, 5 x 2 frames). Authenticated, "
            "unlike the signed `video_url` and `thumbnail_url`.",
            "content": {
                media: {"schema": {"type": "string", "format": "binary"}}
                for media in ("video/mp4", "image/webp", "image/jpeg")
            },
        },
        409: {"model": ErrorOut, "description": "The video is not ready, or failed"},
        **ERRORS_ID,
    },
)
async def download_video_content(
    video_id: str,
    request: Request,
    generations: GenerationsDep,
    host: ContentDep,
    key: CurrentKey,
    variant: Literal["video", "thumbnail", "spritesheet"] = "video",
) -> Response:
    g = await _owned(generations, key.account_id, video_id)
    if g.status is not Status.COMPLETED:
        # 409: the request is right, the video's state is not (yet); see docs/api.md.
        shown = wire.video_object(g)["status"]
        if g.status.terminal:
            raise Conflict(
                f"video {g.id} has no content: it {shown}", code="video_failed", param="video_id"
            )
        raise Conflict(
            f"video {g.id} is not ready yet (status {shown}); poll GET /v1/videos/{g.id} "
            "until its status is completed",
            code="video_not_ready",
            param="video_id",
        )
    if g.video_key is None:
        raise NotFound("the video's content no longer exists", code="content_not_found")
    if variant == "video":
        return await serve_blob(request, host.storage, g.video_key, media_type="video/mp4")
    preview = await ensure_preview(host.previews, g.video_key, variant)
    return await serve_blob(request, host.storage, preview)


async def _video_request(request: Request) -> wire.VideoRequest:
    content_type = request.headers.get("content-type", "")
    media = content_type.split(";", 1)[0].strip().lower()
    raw = await request.body()
    if media == "multipart/form-data":
        return wire.from_form(forms.parse_multipart(content_type, raw))
    if media == "application/x-www-form-urlencoded":
        return wire.from_form(forms.parse_urlencoded(raw))
    if media in ("", "application/json") or media.endswith("+json"):
        return wire.from_json(parse_json(raw))
    raise UnsupportedMediaType(
        f"unsupported Content-Type {media[:80]!r}; send application/json or multipart/form-data",
        code="unsupported_media_type",
    )


async def _owned(generations: Generations, account_id: str, video_id: str) -> Generation:
    try:
        return await generations.get(account_id, video_id)
    except NotFound:
        raise NotFound.for_id("video", video_id) from None
