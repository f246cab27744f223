"""A fake of xAI's video REST API (Grok Imagine), written from docs.x.ai as the gateways'
adapters send it (xai-sdk itself speaks gRPC; sources in ../shared/providers/xai.md).

- `POST /v1/videos/generations` (text, first frame `image`, or `reference_images`),
  `POST /v1/videos/edits` (`video`) and `POST /v1/videos/extensions` (`video`, `duration`
  of the added part): 200 `{"request_id"}`. Every documented field is checked (types, the
  enums, 1-15 s, 1-10 s with references or for an extension, 1080p only on 1.5, one input
  mode per request); a field xAI does not document is refused (400), a field of the wrong
  type is a 422.
- `GET /v1/videos/{request_id}`: 200 in every state: `pending` (with `progress`) for
  `polls_to_finish` polls, then `done` with `video` and `usage.cost_in_usd_ticks`, or
  `failed` with `error`, or `expired`; an unknown id is a 404.
- `GET /vidgen/{request_id}.mp4`: the video (public, like vidgen.x.ai).
Errors are `{"code": "<gRPC status in words>", "error": "<message>"}`: no key 401, a wrong
key 400 "Incorrect API key provided" (xAI's own quirk), an empty team 429 with the
"used all available credits" message.

Knobs: `moderate_prompts_containing` (400 at create), `moderate_outputs_containing` (`done`
with `respect_moderation: false` and no URL), `fail_jobs_with` ((code, message)),
`expire_jobs`, `never_finish`, `out_of_credits` (with `credits_status` 429 or 403),
`polls_to_finish`.
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, Refused, has_credential, sample_mp4

GENERATIONS = "/v1/videos/generations"
EDITS = "/v1/videos/edits"
EXTENSIONS = "/v1/videos/extensions"
MODELS = {
    "grok-imagine-video": ("480p", "720p"),
    "grok-imagine-video-1.5": ("480p", "720p", "1080p"),
    "grok-imagine-video-1.5-preview": ("480p", "720p", "1080p"),
}
RATIOS = ("1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3")
SOURCE_SECONDS = 1  # the length of the sample it serves (and takes every input to have)
RATE_PER_SECOND = {"480p": 0.05, "720p": 0.07, "1080p": 0.25}  # grok-imagine-video, 1.5 at 1080p
# The documented fields of each path (docs.x.ai; xai-sdk 1.19 VideoGenerationRequest).
_COMMON = {"model", "prompt", "output", "user"}
FIELDS = {
    GENERATIONS: _COMMON
    | {"duration", "aspect_ratio", "resolution", "size", "image", "reference_images"}
    | {"reference_audios", "generate_audio"},
    EDITS: _COMMON | {"video"},
    EXTENSIONS: _COMMON | {"video", "duration"},
}
INVALID = "Client specified an invalid argument"
UNAUTHENTICATED = "The request does not have valid authentication credentials"
NO_PERMISSION = "The caller does not have permission to execute the specified operation"
NO_CREDITS = (
    "Your team 0b7c4a1e-team has either used all available credits or reached its monthly "
    "spending limit. To continue making API requests, please purchase more credits or raise "
    "your spending limit."
)


@dataclass
class FakeVideo:
    id: str
    path: str
    body: dict[str, Any]
    polls: int = 0
    status: str = "pending"


@dataclass
class XaiFake:
    api_key: str = "test-key"
    polls_to_finish: int = 2
    never_finish: bool = False
    moderate_prompts_containing: str | None = None
    moderate_outputs_containing: str | None = None
    fail_jobs_with: tuple[str, str] | None = None
    expire_jobs: bool = False
    out_of_credits: bool = False
    credits_status: int = 429  # the team's empty-credits answer comes as a 429 or a 403
    plan: FaultPlan = field(default_factory=FaultPlan)
    tasks: dict[str, FakeVideo] = field(default_factory=dict)
    submitted: list[dict[str, Any]] = field(default_factory=list)
    downloads: int = 0

    def app(self) -> FaultInjector:
        routes = [
            *(Route(path, self._create, methods=["POST"]) for path in FIELDS),
            Route("/v1/videos/{request_id}", self._get, methods=["GET"]),
            Route("/vidgen/{request_id}.mp4", self._video, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints ----------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        try:
            self._authorise(request)
            if request.headers.get("content-type", "").split(";")[0] != "application/json":
                raise Refused(415, INVALID, "Content-Type must be application/json")
            try:
                body = await request.json()
            except ValueError as exc:
                raise Refused(422, INVALID, "Failed to deserialize the JSON body") from exc
            _validate(request.url.path, body)
            if self.out_of_credits:
                raise Refused(self.credits_status, NO_PERMISSION, NO_CREDITS)
            word = self.moderate_prompts_containing
            if word and word in str(body.get("prompt", "")):
                raise Refused(400, INVALID, "Prompt rejected by content moderation")
        except Refused as refused:
            return _error(refused)
        video = FakeVideo(str(uuid.uuid4()), request.url.path, body)
        self.tasks[video.id] = video
        self.submitted.append(body)
        return JSONResponse({"request_id": video.id})

    async def _get(self, request: Request) -> Response:
        try:
            self._authorise(request)
        except Refused as refused:
            return _error(refused)
        video = self.tasks.get(request.path_params["request_id"])
        if video is None:
            return _error(Refused(404, "Some requested entity was not found", "not found"))
        self._advance(video)
        model = str(video.body.get("model", "grok-imagine-video"))
        if video.status == "pending":
            return JSONResponse({"status": "pending", "model": model, "progress": 40})
        if video.status == "expired":
            return JSONResponse({"status": "expired"})
        if video.status == "failed":
            code, message = self.fail_jobs_with or ("internal_error", "generation failed")
            return JSONResponse(
                {
                    "status": "failed",
                    "model": "",
                    "video": {"duration": 0, "respect_moderation": True},
                    "error": {"code": code, "message": message},
                }
            )
        seconds = _seconds(video)
        if self._moderated(video):
            done: dict[str, Any] = {"duration": seconds, "respect_moderation": False}
        else:
            url = f"{str(request.base_url).rstrip('/')}/vidgen/{video.id}.mp4"
            done = {"url": url, "duration": seconds, "respect_moderation": True}
        rate = RATE_PER_SECOND[str(video.body.get("resolution", "480p"))]
        ticks = round(seconds * rate * 10_000_000_000)
        answer = {"status": "done", "model": model, "progress": 100, "video": done}
        return JSONResponse({**answer, "usage": {"cost_in_usd_ticks": ticks}})

    async def _video(self, request: Request) -> Response:
        if request.path_params["request_id"] not in self.tasks:
            return Response(b"<Error><Code>NoSuchKey</Code></Error>", 404)
        self.downloads += 1
        video = self.tasks[request.path_params["request_id"]]
        # Every video it serves is the 1 s sample, but an extension's: longer than its input.
        whole = _seconds(video) if video.path == EXTENSIONS else SOURCE_SECONDS
        return Response(_sample(whole), media_type="video/mp4")

    # --- behaviour ----------------------------------------------------------------------

    def _authorise(self, request: Request) -> None:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer ") or not header[7:]:
            raise Refused(401, UNAUTHENTICATED, "No API key provided")
        if not has_credential(request, self.api_key):
            raise Refused(
                400,
                INVALID,
                "Incorrect API key provided: xa***ey. You can obtain an API key from "
                "https://console.x.ai.",
            )

    def _advance(self, video: FakeVideo) -> None:
        if video.status != "pending" or self.never_finish:
            return
        video.polls += 1
        if video.polls <= self.polls_to_finish:
            return
        if self.expire_jobs:
            video.status = "expired"
        elif self.fail_jobs_with is not None:
            video.status = "failed"
        else:
            video.status = "done"

    def _moderated(self, video: FakeVideo) -> bool:
        word = self.moderate_outputs_containing
        return bool(word) and str(word) in str(video.body.get("prompt", ""))


def _seconds(video: FakeVideo) -> int:
    """The length of the answer: an edit keeps its input's (the samples' 1 s), an extension
    is its input followed by the seconds it adds (xAI returns the whole video)."""
    if video.path == EDITS:
        return SOURCE_SECONDS
    if video.path == EXTENSIONS:
        return SOURCE_SECONDS + int(video.body.get("duration", 6))
    return int(video.body.get("duration", 8))


@functools.cache
def _sample(seconds: int) -> bytes:
    return sample_mp4(float(seconds))


# --- validation, as the REST reference and the SDK's limits describe it ----------------------


def _validate(path: str, body: Any) -> None:
    if not isinstance(body, dict):
        raise Refused(422, INVALID, "The request body must be a JSON object")
    unknown = sorted(set(body) - FIELDS[path])
    if unknown:
        raise Refused(400, INVALID, f"Unknown field(s): {', '.join(unknown)}")
    for name, kind in (("prompt", str), ("model", str), ("user", str)):
        if name in body and not isinstance(body[name], kind):
            raise Refused(422, INVALID, f"{name} must be a string")
    if not body.get("prompt"):
        raise Refused(400, INVALID, "prompt must not be empty")
    model = body.get("model", "grok-imagine-video")
    if model not in MODELS:
        raise Refused(404, "Some requested entity was not found", f"Model {model} not found")
    if path == GENERATIONS:
        _check_generation(body, MODELS[model])
    else:
        _check_source(body, path)


def _check_generation(body: dict[str, Any], resolutions: tuple[str, ...]) -> None:
    references = body.get("reference_images")
    if "image" in body and references is not None:
        raise Refused(400, INVALID, "image cannot be combined with reference_images")
    most = 10 if references is not None else 15
    _duration(body.get("duration", 8), 1, most)
    if body.get("aspect_ratio", "16:9") not in RATIOS:
        raise Refused(400, INVALID, f"aspect_ratio must be one of {', '.join(RATIOS)}")
    if body.get("resolution", "480p") not in resolutions:
        raise Refused(400, INVALID, f"resolution must be one of {', '.join(resolutions)}")
    if "generate_audio" in body and not isinstance(body["generate_audio"], bool):
        raise Refused(422, INVALID, "generate_audio must be a boolean")
    if "image" in body:
        _media(body["image"], "image")
    if references is not None:
        if not isinstance(references, list) or not 1 <= len(references) <= 7:
            raise Refused(400, INVALID, "reference_images takes 1 to 7 images")
        if body.get("resolution", "480p") not in ("480p", "720p"):
            raise Refused(400, INVALID, "reference-to-video supports 480p and 720p")
        for item in references:
            _media(item, "reference_images[]")


def _check_source(body: dict[str, Any], path: str) -> None:
    if "video" not in body:
        raise Refused(400, INVALID, "video is required")
    _media(body["video"], "video")
    if path == EXTENSIONS:
        _duration(body.get("duration", 6), 1, 10)


def _duration(value: object, least: int, most: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Refused(422, INVALID, "duration must be an integer")
    if not least <= value <= most:
        raise Refused(400, INVALID, f"duration must be between {least} and {most} seconds")


def _media(value: object, name: str) -> None:
    """`{"url": <https URL or data URI>}` or `{"file_id": ...}`."""
    if not isinstance(value, dict) or not (set(value) <= {"url", "file_id", "type"}):
        raise Refused(422, INVALID, f"{name} must be an object with url or file_id")
    url = value.get("url")
    if url is None and not isinstance(value.get("file_id"), str):
        raise Refused(422, INVALID, f"{name} needs url or file_id")
    if url is not None and (
        not isinstance(url, str) or not url.startswith(("https://", "http://", "data:"))
    ):
        raise Refused(400, INVALID, f"{name}.url must be a public URL or a data URI")


def _error(refused: Refused) -> JSONResponse:
    return JSONResponse({"code": refused.code, "error": refused.message}, refused.status)
