"""A fake of Kling's API (api-singapore.klingai.com), written from Kling's published request and
response examples: HS256 JWT auth with Kling's 1001-1004 envelopes, the text2video and
image2video create/query endpoints, the parameter checks Kling documents, the
submitted -> processing -> succeed/failed progression, and a CDN serving the video. The typed
endpoints (omni-video, multi-image2video, video-extend) are checked by `kling_inputs.py`;
an extension answers the whole video (its source and 4 s more).

Scenario knobs (attributes of `KlingFake`): `polls_before_done`, `never_finish`,
`moderate_prompts_containing` (refused at submit, code 1301), `fail_prompts_containing` (a
prompt containing a key makes the task fail later with the value as `task_status_msg`),
`accept_then_time_out` (creates the task, then answers 504/5002 that many times, as if the
answer were lost), `transient_failures` (that many tasks fail with an internal error).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import struct
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes import kling_inputs
from tests.fakes.base import FaultInjector, FaultPlan, sample_mp4

MODELS = {
    "text2video": {
        "kling-v1", "kling-v1-6", "kling-v2-master", "kling-v2-1-master", "kling-v2-5-turbo",
        "kling-v2-6", "kling-v3",
    },
    "image2video": {
        "kling-v1", "kling-v1-5", "kling-v1-6", "kling-v2-master", "kling-v2-1",
        "kling-v2-1-master", "kling-v2-5-turbo", "kling-v2-6", "kling-v3",
    },
}  # fmt: skip
# Per the capability map: the modes in which a model takes an end frame (`image_tail`), and
# the modes in which it makes sound (`sound: on`); kling-v2-6 takes an end frame silent only.
TAIL_MODES = {
    "kling-v1": {"std", "pro"}, "kling-v1-5": {"pro"}, "kling-v1-6": {"pro"},
    "kling-v2-1": {"pro"}, "kling-v2-5-turbo": {"pro"}, "kling-v2-6": {"pro"},
    "kling-v3": {"std", "pro"},
}  # fmt: skip
SOUND_MODES = {"kling-v2-6": {"pro"}, "kling-v3": {"std", "pro"}}
# The create body's fields (shared/providers/kling.md, "Create body"). Kling's answer to a
# field outside them is unpublished; the fake refuses it (1201) so that a control sent under
# a wrong name (`negativePrompt`, `end_image`, `seed`) fails the test that sent it.
_COMMON_FIELDS = {
    "model_name", "prompt", "negative_prompt", "mode", "sound", "duration", "cfg_scale",
    "camera_control", "watermark_info", "callback_url", "external_task_id", "voice_list",
    "element_list", "multi_shot", "shot_type", "multi_prompt",
}  # fmt: skip
FIELDS = {
    "text2video": {*_COMMON_FIELDS, "aspect_ratio"},
    "image2video": {*_COMMON_FIELDS, "image", "image_tail", "static_mask", "dynamic_masks"},
}
AUTH_MESSAGES = {
    1001: "Authorization is empty",
    1002: "Authorization is invalid",
    1003: "Authorization is not yet valid",
    1004: "Authorization has expired",
}
MAX_TEXT = 2500
MAX_IMAGE_BYTES = 10 * 1024 * 1024
MIN_IMAGE_SIDE = 300


@dataclass
class Task:
    task_id: str
    kind: str
    body: dict[str, Any]
    created_at: int
    polls: int = 0
    status: str = "submitted"
    status_msg: str = ""
    model: str = "kling-v1"
    seconds: float = 5.0  # the length reported
    file_seconds: float = 1.0  # the length of the MP4 served


@dataclass
class KlingFake:
    access_key: str = "test-access-key"
    secret_key: str = "test-secret-key"
    plan: FaultPlan = field(default_factory=FaultPlan)
    clock: Callable[[], float] = time.time
    polls_before_done: int = 3  # submitted, processing, then done
    never_finish: bool = False
    moderate_prompts_containing: str | None = None
    fail_prompts_containing: dict[str, str] = field(default_factory=dict)
    accept_then_time_out: int = 0
    transient_failures: int = 0  # the first N tasks fail with an internal error
    tasks: dict[str, Task] = field(default_factory=dict)
    submitted: list[dict[str, Any]] = field(default_factory=list)  # accepted create bodies
    auth_failures: list[int] = field(default_factory=list)
    # (model, task) of each video id a finished task answered: what video-extend takes
    videos: dict[str, tuple[str, Task]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        routes = [
            Route("/v1/videos/{kind}", self._create, methods=["POST"]),
            Route("/v1/videos/{kind}/{task_id}", self._query, methods=["GET"]),
            Route("/kcdn/videos/{name}", self._download, methods=["GET"]),
        ]
        self.app = FaultInjector(Starlette(routes=routes), self.plan)

    @property
    def received(self) -> list[dict[str, Any]]:
        """The older name of `submitted`."""
        return self.submitted

    # --- endpoints ----------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        kind = request.path_params["kind"]
        if kind not in MODELS and kind not in kling_inputs.FIELDS:
            return _envelope(404, 1202, "The requested method is invalid")
        denied = self._authorize(request)
        if denied is not None:
            return denied
        try:
            body = json.loads(await request.body())
        except json.JSONDecodeError:
            return _envelope(400, 1200, "Invalid request parameters")
        if not isinstance(body, dict):
            return _envelope(400, 1200, "Invalid request parameters")
        if kind in kling_inputs.FIELDS:
            made = {v: (model, t.seconds) for v, (model, t) in self.videos.items()}
            problem = await kling_inputs.check_typed(kind, body, made, _check_one_image)
        else:
            problem = _check_params(kind, body) or await _check_image(kind, body)
        if problem is not None:
            return _envelope(400, 1201, problem)
        external = body.get("external_task_id") or ""
        if external and any(
            t.body.get("external_task_id") == external for t in self.tasks.values()
        ):
            return _envelope(400, 1201, "external_task_id already exists")
        prompt = str(body.get("prompt", ""))
        if self.moderate_prompts_containing and self.moderate_prompts_containing in prompt:
            return _envelope(400, 1301, "Trigger the content security policy of the platform")
        now = int(self.clock() * 1000)
        task = Task(str(800000000000000000 + len(self.tasks) + 1), kind, body, now)
        task.model = str(body.get("model_name", "kling-v1"))
        task.seconds = float(body.get("duration", "5"))
        if kind == kling_inputs.EXTEND:  # the whole video: the source and 4 s more
            task.model, source = self.videos[body["video_id"]]
            task.seconds, task.file_seconds = source.seconds + 4.5, source.file_seconds + 4
        self.tasks[task.task_id] = task
        self.submitted.append(body)
        if self.accept_then_time_out > 0:
            self.accept_then_time_out -= 1
            return _envelope(504, 5002, "Server internal timeout, usually due to a backlog")
        data = {
            "task_id": task.task_id,
            "task_info": {"external_task_id": external},
            "task_status": task.status,
            "created_at": now,
            "updated_at": now,
        }
        return _envelope(200, 0, "SUCCEED", data)

    async def _query(self, request: Request) -> Response:
        denied = self._authorize(request)
        if denied is not None:
            return denied
        kind, wanted = request.path_params["kind"], request.path_params["task_id"]
        task = self.tasks.get(wanted) or next(
            (t for t in self.tasks.values() if t.body.get("external_task_id") == wanted), None
        )
        if task is None or task.kind != kind:
            return _envelope(404, 1203, "The requested resource does not exist")
        self._advance(task)
        data: dict[str, Any] = {
            "task_id": task.task_id,
            "task_status": task.status,
            "task_status_msg": task.status_msg,
            "task_info": {"external_task_id": task.body.get("external_task_id", "")},
            "watermark_info": {"enabled": False},
            "created_at": task.created_at,
            "updated_at": int(self.clock() * 1000),
        }
        if task.status == "succeed":
            url = f"{str(request.base_url).rstrip('/')}/kcdn/videos/{task.task_id}.mp4"
            seconds = task.seconds
            self.videos[f"v{task.task_id}"] = (task.model, task)
            data["task_result"] = {
                "videos": [
                    {
                        "id": f"v{task.task_id}",
                        "url": url,
                        "watermark_url": "",
                        "duration": f"{seconds + 0.042:.3f}",
                    }
                ]
            }
            data["final_unit_deduction"] = "2.5" if seconds == 5 else "5"
        return _envelope(200, 0, "SUCCEED", data)

    async def _download(self, request: Request) -> Response:
        task = self.tasks.get(request.path_params["name"].removesuffix(".mp4"))
        if task is None:
            return Response(status_code=404)
        return Response(sample_mp4(task.file_seconds), media_type="video/mp4")

    # --- behaviour ----------------------------------------------------------------------

    def _advance(self, task: Task) -> None:
        if task.status in ("succeed", "failed"):
            return
        task.polls += 1
        if self.never_finish or task.polls < self.polls_before_done:
            task.status = "submitted" if task.polls == 1 else "processing"
            return
        if self.transient_failures > 0:
            self.transient_failures -= 1
            task.status, task.status_msg = "failed", "Internal error, please try again later"
            return
        prompt = str(task.body.get("prompt", ""))
        for word, message in self.fail_prompts_containing.items():
            if word in prompt:
                task.status, task.status_msg = "failed", message
                return
        task.status = "succeed"

    def _authorize(self, request: Request) -> Response | None:
        header = request.headers.get("authorization", "")
        if not header:
            code = 1001
        else:
            scheme, _, token = header.partition(" ")
            code = self._check_token(token) if scheme == "Bearer" else 1002
        if code == 0:
            return None
        self.auth_failures.append(code)
        return _envelope(401, code, AUTH_MESSAGES[code])

    def _check_token(self, token: str) -> int:
        """0 when the token is Kling's HS256 JWT for our keys and valid now, else the code."""
        try:
            head_b64, payload_b64, signature_b64 = token.split(".")
            header = json.loads(_unb64url(head_b64))
            payload = json.loads(_unb64url(payload_b64))
            signature = _unb64url(signature_b64)
        except (ValueError, binascii.Error, UnicodeDecodeError):
            return 1002
        expected = hmac.new(
            self.secret_key.encode(), f"{head_b64}.{payload_b64}".encode(), hashlib.sha256
        ).digest()
        if header.get("alg") != "HS256" or not hmac.compare_digest(signature, expected):
            return 1002
        if payload.get("iss") != self.access_key:
            return 1002
        now = self.clock()
        if not isinstance(payload.get("nbf"), int) or now < payload["nbf"]:
            return 1003
        if not isinstance(payload.get("exp"), int) or now >= payload["exp"]:
            return 1004
        return 0


