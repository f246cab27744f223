"""A fake of Alibaba Model Studio's (DashScope) asynchronous video-synthesis API.

It speaks the wire format the dashscope SDK and the Model Studio API references describe:
`POST /api/v1/services/aigc/video-generation/video-synthesis` (Bearer key and
`X-DashScope-Async: enable` required), `GET /api/v1/tasks/{task_id}`,
`POST /api/v1/tasks/{task_id}/cancel` (PENDING tasks only), error bodies
`{"request_id", "code", "message"}`, and a result download served at `video_url`.

Scenario knobs: `moderate_prompts_containing` (400 DataInspectionFailed at create),
`moderate_outputs_containing` (the task FAILS with DataInspectionFailed), `fail_jobs_with`
((code, message) the task fails with), `never_finish` (tasks stay PENDING),
`pending_polls` / `running_polls` (polls spent in each state before success).
"""

from __future__ import annotations

import base64
import binascii
import uuid
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, has_credential, sample_mp4
from tests.fakes.wan_inputs import TYPED_INPUTS, Rejected, check_continuation, check_typed

CREATE_PATH = "/api/v1/services/aigc/video-generation/video-synthesis"

_T2V_SIZES = {
    "480P": {"832*480", "480*832", "624*624"},
    "720P": {"1280*720", "720*1280", "960*960", "1088*832", "832*1088"},
    "1080P": {"1920*1080", "1080*1920", "1440*1440", "1632*1248", "1248*1632"},
}


@dataclass(frozen=True)
class ModelSpec:
    kind: str  # "t2v" | "i2v"
    protocol: str  # "legacy" (size / img_url) | "media" (resolution + ratio / media)
    resolutions: frozenset[str]
    durations: frozenset[int]


def _spec(
    kind: str, protocol: str, resolutions: str, durations: range | tuple[int, ...]
) -> ModelSpec:
    return ModelSpec(kind, protocol, frozenset(resolutions.split()), frozenset(durations))


MODELS = {
    "wan2.5-t2v-preview": _spec("t2v", "legacy", "480P 720P 1080P", (5, 10)),
    "wan2.5-i2v-preview": _spec("i2v", "legacy", "480P 720P 1080P", (5, 10)),
    "wan2.6-t2v": _spec("t2v", "legacy", "720P 1080P", (5, 10, 15)),
    "wan2.6-i2v": _spec("i2v", "legacy", "720P 1080P", (5, 10, 15)),
    "wan2.7-t2v": _spec("t2v", "media", "720P 1080P", range(2, 16)),
    "wan2.7-i2v": _spec("i2v", "media", "720P 1080P", range(2, 16)),
}
RATIOS = {"16:9", "9:16", "1:1", "4:3", "3:4"}
MAX_SEED = 2_147_483_647
MAX_NEGATIVE_PROMPT = 500
MIN_IMAGE_SIDE = 360  # Model Studio: first-frame images 360-2000 px per side
# The fields of the video-synthesis body (shared/providers/wan.md; `extend_prompt` and
# `function` are what the dashscope SDK always adds to `input`). Model Studio's answer to
# another is unpublished; the fake refuses it so that a control sent under a wrong name
# (`parameters.negative_prompt`, `input.seed`, `parameters.last_frame`) fails its test.
_FIELDS = {"model", "input", "parameters"}
_INPUT_FIELDS = {
    "prompt", "negative_prompt", "img_url", "first_frame_url", "last_frame_url", "audio_url",
    "media", "reference_urls", "extend_prompt", "function",
}  # fmt: skip
_PARAMETER_FIELDS = {
    "size", "resolution", "ratio", "duration", "seed", "prompt_extend", "watermark", "audio",
    "shot_type",
}  # fmt: skip


