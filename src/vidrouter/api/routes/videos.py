"""OpenAI's Videos API at /v1/videos, over our generations: a client written for OpenAI's
`client.videos.*` works by changing only its base URL and key.

A video is a generation (the same id, visible through both APIs); every create goes through
the rules of POST /v1/generations. The wire format is translated in `openai_videos_map`.
Errors keep our shape, which is OpenAI's: `{"error": {"message", "type", "param", "code"}}`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from vidrouter.api import openai_videos_forms as forms
from vidrouter.api import openai_videos_map as wire
from vidrouter.api.body import parse_json
from vidrouter.api.deps import CatalogDep, CurrentKey, GenerationsDep, StorageDep
from vidrouter.api.routes.content import serve_blob
from vidrouter.api.schemas import (
    ERRORS,
    ERRORS_CREATE,
    ERRORS_ID,
    ControlsIn,
    ControlsOut,
    Cost,
    ErrorOut,
)
from vidrouter.domain.errors import Conflict, InvalidRequest, NotFound
from vidrouter.domain.generation import Generation, Status
from vidrouter.usecases.generations import Generations

router = APIRouter(prefix="/v1/videos", tags=["openai-compatible videos"])


class UnsupportedMediaType(InvalidRequest):
    status_code = 415


# --- the OpenAPI document (handlers build the JSON in `openai_videos_map`) ---------------


class VideoErrorOut(BaseModel):
    code: str = Field(examples=["provider_error"])
    message: str


class VideoOut(ControlsOut):
    """OpenAI's Video object; `id` is the generation id, shared with /v1/generations. The
    controls (inherited) are vidrouter's extension, as on a Generation."""

    id: str = Field(examples=["gen_7HqXb2cV9kLmN3pQrS4tUvW8"])
    object: Literal["video"] = "video"
    model: str
    status: Literal["queued", "in_progress", "completed", "failed"]
    progress: int = Field(ge=0, le=100)
    created_at: int = Field(description="Unix seconds.")
    completed_at: int | None = Field(description="Unix seconds, once finished.")
    expires_at: int | None = Field(description="Always null: stored videos do not expire.")
    seconds: str = Field(examples=["8"])
    size: str = Field(examples=["1280x720"])
    error: VideoErrorOut | None = Field(
        description="Set when failed; code `canceled` for a canceled generation."
    )
    remixed_from_video_id: None = None
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


class VideoCreateJson(ControlsIn):
    """OpenAI's create request; the controls (inherited) are vidrouter's extension."""

    model: str | None = Field(
        default=None, description="Any id from GET /v1/models; default: the first listed model."
    )
    prompt: str
    seconds: str | None = Field(default=None, examples=["4", "8", "12"])
    size: str | None = Field(default=None, examples=["1280x720", "720x1280", "720x720"])
    input_reference: dict[str, str] | None = Field(
        default=None,
        description='{"image_url": "<http(s) URL or data: URI of a PNG or JPEG>"}',
    )


def _create_request_body() -> dict[str, Any]:
    """`openapi_extra` for POST /v1/videos: JSON and multipart (what the SDK sends)."""
    form = VideoCreateJson.model_json_schema()
    form = {
        "type": "object",
        "required": ["prompt"],
        "properties": {
            **{k: v for k, v in form["properties"].items() if k != "input_reference"},
            "input_reference": {"type": "string", "format": "binary"},
        },
    }
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": VideoCreateJson.model_json_schema()},
                "multipart/form-data": {"schema": form},
            },
        }
    }


@router.post(
    "",
    response_model=None,
    responses={200: {"model": VideoOut}, 415: {"model": ErrorOut}, **ERRORS_CREATE},
    openapi_extra=_create_request_body(),
)
async def create_video(
    request: Request, generations: GenerationsDep, catalog: CatalogDep, key: CurrentKey
) -> JSONResponse:
    """Create a video (JSON, or multipart/form-data with an `input_reference` file)."""
    req = await _video_request(request)
    named = catalog.find(req.model) if isinstance(req.model, str) else None
    body = wire.create_body(
        req, catalog.listed() if req.model is None else [named] if named else []
    )
    try:
        checked = generations.check(body)
    except InvalidRequest as exc:
        raise wire.rename_error(exc, req) from None
    g = await generations.create(key, checked)
    return JSONResponse(wire.video_object(g))


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
    video_id: str, generations: GenerationsDep, key: CurrentKey
) -> JSONResponse:
    g = await _owned(generations, key.account_id, video_id)
    return JSONResponse(wire.video_object(g))


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
        raise _not_found(video_id) from None
    return JSONResponse(wire.deleted_object(removed.id))


@router.get(
    "/{video_id}/content",
    response_model=None,
    responses={
        200: {
            "description": "The MP4 (H.264). Authenticated, unlike the signed `video_url`.",
            "content": {"video/mp4": {"schema": {"type": "string", "format": "binary"}}},
        },
        400: {"model": ErrorOut},
        409: {"model": ErrorOut, "description": "The video is not ready, or failed"},
        **ERRORS_ID,
    },
)
async def download_video_content(
    video_id: str,
    request: Request,
    generations: GenerationsDep,
    storage: StorageDep,
    key: CurrentKey,
    variant: Literal["video", "thumbnail", "spritesheet"] = "video",
) -> Response:
    g = await _owned(generations, key.account_id, video_id)
    if variant != "video":
        raise InvalidRequest(
            f"variant {variant!r} is not available here; only variant=video (the MP4)",
            code="variant_unsupported",
            param="variant",
        )
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
    return await serve_blob(request, storage, g.video_key, media_type="video/mp4")


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
        raise _not_found(video_id) from None


def _not_found(video_id: str) -> NotFound:
    return NotFound(f"no video with id {video_id[:64]!r}", code="video_not_found", param="video_id")