def _check_params(kind: str, body: dict[str, Any]) -> str | None:
    unknown = sorted(set(body) - FIELDS[kind])
    if unknown:
        return f"{kind} does not take {', '.join(unknown)}"
    model = body.get("model_name", "kling-v1")
    if model not in MODELS[kind]:
        return f"model_name {model!r} is not supported by {kind}"
    for name in ("prompt", "negative_prompt"):
        if not isinstance(body.get(name, ""), str) or len(body.get(name, "")) > MAX_TEXT:
            return f"{name} must be a string of at most {MAX_TEXT} characters"
    if kind == "text2video" and not body.get("prompt"):
        return "prompt must not be empty"
    mode, sound = body.get("mode", "std"), body.get("sound", "off")
    if mode not in ("std", "pro"):
        return "mode must be std or pro"
    if sound not in ("on", "off"):
        return "sound must be on or off"
    if sound == "on" and mode not in SOUND_MODES.get(model, ()):
        return f"sound is not supported by {model} in {mode} mode"
    if "image_tail" in body:
        if kind != "image2video" or mode not in TAIL_MODES.get(model, ()):
            return f"image_tail is not supported by {model} {kind} in {mode} mode"
        if model == "kling-v2-6" and sound == "on":
            return "image_tail is not supported with sound on"
    if kind == "text2video" and body.get("aspect_ratio", "16:9") not in ("16:9", "9:16", "1:1"):
        return "aspect_ratio must be one of 16:9, 9:16, 1:1"
    duration = body.get("duration", "5")
    allowed = {str(d) for d in range(3, 16)} if model == "kling-v3" else {"5", "10"}
    if not isinstance(duration, str) or duration not in allowed:
        return f"duration {duration!r} is not supported by {model}"
    cfg = body.get("cfg_scale")
    if cfg is not None and (model.startswith("kling-v2") or not 0 <= float(cfg) <= 1):
        return "cfg_scale is not supported by this model or out of [0, 1]"
    return None


