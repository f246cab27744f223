"""A fake of BytePlus ModelArk's video generation tasks API (Seedance), on Ark's wire format.

Paths, bodies and errors follow the official SDK (byteplus-python-sdk-v2 3.0.63,
`byteplussdkarkruntime`) and docs.byteplus.com ModelArk 1520757 / 1299023:
`POST /api/v3/contents/generations/tasks` -> `{"id": "cgt-..."}`,
`GET .../tasks/{id}` -> the task (queued -> running -> succeeded | failed | expired),
`DELETE .../tasks/{id}` cancels a queued task or deletes a finished one. Errors are
`{"error": {"code", "message", "param", "type"}}` with Ark's codes. The finished video is
served from `/tos/{id}.mp4`, standing for Ark's presigned object-storage URL.
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, has_credential, sample_mp4
from tests.fakes.seedance_content import REFERENCE_ROLES, ArkError, check_content

TASKS = "/api/v3/contents/generations/tasks"
RATIOS = ("16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "adaptive")


@dataclass(frozen=True)
class ModelLimits:
    durations: range
    resolutions: tuple[str, ...]
    roles: tuple[str, ...] = ("first_frame", "last_frame")
    audio: bool = False  # takes `generate_audio` (1.5 Pro and the 2.0 series)


_V2_ROLES = ("first_frame", "last_frame", *REFERENCE_ROLES)
MODELS = {
    "seedance-1-0-pro-250528": ModelLimits(range(2, 13), ("480p", "720p", "1080p")),
    "seedance-1-0-pro-fast-251015": ModelLimits(
        range(2, 13), ("480p", "720p", "1080p"), ("first_frame",)
    ),
    "seedance-1-5-pro-251215": ModelLimits(range(4, 13), ("480p", "720p", "1080p"), audio=True),
    "dreamina-seedance-2-0-260128": ModelLimits(
        range(4, 16), ("480p", "720p", "1080p"), _V2_ROLES, audio=True
    ),
    "dreamina-seedance-2-0-fast-260128": ModelLimits(
        range(4, 16), ("480p", "720p"), _V2_ROLES, audio=True
    ),
    "dreamina-seedance-2-0-mini-260615": ModelLimits(
        range(4, 16), ("480p", "720p"), _V2_ROLES, audio=True
    ),
}
MAX_SEED = 4_294_967_295  # Ark: seed in [-1, 2^32 - 1], -1 for random
BOOLEANS = ("generate_audio", "camera_fixed", "watermark")
# The create body's top-level fields (the SDK's `content_generation.tasks.create`, 3.0.63, as
# shared/providers/seedance.md lists them). Ark's answer to another is unpublished; the fake
# refuses it so that a control sent under a wrong name (`negative_prompt`, `audio`,
# `last_frame`) fails the test that sent it.
FIELDS = {
    "model", "content", "callback_url", "ratio", "resolution", "duration", "frames", "seed",
    "camera_fixed", "watermark", "generate_audio", "draft", "return_last_frame",
    "service_tier", "execution_expires_after", "priority", "safety_identifier",
}  # fmt: skip
SIZES = {"480p": (864, 480), "720p": (1280, 720), "1080p": (1920, 1080)}
DEFAULT_RESOLUTION = "720p"


_TYPES = {400: "BadRequest", 401: "Unauthorized", 404: "NotFound", 429: "TooManyRequests"}


def ark_error(status: int, code: str, message: str, param: str = "") -> dict[str, Any]:
    """Ark's error body (also for FaultPlan bodies)."""
    request_id = _request_id()
    return {
        "error": {
            "code": code,
            "message": f"{message} Request id: {request_id}",
            "param": param,
            "type": _TYPES.get(status, "InternalServiceError" if status >= 500 else "BadRequest"),
        }
    }


@dataclass
class Task:
    id: str
    model: str
    body: dict[str, Any]
    created_at: int
    status: str = "queued"
    polls: int = 0
    error: dict[str, str] | None = None


