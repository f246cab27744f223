"""A fake of the LTX API (`api.ltx.video`), written from LTX's own OpenAPI document and its
docs (/work/shared/providers/ltx.md; no official Python SDK exists).

- `POST /v2/text-to-video`, `/v2/image-to-video`: Bearer key; the body is checked against the
  OpenAPI request schema (unknown fields refused) and the model matrix (resolution x fps x
  duration); 202 `{"id", "created_at"}`. Errors are the envelope `{"type": "error", "error":
  {"type", "message"}}`: 400 `invalid_request_error`, 401 `authentication_error`, 402
  `insufficient_funds_error` (`out_of_credits`), 422 `content_filtered_error` (a moderated
  prompt, `moderate_at_create`), 429 `concurrency_limit_error` with Retry-After (more than
  `max_concurrent` unfinished jobs).
- `GET /v2/{endpoint}/{id}` (the segment that created it): `pending` on the first poll,
  `processing` for `polls_to_finish` polls, then `completed` with `result.video_url`, or
  `failed` with `error`; 404 `not_found_error` for an unknown id, another segment, or a job
  `expire()`d (LTX keeps jobs 24 hours).
- `POST /v2/retake`, `/v2/extend` (2.3-pro): a source `video_uri` (an https URL of a domain
  or an MP4 data URI within 15 MB) and their own fields; an extension's video is the input
  (the 1 s samples) followed by the seconds added.
- `POST /v1/text-to-video`, `/v1/image-to-video`: the synchronous twins, answering the MP4.
- `GET /cdn/{id}.mp4`: the video, without a key; 404 once the job expired.
Every answer carries `x-request-id`.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, has_credential, is_png_or_jpeg, sample_mp4

T2V_FIELDS = {"prompt", "model", "duration", "resolution", "fps", "generate_audio", "camera_motion"}
I2V_FIELDS = T2V_FIELDS | {"image_uri", "last_frame_uri"}
REQUIRED = {"prompt", "model", "duration", "resolution"}
# Retake and extend (LTX's OpenAPI): a source video, 2.3-pro (and the deprecated 2-pro) only.
RETAKE_FIELDS = {"video_uri", "start_time", "duration", "prompt", "mode", "resolution", "model"}
EXTEND_FIELDS = {"video_uri", "duration", "prompt", "mode", "model", "context"}
SOURCE_MODELS = ("ltx-2-pro", "ltx-2-3-pro")
RETAKE_MODES = ("replace_audio", "replace_video", "replace_audio_and_video")
MAX_INLINE_VIDEO = 15 * 1024 * 1024
CAMERA_MOTIONS = {
    "dolly_in",
    "dolly_out",
    "dolly_left",
    "dolly_right",
    "jib_up",
    "jib_down",
    "static",
    "focus_shift",
}
LAST_FRAME_MODELS = {"ltx-2-3-fast", "ltx-2-3-pro"}  # per the OpenAPI (2.5: unconfirmed)
MAX_INLINE_IMAGE = 7 * 1024 * 1024
EVEN_6_20 = tuple(range(6, 21, 2))


def _sizes(*heights: int) -> set[str]:
    widths = {720: 1280, 1080: 1920, 1440: 2560, 2160: 3840}
    return {f"{widths[h]}x{h}" for h in heights} | {f"{h}x{widths[h]}" for h in heights}


@dataclass(frozen=True)
class Matrix:
    """What one model makes: each size, its fps and durations."""

    rows: tuple[tuple[frozenset[str], frozenset[int], frozenset[int]], ...]

    def allows(self, resolution: str, fps: int, duration: int) -> bool:
        return any(resolution in s and fps in f and duration in d for s, f, d in self.rows)


def _row(sizes: set[str], fps: tuple[int, ...], durations: tuple[int, ...]) -> Any:
    return (frozenset(sizes), frozenset(fps), frozenset(durations))


ALL_FPS = (24, 25, 48, 50)
MODELS: dict[str, Matrix] = {
    # LTX-2 (deprecated): the official matrix (docs.ltx.video/models)
    "ltx-2-fast": Matrix(
        (
            _row(_sizes(1080), (25,), EVEN_6_20),
            _row(_sizes(1080), (50,), (6, 8, 10)),
            _row(_sizes(1440, 2160), (25, 50), (6, 8, 10)),
        )
    ),
    "ltx-2-pro": Matrix((_row(_sizes(1080, 1440, 2160), (25, 50), (6, 8, 10)),)),
    # LTX-2.3 / 2.5: gateways' tables and the price lists (unconfirmed in detail)
    "ltx-2-3-fast": Matrix(
        (
            _row(_sizes(720, 1080), (24, 25), EVEN_6_20),
            _row(_sizes(720, 1080, 1440, 2160), ALL_FPS, (6, 8, 10)),
        )
    ),
    "ltx-2-3-pro": Matrix((_row(_sizes(720, 1080, 1440, 2160), ALL_FPS, (6, 8, 10)),)),
    "ltx-2-5-fast": Matrix(
        (
            _row(_sizes(720, 1080), ALL_FPS, EVEN_6_20),
            _row(_sizes(1440, 2160), ALL_FPS, (6, 8, 10)),
        )
    ),
    "ltx-2-5-pro": Matrix((_row(_sizes(720, 1080), (24, 25, 50), (6, 8, 10)),)),
}


@dataclass
class Job:
    id: str
    endpoint: str
    body: dict[str, Any]
    created_at: str
    polls: int = 0
    status: str = "pending"
    failure: tuple[str, str] | None = None  # (error.type, message) it will fail with
    completed_at: str | None = None
    expired: bool = False


@dataclass
class LtxFake:
    api_key: str = "test-key"
    polls_to_finish: int = 1  # polls in `processing` before `completed`
    max_concurrent: int = 2  # LTX's default per account
    moderate_prompts_containing: str | None = None
    moderate_at_create: bool = True  # 422 at create; False: the job fails with the type
    out_of_credits: bool = False
    never_finish: bool = False
    fail_jobs_with: tuple[str, str] | None = None  # (error.type, message) for new jobs
    plan: FaultPlan = field(default_factory=FaultPlan)
    jobs: dict[str, Job] = field(default_factory=dict)
    sync_calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def submitted(self) -> list[dict[str, Any]]:
        return [job.body for job in self.jobs.values()]

    def app(self) -> FaultInjector:
        routes = [
            Route("/v2/{endpoint}", self._create, methods=["POST"]),
            Route("/v2/{endpoint}/{id}", self._get, methods=["GET"]),
            Route("/v1/{endpoint}", self._sync, methods=["POST"]),
            Route("/cdn/{id}.mp4", self._video, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    def expire(self, job_id: str | None = None) -> None:
        """LTX's 24 hours have passed for this job (every job when None)."""
        for job in self.jobs.values():
            if job_id is None or job.id == job_id:
                job.expired = True

    # --- endpoints ------------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        refused, body = await self._accept(request)
        if refused is not None:
            return refused
        unfinished = [
            j for j in self.jobs.values() if j.status in ("pending", "processing") and not j.expired
        ]
        if len(unfinished) >= self.max_concurrent:
            return _error(
                429,
                "concurrency_limit_error",
                "Too many concurrent requests. Please try again later.",
                {"retry-after": "5"},
            )
        job = Job(
            id=str(uuid.uuid4()),
            endpoint=request.path_params["endpoint"],
            body=body,
            created_at=_now(),
            failure=self.fail_jobs_with or self._moderated(body, at_create=False),
        )
        self.jobs[job.id] = job
        return _json({"id": job.id, "created_at": job.created_at}, 202)

    async def _sync(self, request: Request) -> Response:
        refused, body = await self._accept(request)
        if refused is not None:
            return refused
        self.sync_calls.append(body)
        return Response(
            sample_mp4(), media_type="video/mp4", headers={"x-request-id": _request_id()}
        )

    async def _get(self, request: Request) -> Response:
        if not has_credential(request, self.api_key):
            return _error(401, "authentication_error", "Invalid API key")
        job = self.jobs.get(request.path_params["id"])
        if job is None or job.expired or job.endpoint != request.path_params["endpoint"]:
            return _error(404, "not_found_error", "Job not found")
        self._advance(job, str(request.base_url).rstrip("/"))
        answer: dict[str, Any] = {"id": job.id, "status": job.status, "created_at": job.created_at}
        if job.completed_at is not None:
            answer["completed_at"] = job.completed_at
        if job.status == "completed":
            answer["result"] = {"video_url": f"{request.base_url}cdn/{job.id}.mp4"}
        if job.status == "failed" and job.failure is not None:
            answer["error"] = {"type": job.failure[0], "message": job.failure[1]}
        return _json(answer)

    async def _video(self, request: Request) -> Response:
        job = self.jobs.get(request.path_params["id"])
        if job is None or job.expired or job.status != "completed":
            return Response(b"Not Found", status_code=404)
        if job.endpoint == "extend":  # the input (the 1 s samples) followed by the new part
            return Response(sample_mp4(1.0 + job.body["duration"]), media_type="video/mp4")
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour -------------------------------------------------------------------------

    async def _accept(self, request: Request) -> tuple[Response | None, dict[str, Any]]:
        if not has_credential(request, self.api_key):
            return _error(401, "authentication_error", "Invalid or missing API key"), {}
        endpoint = request.path_params["endpoint"]
        if endpoint not in ("text-to-video", "image-to-video", "retake", "extend"):
            return _error(404, "not_found_error", f"No endpoint {endpoint}"), {}
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "invalid_request_error", "Body is not JSON"), {}
        check = _validate_source if endpoint in ("retake", "extend") else _validate
        problem = check(endpoint, body)
        if problem is not None:
            return _error(400, "invalid_request_error", problem), {}
        if self.out_of_credits:
            return _error(402, "insufficient_funds_error", "Insufficient credits"), {}
        moderated = self._moderated(body, at_create=True)
        if moderated is not None:
            return _error(422, *moderated), {}
        return None, body

    def _moderated(self, body: dict[str, Any], *, at_create: bool) -> tuple[str, str] | None:
        word = self.moderate_prompts_containing
        if not word or word.lower() not in str(body.get("prompt", "")).lower():
            return None
        if at_create != self.moderate_at_create:
            return None
        return ("content_filtered_error", "Content rejected by safety filters")

    def _advance(self, job: Job, base: str) -> None:
        if job.status in ("completed", "failed"):
            return
        job.polls += 1
        if job.polls == 1 or self.never_finish:
            job.status = "pending" if job.polls == 1 else "processing"
            return
        if job.failure is not None:
            job.status, job.completed_at = "failed", _now()
            return
        if job.polls <= 1 + self.polls_to_finish:
            job.status = "processing"
            return
        job.status, job.completed_at = "completed", _now()