class _Rejected(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class FakeTask:
    id: str
    body: dict[str, Any]
    status: str = "PENDING"
    polls: int = 0


@dataclass
class FakeWan:
    api_key: str = "test-key"
    plan: FaultPlan = field(default_factory=FaultPlan)
    moderate_prompts_containing: str | None = None
    moderate_outputs_containing: str | None = None
    fail_jobs_with: tuple[str, str] | None = None
    never_finish: bool = False
    pending_polls: int = 1
    running_polls: int = 1
    tasks: dict[str, FakeTask] = field(default_factory=dict)
    submitted: list[dict[str, Any]] = field(default_factory=list)  # accepted create bodies
    create_headers: list[dict[str, str]] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)
    downloads: int = 0

    def __post_init__(self) -> None:
        routes = [
            Route(CREATE_PATH, self._create, methods=["POST"]),
            Route("/api/v1/tasks/{task_id}", self._get, methods=["GET"]),
            Route("/api/v1/tasks/{task_id}/cancel", self._cancel, methods=["POST"]),
            Route("/results/{name}", self._download, methods=["GET"]),
        ]
        self.app = FaultInjector(Starlette(routes=routes), self.plan)

    @property
    def created(self) -> list[dict[str, Any]]:
        """The older name of `submitted`."""
        return self.submitted

    # --- endpoints ----------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        if (refused := self._refusal(request)) is not None:
            return refused
        try:
            if request.headers.get("x-dashscope-async") != "enable":
                raise _Rejected(
                    403, "AccessDenied", "current user api does not support synchronous calls"
                )
            try:
                body = await request.json()
            except ValueError as exc:
                raise _Rejected(400, "InvalidParameter", "The request body is not JSON.") from exc
            _validate(body)
            prompt = str(body["input"].get("prompt") or "")
            if self.moderate_prompts_containing and self.moderate_prompts_containing in prompt:
                raise _Rejected(
                    400, "DataInspectionFailed", "Input data may contain inappropriate content."
                )
        except _Rejected as exc:
            return _error(exc.status, exc.code, exc.message)
        task = FakeTask(id=f"{uuid.uuid4()}", body=body)
        self.tasks[task.id] = task
        self.submitted.append(body)
        self.create_headers.append(dict(request.headers))
        return JSONResponse(
            {"request_id": _rid(), "output": {"task_id": task.id, "task_status": "PENDING"}}
        )

    async def _get(self, request: Request) -> Response:
        if (refused := self._refusal(request)) is not None:
            return refused
        task_id = request.path_params["task_id"]
        task = self.tasks.get(task_id)
        if task is None:
            return JSONResponse(
                {"request_id": _rid(), "output": {"task_id": task_id, "task_status": "UNKNOWN"}}
            )
        self._advance(task)
        output: dict[str, Any] = {
            "task_id": task.id,
            "task_status": task.status,
            "submit_time": "2026-11-22 10:00:00.000",
        }
        answer: dict[str, Any] = {"request_id": _rid(), "output": output}
        if task.status == "SUCCEEDED":
            output["video_url"] = f"{str(request.base_url).rstrip('/')}/results/{task.id}.mp4"
            output["orig_prompt"] = task.body["input"].get("prompt")
            seconds = int(task.body.get("parameters", {}).get("duration", 5))
            answer["usage"] = {
                "duration": seconds,
                "input_video_duration": 0,
                "output_video_duration": seconds,
                "video_count": 1,
                "SR": 720,
            }
        elif task.status == "FAILED":
            code, message = self._failure(task)
            output["code"], output["message"] = code, message
        return JSONResponse(answer)

    async def _cancel(self, request: Request) -> Response:
        if (refused := self._refusal(request)) is not None:
            return refused
        task_id = request.path_params["task_id"]
        self.cancels.append(task_id)
        task = self.tasks.get(task_id)
        if task is None or task.status != "PENDING":
            return _error(
                400,
                "UnsupportedOperation",
                "Failed to cancel the task, please confirm if the task is in PENDING status.",
            )
        task.status = "CANCELED"
        return JSONResponse({"request_id": _rid()})

    async def _download(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name.removesuffix(".mp4") not in self.tasks:
            return Response(b"<Error><Code>NoSuchKey</Code></Error>", 404, media_type="text/xml")
        self.downloads += 1
        task = self.tasks[name.removesuffix(".mp4")]
        if _is_continuation(task.body["input"]):  # the whole video: the clip and the rest
            seconds = float(task.body.get("parameters", {}).get("duration", 5))
            return Response(sample_mp4(seconds), media_type="video/mp4")
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour ----------------------------------------------------------------------

    def _refusal(self, request: Request) -> Response | None:
        if has_credential(request, self.api_key):
            return None
        return _error(401, "InvalidApiKey", "Invalid API-key provided.")

    def _advance(self, task: FakeTask) -> None:
        if task.status not in ("PENDING", "RUNNING"):
            return
        task.polls += 1
        if self.never_finish:
            return
        if task.polls <= self.pending_polls:
            task.status = "PENDING"
        elif task.polls <= self.pending_polls + self.running_polls:
            task.status = "RUNNING"
        else:
            failed = self.fail_jobs_with is not None or self._output_moderated(task)
            task.status = "FAILED" if failed else "SUCCEEDED"

    def _output_moderated(self, task: FakeTask) -> bool:
        word = self.moderate_outputs_containing
        return word is not None and bool(word) and word in str(task.body["input"].get("prompt"))

    def _failure(self, task: FakeTask) -> tuple[str, str]:
        if self._output_moderated(task):
            return "DataInspectionFailed", "Output data may contain inappropriate content."
        assert self.fail_jobs_with is not None
        return self.fail_jobs_with


# --- validation, as Model Studio does it ----------------------------------------------------


def _validate(body: Any) -> None:
    try:
        _validate_body(body)
    except Rejected as exc:
        raise _Rejected(exc.status, exc.code, exc.message) from exc


def _validate_body(body: Any) -> None:
    if not isinstance(body, dict) or not isinstance(body.get("input"), dict):
        raise _Rejected(400, "InvalidParameter", "input is required")
    if str(body.get("model")) in TYPED_INPUTS:
        inp, params = body["input"], body.get("parameters") or {}
        if set(body) - _FIELDS or not isinstance(params, dict):
            raise _Rejected(400, "InvalidParameter", "Unrecognized field")
        check_typed(str(body["model"]), inp, params)
        _check_controls(inp, params)
        return
    spec = MODELS.get(str(body.get("model")))
    if spec is None:
        raise _Rejected(400, "InvalidParameter", "Model not exist.")
    inp, params = body["input"], body.get("parameters") or {}
    if not isinstance(params, dict):
        raise _Rejected(400, "InvalidParameter", "parameters must be an object")
    for where, given, known in (
        ("", body, _FIELDS),
        ("input.", inp, _INPUT_FIELDS),
        ("parameters.", params, _PARAMETER_FIELDS),
    ):
        for name in sorted(set(given) - known):
            raise _Rejected(400, "InvalidParameter", f"Unrecognized field: {where}{name}")
    if not inp.get("prompt") and spec.kind == "t2v":
        raise _Rejected(400, "InvalidParameter", "Field required: input.prompt")
    duration = params.get("duration", 5)
    if not isinstance(duration, int) or duration not in spec.durations:
        raise _Rejected(400, "InvalidParameter", f"duration {duration!r} is not supported")
    if spec.protocol == "legacy" and spec.kind == "t2v":
        size = params.get("size", "1920*1080")
        allowed = set().union(*(_T2V_SIZES[r] for r in spec.resolutions))
        if size not in allowed:
            raise _Rejected(400, "InvalidParameter", f"size {size!r} is not supported")
    else:
        if params.get("resolution", "1080P") not in spec.resolutions:
            raise _Rejected(400, "InvalidParameter", "resolution is not supported")
    if (
        spec.protocol == "media"
        and spec.kind == "t2v"
        and params.get("ratio", "16:9") not in RATIOS
    ):
        raise _Rejected(400, "InvalidParameter", "ratio is not supported")
    _check_controls(inp, params)
    if spec.protocol == "media" and _is_continuation(inp):
        check_continuation(inp, params)
        return
    if spec.kind == "i2v":
        for url in _frames(inp, spec.protocol):
            _check_image(url)
    elif inp.get("media"):
        raise _Rejected(400, "InvalidParameter", "input.media is not supported by this model.")


def _is_continuation(inp: dict[str, Any]) -> bool:
    media = inp.get("media")
    return isinstance(media, list) and any(
        isinstance(m, dict) and m.get("type") == "first_clip" for m in media
    )


def _check_controls(inp: dict[str, Any], params: dict[str, Any]) -> None:
    """The optional fields of the API references: their types and ranges."""
    negative = inp.get("negative_prompt", "")
    if not isinstance(negative, str) or len(negative) > MAX_NEGATIVE_PROMPT:
        raise _Rejected(400, "InvalidParameter", "negative_prompt: at most 500 characters")
    seed = params.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise _Rejected(400, "InvalidParameter", f"seed must be in [0, {MAX_SEED}]")
    for flag in ("prompt_extend", "audio", "watermark"):
        if not isinstance(params.get(flag, False), bool):
            raise _Rejected(400, "InvalidParameter", f"{flag} must be a boolean")


def _frames(inp: dict[str, Any], protocol: str) -> list[str]:
    """The first frame, and the last one where the media shape gives it."""
    if protocol == "legacy":
        first: list[Any] = [inp.get("img_url")]
        last: list[Any] = []
    else:
        media = [m for m in inp.get("media") or [] if isinstance(m, dict)]
        first = [m.get("url") for m in media if m.get("type") == "first_frame"]
        last = [m.get("url") for m in media if m.get("type") == "last_frame"]
        if len(media) != len(first) + len(last) or len(last) > 1:
            raise _Rejected(400, "InvalidParameter", "input.media: unsupported media items.")
    if len(first) != 1 or not isinstance(first[0], str) or not first[0]:
        raise _Rejected(400, "InvalidParameter", "The first frame image is required.")
    if any(not isinstance(url, str) or not url for url in last):
        raise _Rejected(400, "InvalidParameter", "The last frame image url is invalid.")
    return [*first, *last]


def _check_image(url: str) -> None:
    if url.startswith(("http://", "https://")):
        return  # the real service downloads it; the tests check what was sent
    header, _, payload = url.partition(",")
    if not header.startswith("data:image/") or not header.endswith(";base64"):
        raise _Rejected(400, "InvalidParameter", "The image url is invalid.")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _Rejected(400, "InvalidParameter", "The image content is not valid base64.") from exc
    size = _png_size(data)
    if size is None and not data.startswith(b"\xff\xd8\xff"):
        raise _Rejected(400, "InvalidParameter", "The image format is not supported.")
    if size is not None and min(size) < MIN_IMAGE_SIDE:
        raise _Rejected(
            400, "InvalidParameter", f"The image resolution {size[0]}x{size[1]} is too small."
        )


def _png_size(data: bytes) -> tuple[int, int] | None:
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _rid() -> str:
    return str(uuid.uuid4())


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"request_id": _rid(), "code": code, "message": message}, status)
