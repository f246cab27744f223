"""A fake of Vidu's API (platform.vidu.com/docs; no official Python SDK: the official MCP
server `shengshu-ai/vidu-mcp` shows the client side), written from ../shared/providers/vidu.md.

- `POST /ent/v2/text2video | img2video | start-end2video | reference2video`, key in
  `Authorization: Token <key>`: 200 with the task echo (`task_id` an 18-digit string, `state:
  created`). Checked as Vidu documents: the fields of each endpoint (another is
  `FieldUnwanted`), the models each endpoint serves, durations and resolutions per model,
  the image count per endpoint (`FieldItemCountOutOfRange`), images as http(s) URLs or
  `data:image/...;base64,` URIs.
- `GET /ent/v2/tasks/{id}/creations`: `created` -> `queueing` -> `processing` (at most
  `concurrency` tasks at once; the others wait in `queueing`) -> `success` with
  `creations[0].url`, or `failed` with `err_code`.
- `POST /ent/v2/tasks/{id}/cancel` `{"id"}`: `{}` while the task has not started (it ends
  `failed` / `UserCancelled`), else 400 BadRequest "task state is scheduled, can not cancel".
- Callbacks: with a `callback_url`, each state change to processing, success or failed is
  POSTed there (the body of the GET), signed as Vidu signs them with the task's key.
- `GET /results/{id}.mp4`: the video (public, like Vidu's CDN links).
Errors: `{"code", "reason", "message", "metadata": {"trace_id"}}`.

Knobs: `moderate_prompts_containing` (400 TaskPromptPolicyViolation), `moderate_outputs_
containing` (failed / CreationPolicyViolation), `fail_jobs_with` (an err_code),
`out_of_credits` (400 CreditInsufficient), `expire_results` (a finished task's creation is
gone: 404 CreationNotFound), `never_finish`, `polls_to_finish`, `concurrency`.
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import hmac
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, Refused, has_credential, sample_mp4

API = "/ent/v2"
Q3 = (tuple(range(1, 17)), ("540p", "720p", "1080p"))
Q2 = (tuple(range(1, 11)), ("540p", "720p", "1080p"))
Q1 = ((5,), ("1080p",))
OLD = ((4, 8), ("360p", "720p", "1080p"))
# The models each endpoint serves, with their durations and resolutions (vidu.md, "Models").
ENDPOINTS: dict[str, dict[str, tuple[tuple[int, ...], tuple[str, ...]]]] = {
    "text2video": {"viduq3-pro": Q3, "viduq3-turbo": Q3, "viduq2": Q2, "viduq1": Q1, "vidu1.5": OLD},
    "img2video": {
        "viduq3-pro": Q3, "viduq3-turbo": Q3, "viduq2-pro": Q2, "viduq2-turbo": Q2,
        "viduq1": Q1, "viduq1-classic": Q1, "vidu2.0": OLD, "vidu1.5": OLD,
    },
    "start-end2video": {
        "viduq3-pro": Q3, "viduq3-turbo": Q3, "viduq2-pro": Q2, "viduq2-turbo": Q2,
        "viduq1": Q1, "vidu2.0": OLD, "vidu1.5": OLD,
    },
    "reference2video": {"viduq2": Q2, "viduq1": Q1, "vidu2.0": OLD, "vidu1.5": OLD},
}  # fmt: skip
IMAGES = {"text2video": (0, 0), "img2video": (1, 1), "start-end2video": (2, 2)}
IMAGES["reference2video"] = (1, 7)
RATIOS = ("16:9", "9:16", "1:1", "3:4", "4:3")
# The documented request fields (the q3 text-to-video page and the parameter tables resellers
# copy from Vidu); each endpoint adds its own.
COMMON = {
    "model", "prompt", "duration", "seed", "resolution", "movement_amplitude", "bgm", "audio",
    "payload", "off_peak", "callback_url", "watermark", "wm_position", "wm_url", "meta_data",
}  # fmt: skip
FIELDS = {
    # new-api's Vidu adapter sends `"images": null` to text2video: taken when empty.
    "text2video": COMMON | {"aspect_ratio", "style", "images"},
    "img2video": COMMON | {"images", "voice_id", "is_rec"},
    "start-end2video": COMMON | {"images", "is_rec"},
    "reference2video": COMMON | {"images", "subjects", "videos", "aspect_ratio", "voice_id"},
}
BOOLEANS = ("bgm", "audio", "off_peak", "watermark", "is_rec")


@dataclass
class FakeTask:
    id: str
    kind: str
    body: dict[str, Any]
    key: str  # the token that created it: the callbacks' signing secret
    state: str = "created"
    err_code: str = ""
    polls: int = 0


@dataclass
class ViduFake:
    api_key: str = "test-key"
    polls_to_finish: int = 2  # polls in `processing` before the end
    concurrency: int = 5  # tasks processing at once per organisation
    never_finish: bool = False
    moderate_prompts_containing: str | None = None
    moderate_outputs_containing: str | None = None
    fail_jobs_with: str | None = None
    out_of_credits: bool = False
    expire_results: bool = False
    plan: FaultPlan = field(default_factory=FaultPlan)
    tasks: dict[str, FakeTask] = field(default_factory=dict)
    submitted: list[dict[str, Any]] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)
    callbacks: list[tuple[str, int]] = field(default_factory=list)  # (state, answer status)

    def app(self) -> FaultInjector:
        routes = [
            *(Route(f"{API}/{kind}", self._create, methods=["POST"]) for kind in ENDPOINTS),
            Route(f"{API}/tasks/{{id}}/creations", self._get, methods=["GET"]),
            Route(f"{API}/tasks/{{id}}/cancel", self._cancel, methods=["POST"]),
            Route("/results/{id}.mp4", self._video, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints ----------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        kind = request.url.path.rsplit("/", 1)[1]
        try:
            self._authorise(request)
            try:
                body = await request.json()
            except ValueError as exc:
                raise Refused(400, "BadRequest", "invalid JSON body") from exc
            _validate(kind, body)
            if self.out_of_credits:
                raise Refused(400, "CreditInsufficient", "credit insufficient")
            word = self.moderate_prompts_containing
            if word and word in str(body.get("prompt", "")):
                raise Refused(400, "TaskPromptPolicyViolation", "prompt violates the policy")
        except Refused as refused:
            return _error(refused)
        task = FakeTask(str(random.randint(10**17, 10**18 - 1)), kind, body, self.api_key)
        self.tasks[task.id] = task
        self.submitted.append(body)
        echo = {k: v for k, v in body.items() if k != "callback_url"}
        return JSONResponse(
            {
                "task_id": task.id,
                "type": kind,
                "state": "created",
                **echo,
                "payload": body.get("payload", ""),
                "credits": 20,
                "created_at": "2026-11-26T10:00:00.002012956Z",
            }
        )

    async def _get(self, request: Request) -> Response:
        try:
            self._authorise(request)
            task = self._task(request)
        except Refused as refused:
            return _error(refused)
        before = task.state
        self._advance(task)
        if task.state == "success" and self.expire_results:
            return _error(Refused(404, "CreationNotFound", "creation not found"))
        answer = self._public(task, str(request.base_url).rstrip("/"))
        if task.state != before and task.state in ("processing", "success", "failed"):
            await self._deliver(task, answer)
        return JSONResponse(answer)

    async def _cancel(self, request: Request) -> Response:
        try:
            self._authorise(request)
            task = self._task(request)
            body = await request.json()
            if not isinstance(body, dict) or body.get("id") != task.id:
                raise Refused(400, "FieldInvalid", "id does not match the task")
        except Refused as refused:
            return _error(refused)
        self.cancels.append(task.id)
        if task.state not in ("created", "queueing"):
            return _error(Refused(400, "BadRequest", f"task state is {task.state}, can not cancel"))
        task.state, task.err_code = "failed", "UserCancelled"
        return JSONResponse({})

    async def _video(self, request: Request) -> Response:
        if request.path_params["id"] not in self.tasks:
            return Response(b"", 404)
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour ----------------------------------------------------------------------

    def _authorise(self, request: Request) -> None:
        if not has_credential(request, self.api_key, scheme="Token"):
            raise Refused(401, "Unauthorized", "invalid token")

    def _task(self, request: Request) -> FakeTask:
        task = self.tasks.get(request.path_params["id"])
        if task is None:
            raise Refused(404, "TaskNotFound", "task not found")
        return task

    def _advance(self, task: FakeTask) -> None:
        if task.state in ("success", "failed"):
            return
        if task.state == "created":
            task.state = "queueing"
            return
        if task.state == "queueing":
            running = sum(t.state == "processing" for t in self.tasks.values())
            if running < self.concurrency:
                task.state = "processing"
            return
        task.polls += 1
        if self.never_finish or task.polls <= self.polls_to_finish:
            return
        word = self.moderate_outputs_containing
        if word and word in str(task.body.get("prompt", "")):
            task.state, task.err_code = "failed", "CreationPolicyViolation"
        elif self.fail_jobs_with is not None:
            task.state, task.err_code = "failed", self.fail_jobs_with
        else:
            task.state = "success"

    def _public(self, task: FakeTask, base: str) -> dict[str, Any]:
        creations = []
        if task.state == "success":
            url = f"{base}/results/{task.id}.mp4"
            creations = [{"id": "creation_1", "url": url, "cover_url": url + ".jpg"}]
        return {
            "id": task.id,
            "state": task.state,
            "err_code": task.err_code,
            "credits": 20 if task.state == "success" else 0,
            "payload": task.body.get("payload", ""),
            "bgm": bool(task.body.get("bgm", False)),
            "off_peak": bool(task.body.get("off_peak", False)),
            "creations": creations,
        }

    async def _deliver(self, task: FakeTask, answer: dict[str, Any]) -> None:
        url = task.body.get("callback_url")
        if not isinstance(url, str) or not url:
            return
        headers = signed_headers(task.key, "POST", url)
        try:
            async with httpx.AsyncClient(timeout=5.0, trust_env=False) as client:
                response = await client.post(url, json=answer, headers=headers)
            self.callbacks.append((task.state, response.status_code))
        except httpx.HTTPError:
            self.callbacks.append((task.state, 0))


def signed_headers(
    token: str, method: str, url: str, *, date: str | None = None, nonce: str | None = None
) -> dict[str, str]:
    """The headers Vidu signs a callback with (platform.vidu.com/docs/callback-signature)."""
    date = date or email.utils.formatdate(time.time(), usegmt=True)
    nonce = nonce or str(uuid.uuid4())
    parts = urlsplit(url)
    text = (
        f"{method}\n{parts.path or '/'}\n{parts.query}\nvidu\n{date}\n"
        f"Date:{date}\nx-request-nonce:{nonce}\n"
    )
    digest = hmac.new(token.encode(), text.encode(), hashlib.sha256).digest()
    return {
        "Date": date,
        "x-request-nonce": nonce,
        "X-HMAC-SIGNED-HEADERS": "Date;x-request-nonce",
        "X-HMAC-SIGNATURE": base64.b64encode(digest).decode(),
        "X-HMAC-ALGORITHM": "hmac-sha256",
        "X-HMAC-ACCESS-KEY": "vidu",
    }


# --- validation, as Vidu documents its fields ------------------------------------------------


def _validate(kind: str, body: Any) -> None:
    if not isinstance(body, dict):
        raise Refused(400, "BadRequest", "the body must be a JSON object")
    unwanted = sorted(set(body) - FIELDS[kind])
    if unwanted:
        raise Refused(400, "FieldUnwanted", f"field(s) {', '.join(unwanted)} not wanted")
    if "model" not in body:
        raise Refused(400, "FieldLacking", "field model is lacking")
    spec = ENDPOINTS[kind].get(body["model"])
    if spec is None:
        raise Refused(400, "ModelUnavailable", f"model {body['model']} is not available")
    durations, resolutions = spec
    prompt = body.get("prompt")
    if kind in ("text2video", "reference2video") and not prompt:
        raise Refused(400, "FieldLacking", "field prompt is lacking")
    if prompt is not None and (not isinstance(prompt, str) or len(prompt) > 5000):
        raise Refused(400, "FieldInvalid", "prompt: a string of at most 5000 characters")
    duration = body.get("duration", durations[0] if len(durations) < 3 else 5)
    if not isinstance(duration, int) or isinstance(duration, bool) or duration not in durations:
        raise Refused(400, "FieldInvalid", f"duration {duration!r} is invalid for the model")
    if (
        body.get("resolution", "720p" if "720p" in resolutions else resolutions[0])
        not in resolutions
    ):
        raise Refused(400, "FieldInvalid", "resolution is invalid for the model")
    if body.get("aspect_ratio", "16:9") not in RATIOS:
        raise Refused(400, "FieldInvalid", "aspect_ratio is invalid")
    seed = body.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise Refused(400, "FieldInvalid", "seed must be a non-negative integer")
    for flag in BOOLEANS:
        if flag in body and not isinstance(body[flag], bool):
            raise Refused(400, "FieldInvalid", f"{flag} must be a boolean")
    payload = body.get("payload", "")
    if not isinstance(payload, str) or len(payload) > 1_048_576:
        raise Refused(400, "FieldInvalid", "payload: a string of at most 1048576 characters")
    if kind == "reference2video" and body.get("subjects") is not None:
        if body.get("images"):
            raise Refused(400, "FieldInvalid", "images and subjects cannot both be given")
        return  # subjects: not sent by our adapter, taken as they come
    _check_images(kind, body.get("images") or [])


def _check_images(kind: str, images: object) -> None:
    least, most = IMAGES[kind]
    if not isinstance(images, list) or not least <= len(images) <= most:
        raise Refused(400, "FieldItemCountOutOfRange", f"images: {least} to {most} items")
    for image in images:
        if not isinstance(image, str):
            raise Refused(400, "ImageFormatInvalid", "an image is a URL or a data URI")
        if image.startswith(("http://", "https://")):
            continue
        header, _, payload = image.partition(",")
        if not header.startswith("data:image/") or not header.endswith(";base64"):
            raise Refused(400, "ImageFormatInvalid", "base64 images need a data:image/ prefix")
        try:
            base64.b64decode(payload, validate=True)
        except ValueError as exc:
            raise Refused(400, "ImageFormatInvalid", "the image is not valid base64") from exc


def _error(refused: Refused) -> JSONResponse:
    body = {
        "code": refused.status,
        "reason": refused.code,
        "message": refused.message,
        "metadata": {"trace_id": uuid.uuid4().hex},
    }
    return JSONResponse(body, refused.status)