def _fields_problem(body: object, allowed: set[str], required: set[str]) -> str | None:
    """LTX's answer to a body that is not an object, or has fields it does not take or lacks
    ones it needs."""
    if not isinstance(body, dict):
        return "The request body must be a JSON object"
    unknown = sorted(set(body) - allowed)
    if unknown:
        return f"Unknown fields: {', '.join(unknown)}"
    missing = sorted(required - set(body))
    if missing:
        return f"Missing fields: {', '.join(missing)}"
    return None


def _validate(endpoint: str, body: object) -> str | None:
    allowed = T2V_FIELDS if endpoint == "text-to-video" else I2V_FIELDS
    required = REQUIRED | ({"image_uri"} if endpoint == "image-to-video" else set())
    if (problem := _fields_problem(body, allowed, required)) is not None:
        return problem
    assert isinstance(body, dict)
    model = body["model"]
    if model not in MODELS:
        return f"model must be one of {', '.join(MODELS)}"
    if not isinstance(body["prompt"], str) or not body["prompt"]:
        return "prompt must be a non-empty string"
    fps, duration = body.get("fps", 24), body["duration"]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (fps, duration)):
        return "duration and fps must be integers"
    if not MODELS[model].allows(str(body["resolution"]), fps, duration):
        return f"{model} does not support {body['resolution']} at {fps} fps for {duration} s"
    if "generate_audio" in body and not isinstance(body["generate_audio"], bool):
        return "generate_audio must be a boolean"
    if "camera_motion" in body and body["camera_motion"] not in CAMERA_MOTIONS:
        return "camera_motion is not one of the documented motions"
    if "last_frame_uri" in body and model not in LAST_FRAME_MODELS:
        return f"last_frame_uri is not supported by {model}"
    for name in ("image_uri", "last_frame_uri"):
        if name in body and not _readable_image(body[name]):
            return f"{name} must be an https URL of a domain or an image data URI under 7 MB"
    return None


