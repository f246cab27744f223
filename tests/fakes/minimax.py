"""A fake MiniMax Open Platform video API (api.minimax.io), speaking its wire format.

Three steps, as platform.minimax.io documents them: `POST /v1/video_generation` ->
`{task_id, base_resp}`; `GET /v1/query/video_generation?task_id=` -> `status` Preparing,
Queueing, Processing, then Success (with `file_id`, `video_width`, `video_height`) or Fail;
`GET /v1/files/retrieve?file_id=` -> `{file: {file_id, bytes, created_at, filename, purpose,
download_url}, base_resp}`. The download URL is pre-signed (no Authorization) and serves the
MP4. Errors come as HTTP 200 with a non-zero `base_resp.status_code`, except a missing or
wrong key, answered 401. Every answer carries a `Trace-Id` header.

Scenario knobs: `polls_before_done`, `never_finish`, `moderate_prompts_containing` (submit
answers 1026), `moderate_output_containing` (the task ends Fail with 1027),
`fail_jobs_with` (the task ends Fail with this (code, message)), `reject_images` (2013 for
any first frame), `submit_errors` (base_resp errors for the next submits, e.g. 1002).
S2V-01 takes one `subject_reference` character image and no duration or resolution.
"""

from __future__ import annotations

import base64
import binascii
import io
import itertools
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, UnidentifiedImageError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, has_credential, sample_mp4

OK = {"status_code": 0, "status_msg": "success"}
# model -> the resolutions it renders (platform.minimax.io text-to-video / image-to-video)
RESOLUTIONS = {
    "MiniMax-Hailuo-2.3": ("768P", "1080P"),
    "MiniMax-Hailuo-2.3-Fast": ("768P", "1080P"),
    "MiniMax-Hailuo-02": ("512P", "768P", "1080P"),
}
IMAGE_ONLY = {"MiniMax-Hailuo-2.3-Fast"}
LAST_FRAME = {"MiniMax-Hailuo-02"}  # the first-and-last-frame reference's only model
SUBJECT = "S2V-01"  # the subject reference's only model: one character image
# The V1 create body's fields (shared/providers/minimax.md). MiniMax's answer to a field
# outside them is unpublished; the fake refuses it (2013) so that a control sent under a
# wrong name (`negative_prompt`, `seed`, `last_frame`) fails the test that sent it.
FIELDS = {
    "model", "prompt", "prompt_optimizer", "fast_pretreatment", "duration", "resolution",
    "callback_url", "first_frame_image", "last_frame_image", "subject_reference",
}  # fmt: skip
SAMPLE_SIZE = (320, 180)  # what sample_mp4() renders


@dataclass
class Task:
    id: str
    body: dict[str, Any]
    polls: int = 0
    file_id: str | None = None
    failure: tuple[int, str] | None = None