async def _check_image(kind: str, body: dict[str, Any]) -> str | None:
    if kind == "text2video":
        return None
    for name in ("image", "image_tail") if "image_tail" in body else ("image",):
        problem = await _check_one_image(name, body.get(name))
        if problem is not None:
            return problem
    return None


async def _check_one_image(name: str, image: object) -> str | None:
    if not isinstance(image, str) or not image:
        return f"{name} must not be empty"
    if image.startswith("data:"):
        return f"{name} base64 must not carry a data: prefix"
    if image.startswith(("http://", "https://")):
        async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
            try:
                response = await client.get(image)
            except httpx.HTTPError:
                return f"{name} url cannot be accessed"
        if response.status_code != 200:
            return f"{name} url cannot be accessed"
        data = response.content
    else:
        try:
            data = base64.b64decode(image, validate=True)
        except (binascii.Error, ValueError):
            return f"{name} is neither a URL nor valid base64"
    if len(data) > MAX_IMAGE_BYTES:
        return f"{name} file size exceeds 10MB"
    size = image_size(data)
    if size is None:
        return f"{name} format must be jpg, jpeg or png"
    width, height = size
    if min(width, height) < MIN_IMAGE_SIDE:
        return f"{name} resolution {width}x{height} is too small, minimum {MIN_IMAGE_SIDE}px"
    if name == "image" and not 1 / 2.5 <= width / height <= 2.5:
        return "image aspect ratio must be between 1:2.5 and 2.5:1"
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG or JPEG, or None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if not data.startswith(b"\xff\xd8"):
        return None
    offset = 2
    while offset + 9 < len(data):
        if data[offset] != 0xFF:
            return None
        marker = data[offset + 1]
        length = int.from_bytes(data[offset + 2 : offset + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[offset + 5 : offset + 9])
            return int(width), int(height)
        offset += 2 + length
    return None


def _envelope(status: int, code: int, message: str, data: object = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message, "request_id": str(uuid.uuid4())}
    if data is not None:
        body["data"] = data
    return JSONResponse(body, status_code=status)


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def error_body(code: int, message: str) -> dict[str, Any]:
    """Kling's error envelope, for faults injected through the plan."""
    return {"code": code, "message": message, "request_id": str(uuid.uuid4())}