def _validate_source(endpoint: str, body: object) -> str | None:
    allowed = RETAKE_FIELDS if endpoint == "retake" else EXTEND_FIELDS
    required = {"video_uri", "duration"} | ({"start_time"} if endpoint == "retake" else set())
    if (problem := _fields_problem(body, allowed, required)) is not None:
        return problem
    assert isinstance(body, dict)
    if body.get("model", "ltx-2-3-pro") not in SOURCE_MODELS:
        return f"{endpoint} is supported by {', '.join(SOURCE_MODELS)} only"
    duration = body["duration"]
    if not isinstance(duration, int | float) or isinstance(duration, bool) or duration < 2:
        return "duration must be at least 2 seconds"
    if endpoint == "extend":
        if duration > 20 or body.get("mode", "end") not in ("end", "start"):
            return "extend adds 2 to 20 seconds at the end or the start"
    elif body.get("mode", "replace_audio_and_video") not in RETAKE_MODES:
        return "mode is not a retake mode"
    uri = body["video_uri"]
    if not isinstance(uri, str) or not _readable_video(uri):
        return "video_uri must be an https URL of a domain or a video data URI under 15 MB"
    return None


def _readable_video(uri: str) -> bool:
    if uri.startswith("https://"):
        return any(ch.isalpha() for ch in uri.split("/")[2].split(":")[0])
    header, _, payload = uri.partition(",")
    if not header.startswith("data:video/") or len(uri) > MAX_INLINE_VIDEO:
        return False
    try:
        return base64.b64decode(payload, validate=True)[4:8] == b"ftyp"
    except (binascii.Error, ValueError):
        return False


def _readable_image(uri: object) -> bool:
    """An image LTX could read: an https URL naming a domain (not fetched here), or a data
    URI of a PNG/JPEG within 7 MB."""
    if not isinstance(uri, str):
        return False
    if uri.startswith("https://"):
        host = uri.split("/")[2].split(":")[0]
        return any(ch.isalpha() for ch in host)
    header, _, payload = uri.partition(",")
    if not header.startswith("data:image/") or len(uri) > MAX_INLINE_IMAGE:
        return False
    try:
        return is_png_or_jpeg(base64.b64decode(payload, validate=True))
    except (binascii.Error, ValueError):
        return False


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _request_id() -> str:
    return uuid.uuid4().hex


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status, headers={"x-request-id": _request_id(), **(headers or {})})


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _error(
    status: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return _json(error_body(kind, message), status, headers)