@dataclass
class MinimaxFake:
    api_key: str = "test-key"
    polls_before_done: int = 3  # Preparing, Queueing, Processing..., then Success
    never_finish: bool = False
    moderate_prompts_containing: str | None = None
    moderate_output_containing: str | None = None
    fail_jobs_with: tuple[int, str] | None = None
    reject_images: bool = False
    submit_errors: list[tuple[int, str]] = field(default_factory=list)
    plan: FaultPlan = field(default_factory=FaultPlan)
    tasks: dict[str, Task] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # file_id -> task_id
    submitted: list[dict[str, Any]] = field(default_factory=list)  # accepted create bodies
    downloads: int = 0
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(106916112212032))

    def app(self) -> FaultInjector:
        routes = [
            Route("/v1/video_generation", self._create, methods=["POST"]),
            Route("/v1/query/video_generation", self._query, methods=["GET"]),
            Route("/v1/files/retrieve", self._retrieve, methods=["GET"]),
            Route("/download/{name}", self._download, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    @property
    def created(self) -> list[dict[str, Any]]:
        """The older name of `submitted`."""
        return self.submitted

    # --- endpoints ------------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        try:
            body = await request.json()
        except ValueError:
            return _answer({"task_id": "", "base_resp": _code(2013, "invalid params, bad json")})
        if not isinstance(body, dict):
            return _answer({"task_id": "", "base_resp": _code(2013, "invalid params")})
        if self.submit_errors:
            code, message = self.submit_errors.pop(0)
            return _answer({"task_id": "", "base_resp": _code(code, message)})
        problem = self._validate(body)
        if problem is not None:
            return _answer({"task_id": "", "base_resp": _code(2013, f"invalid params, {problem}")})
        prompt = str(body.get("prompt") or "")
        words = self.moderate_prompts_containing
        if words and words in prompt:
            return _answer(
                {"task_id": "", "base_resp": _code(1026, "input new_sensitive, please modify")}
            )
        task = Task(str(next(self._ids)), body)
        self.tasks[task.id] = task
        self.submitted.append(body)
        return _answer({"task_id": task.id, "base_resp": OK})

    async def _query(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        task = self.tasks.get(request.query_params.get("task_id", ""))
        if task is None:
            return _answer(
                {"task_id": "", "status": "", "base_resp": _code(2013, "task not found")}
            )
        task.polls += 1
        answer: dict[str, Any] = {"task_id": task.id}
        steps = ("Preparing", "Queueing", "Processing")
        if self.never_finish or task.polls <= self.polls_before_done:
            answer["status"] = steps[min(task.polls - 1, len(steps) - 1)]
            return _answer({**answer, "base_resp": OK})
        failure = task.failure or self._failure_for(task)
        if failure is not None:
            task.failure = failure
            return _answer({**answer, "status": "Fail", "base_resp": _code(*failure)})
        if task.file_id is None:
            task.file_id = str(next(self._ids))
            self.files[task.file_id] = task.id
        width, height = SAMPLE_SIZE
        return _answer(
            {
                **answer,
                "status": "Success",
                "file_id": task.file_id,
                "video_width": width,
                "video_height": height,
                "base_resp": OK,
            }
        )

    async def _retrieve(self, request: Request) -> Response:
        if (denied := self._auth(request)) is not None:
            return denied
        file_id = request.query_params.get("file_id", "")
        if not file_id.isdigit():  # documented as an int64
            return _answer({"base_resp": _code(2013, "invalid params, file_id")})
        if file_id not in self.files:
            return _answer({"base_resp": _code(1000, "file not found")})
        expires = int(time.time()) + 9 * 3600
        url = (
            f"{str(request.base_url).rstrip('/')}/download/output_aigc_{file_id}.mp4"
            f"?Expires={expires}&Signature={secrets.token_urlsafe(12)}"
        )
        file = {
            "file_id": int(file_id),
            "bytes": len(sample_mp4()),
            "created_at": int(time.time()),
            "filename": "output_aigc.mp4",
            "purpose": "video_generation",
            "download_url": url,
        }
        return _answer({"file": file, "base_resp": OK})

    async def _download(self, request: Request) -> Response:
        # A pre-signed object-store link: no Authorization, but it must carry its signature.
        if "Expires" not in request.query_params or "Signature" not in request.query_params:
            return Response(b"<Error><Code>AccessDenied</Code></Error>", 403)
        self.downloads += 1
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour ------------------------------------------------------------------------

    def _auth(self, request: Request) -> Response | None:
        if has_credential(request, self.api_key):
            return None
        message = "login fail: Please carry the API secret key in the 'Authorization' field"
        return _answer({"base_resp": _code(1004, message)}, status=401)

    def _validate(self, body: dict[str, Any]) -> str | None:
        unknown = sorted(set(body) - FIELDS)
        if unknown:
            return f"unknown field {', '.join(unknown)}"
        model = body.get("model")
        if model == SUBJECT or "subject_reference" in body:
            return self._validate_subject(body)
        if model not in RESOLUTIONS:
            return f"model {model!r} not supported"
        prompt = body.get("prompt")
        image = body.get("first_frame_image")
        if model in IMAGE_ONLY and not image:
            return f"{model} requires first_frame_image"
        if prompt is None and not image:
            return "prompt is required"
        if prompt is not None and (not isinstance(prompt, str) or len(prompt) > 2000):
            return "prompt must be a string of at most 2000 characters"
        duration = body.get("duration", 6)
        if duration not in (6, 10) or isinstance(duration, bool):
            return "duration must be 6 or 10"
        resolution = body.get("resolution", "768P")
        if resolution not in RESOLUTIONS[model]:
            return f"resolution {resolution!r} not supported by {model}"
        if resolution == "1080P" and duration != 6:
            return "1080P supports 6 s only"
        if resolution == "512P" and not image:
            return "512P is for image-to-video only"
        if not isinstance(body.get("prompt_optimizer", True), bool):
            return "prompt_optimizer must be a boolean"
        last = body.get("last_frame_image")
        if last is not None:
            if model not in LAST_FRAME:
                return f"last_frame_image not supported by {model}"
            if resolution == "512P":
                return "512P is not supported from a first and last frame"
            if image is None:
                return "first_frame_image is required with last_frame_image"
        for name, frame in (("first_frame_image", image), ("last_frame_image", last)):
            if frame is not None and (problem := self._check_image(frame, name)) is not None:
                return problem
        return None

    def _validate_subject(self, body: dict[str, Any]) -> str | None:
        if body.get("model") != SUBJECT:
            return f"subject_reference is supported by {SUBJECT} only"
        extra = sorted(set(body) & {"duration", "resolution", "first_frame_image"})
        if extra:
            return f"{SUBJECT} does not take {', '.join(extra)}"
        prompt = body.get("prompt")
        if not isinstance(prompt, str) or not prompt or len(prompt) > 2000:
            return "prompt must be a string of 1 to 2000 characters"
        references = body.get("subject_reference")
        if not isinstance(references, list) or len(references) != 1:
            return "subject_reference must hold one subject"
        subject = references[0]
        if not isinstance(subject, dict) or set(subject) != {"type", "image"}:
            return "a subject is {type, image}"
        if subject["type"] != "character":
            return "subject_reference type must be character"
        images = subject["image"]
        if not isinstance(images, list) or len(images) != 1:
            return "subject_reference image must hold one image"
        return self._check_image(images[0], "subject_reference.image")

    def _check_image(self, image: object, name: str) -> str | None:
        if self.reject_images:
            return f"{name} could not be processed"
        if not isinstance(image, str):
            return f"{name} must be a string"
        if image.startswith(("http://", "https://")):
            return None  # MiniMax fetches it; the fake trusts it
        header, _, payload = image.partition(",")
        if header not in (
            "data:image/jpeg;base64",
            "data:image/png;base64",
            "data:image/webp;base64",
        ):
            return f"{name} must be a URL or a base64 data URI (jpeg, png, webp)"
        try:
            data = base64.b64decode(payload, validate=True)
            with Image.open(io.BytesIO(data)) as picture:
                width, height = picture.size
        except (binascii.Error, ValueError, UnidentifiedImageError, OSError):
            return f"{name} is not a readable image"
        if len(data) >= 20 * 1024 * 1024:
            return f"{name} is larger than 20MB"
        if min(width, height) <= 300 or not 0.4 <= width / height <= 2.5:
            return f"{name} must have a short side over 300px and a 2:5-5:2 ratio"
        return None

    def _failure_for(self, task: Task) -> tuple[int, str] | None:
        words = self.moderate_output_containing
        if words and words in str(task.body.get("prompt") or ""):
            return 1027, "output new_sensitive"
        return self.fail_jobs_with


def _code(code: int, message: str) -> dict[str, Any]:
    return {"status_code": code, "status_msg": message}


def _answer(body: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={"Trace-Id": secrets.token_hex(16)})