@dataclass
class FakeArk:
    api_key: str = "test-key"
    polls_to_finish: int = 3  # GETs until the task is done: queued, running..., then done
    moderate_prompts_containing: str | None = None  # rejected at create (input moderation)
    moderate_outputs_containing: str | None = None  # task fails (output moderation)
    fail_jobs_with: tuple[str, str] | None = None  # (code, message) of a failed task
    never_finish: bool = False  # tasks stay queued
    expire_jobs: bool = False  # tasks end "expired"
    plan: FaultPlan = field(default_factory=FaultPlan)
    tasks: dict[str, Task] = field(default_factory=dict)
    submitted: list[dict[str, Any]] = field(default_factory=list)  # accepted create bodies
    client_request_ids: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)

    def app(self) -> FaultInjector:
        routes = [
            Route(TASKS, self._create, methods=["POST"]),
            Route(TASKS + "/{task_id}", self._get, methods=["GET"]),
            Route(TASKS + "/{task_id}", self._delete, methods=["DELETE"]),
            Route("/tos/{task_id}.mp4", self._video, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints ------------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        try:
            self._authorize(request)
            body = await _json(request)
            self._validate(body)
            prompt = _prompt(body)
            if self.moderate_prompts_containing and self.moderate_prompts_containing in prompt:
                raise ArkError(
                    400,
                    "InputTextSensitiveContentDetected",
                    "The request failed because the input text may contain sensitive information.",
                )
        except ArkError as exc:
            return _error(request, exc)
        task = Task(_task_id(), body["model"], body, int(time.time()))
        self.tasks[task.id] = task
        self.submitted.append(body)
        self.client_request_ids.append(request.headers.get("x-client-request-id", ""))
        return _json_response(request, {"id": task.id})

    async def _get(self, request: Request) -> Response:
        try:
            self._authorize(request)
            task = self._task(request.path_params["task_id"])
        except ArkError as exc:
            return _error(request, exc)
        task.polls += 1
        if task.status in ("queued", "running"):
            self._advance(task)
        return _json_response(request, self._view(request, task))

    async def _delete(self, request: Request) -> Response:
        try:
            self._authorize(request)
            task = self._task(request.path_params["task_id"])
            if task.status == "running":
                # Unconfirmed body: Ark documents only that running tasks cannot be cancelled.
                raise ArkError(400, "InvalidParameter", "A running task cannot be cancelled.", "id")
        except ArkError as exc:
            return _error(request, exc)
        self.cancelled.append(task.id)
        if task.status == "queued":
            task.status = "cancelled"
        else:
            del self.tasks[task.id]
        return _json_response(request, {})

    async def _video(self, request: Request) -> Response:
        task = self.tasks.get(request.path_params["task_id"])
        if task is None or task.status != "succeeded":
            return Response(b"<Error><Code>NoSuchKey</Code></Error>", 404)
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour --------------------------------------------------------------------------

    def _authorize(self, request: Request) -> None:
        if not has_credential(request, self.api_key):
            raise ArkError(
                401,
                "AuthenticationError",
                "The API key or AK/SK in the request is missing or invalid.",
            )

    def _task(self, task_id: str) -> Task:
        task = self.tasks.get(task_id)
        if task is None:
            # Unconfirmed code: Ark's table has "NotFound.{Parameter}" for missing resources.
            raise ArkError(404, "NotFound", f"The specified task {task_id} is not found.")
        return task

    def _advance(self, task: Task) -> None:
        if self.never_finish:
            return
        if task.polls < self.polls_to_finish:
            task.status = "queued" if task.polls == 1 else "running"
            return
        prompt = _prompt(task.body)
        if self.expire_jobs:
            task.status = "expired"
        elif self.moderate_outputs_containing and self.moderate_outputs_containing in prompt:
            task.status = "failed"
            task.error = {
                "code": "OutputVideoSensitiveContentDetected",
                "message": "The request failed because the output video may contain sensitive "
                "information.",
            }
        elif self.fail_jobs_with is not None:
            task.status = "failed"
            task.error = {"code": self.fail_jobs_with[0], "message": self.fail_jobs_with[1]}
        else:
            task.status = "succeeded"

    def _view(self, request: Request, task: Task) -> dict[str, Any]:
        body = task.body
        resolution = body.get("resolution", DEFAULT_RESOLUTION)
        duration = int(body.get("duration", 5))
        view: dict[str, Any] = {
            "id": task.id,
            "model": task.model,
            "status": task.status,
            "error": task.error,
            "created_at": task.created_at,
            "updated_at": int(time.time()),
            "seed": body.get("seed", 11),
            "resolution": resolution,
            "ratio": body.get("ratio", "16:9"),
            "duration": duration,
            "framespersecond": 24,
            "generate_audio": bool(body.get("generate_audio", MODELS[task.model].audio)),
            "draft": False,
            "service_tier": body.get("service_tier", "default"),
            "execution_expires_after": body.get("execution_expires_after", 172800),
        }
        if task.status == "succeeded":
            width, height = SIZES[resolution]
            tokens = width * height * (24 * duration + 1) // 1024
            base = str(request.base_url).rstrip("/")
            view["content"] = {"video_url": f"{base}/tos/{task.id}.mp4?X-Tos-Expires=86400"}
            view["usage"] = {"completion_tokens": tokens, "total_tokens": tokens}
        return view

    def _validate(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise ArkError(400, "MissingParameter", "The parameter `model` is required.", "model")
        for name in sorted(set(body) - FIELDS):
            raise ArkError(400, "InvalidParameter", f"Unknown parameter `{name}`.", name)
        limits = MODELS.get(model)
        if limits is None:
            raise ArkError(
                404,
                "InvalidEndpointOrModel.NotFound",
                f"The model or endpoint {model} does not exist or you do not have access to it.",
            )
        check_content(body.get("content"), limits.roles)
        _check_controls(body, limits)
        ratio = body.get("ratio", "16:9")
        if ratio not in RATIOS:
            raise ArkError(400, "InvalidParameter", f"Invalid ratio {ratio}.", "ratio")
        duration = body.get("duration", 5)
        if not isinstance(duration, int) or isinstance(duration, bool):
            raise ArkError(400, "InvalidParameter", "duration must be an integer.", "duration")
        if duration not in limits.durations:
            raise ArkError(
                400, "InvalidParameter", f"duration {duration} is out of range.", "duration"
            )
        resolution = body.get("resolution", DEFAULT_RESOLUTION)
        if resolution not in limits.resolutions:
            raise ArkError(
                400, "InvalidParameter", f"resolution {resolution} is not supported.", "resolution"
            )
        expires = body.get("execution_expires_after", 172800)
        if not isinstance(expires, int) or not 3600 <= expires <= 259200:
            raise ArkError(
                400,
                "InvalidParameter",
                "execution_expires_after must be in [3600, 259200].",
                "execution_expires_after",
            )


def _check_controls(body: dict[str, Any], limits: ModelLimits) -> None:
    """Ark's types and ranges for `seed` and the switches (API reference 1520757)."""
    seed = body.get("seed")
    if seed is not None and (
        not isinstance(seed, int) or isinstance(seed, bool) or not -1 <= seed <= MAX_SEED
    ):
        raise ArkError(400, "InvalidParameter", f"seed must be in [-1, {MAX_SEED}].", "seed")
    for name in BOOLEANS:
        if name in body and not isinstance(body[name], bool):
            raise ArkError(400, "InvalidParameter", f"{name} must be a boolean.", name)
    # Unconfirmed: Ark documents that other models ignore generate_audio; the fake refuses a
    # request for sound from a silent model so that we never bill audio it cannot make.
    if body.get("generate_audio") is True and not limits.audio:
        raise ArkError(
            400,
            "InvalidParameter",
            "generate_audio is not supported by this model.",
            "generate_audio",
        )


def _prompt(body: dict[str, Any]) -> str:
    for item in body.get("content", []):
        if isinstance(item, dict) and item.get("type") == "text":
            return str(item.get("text", ""))
    return ""


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError as exc:
        raise ArkError(400, "InvalidParameter", "The request body is not valid JSON.") from exc
    if not isinstance(body, dict):
        raise ArkError(400, "InvalidParameter", "The request body must be a JSON object.")
    # The SDK sends every optional field, unset ones as null: Ark reads null as "not given".
    return {k: v for k, v in body.items() if v is not None}


def _request_id() -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    return "021" + stamp + secrets.token_hex(8)


def _task_id() -> str:
    alphabet = string.ascii_lowercase + string.digits
    stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    return f"cgt-{stamp}-" + "".join(secrets.choice(alphabet) for _ in range(5))


def _headers(request: Request) -> dict[str, str]:
    headers = {"x-request-id": _request_id()}
    client_id = request.headers.get("x-client-request-id")
    if client_id:
        headers["x-client-request-id"] = client_id
    return headers


def _json_response(request: Request, body: dict[str, Any], status: int = 200) -> Response:
    return JSONResponse(body, status_code=status, headers=_headers(request))


def _error(request: Request, exc: ArkError) -> Response:
    return _json_response(
        request, ark_error(exc.status, exc.code, exc.message, exc.param), exc.status
    )
