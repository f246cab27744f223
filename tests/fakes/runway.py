"""A fake of Runway's developer API (api.dev.runwayml.com, X-Runway-Version 2024-11-06).

It speaks the wire format the official `runwayml` SDK (5.24) sends and parses:

    POST   /v1/text_to_video, /v1/image_to_video  -> 200 {"id", "estimatedCost": {"credits"}}
    POST   /v1/video_to_video (aleph2: `runway_inputs.py`)  -> the same
    GET    /v1/tasks/{id}  -> {"id", "status", "createdAt", "progress"?, "output"?, "failure"?,
                               "failureCode"?, "estimatedCost" | "cost"}
    DELETE /v1/tasks/{id}  -> 204; a task that has not finished becomes CANCELLED
    GET    /_outputs/{id}/video.mp4?_jwt=...  the presigned result (no Authorization needed)

Errors have Runway's shape: 400 `{"error": "Validation of body failed", "issues": [...],
"docUrl": ...}`, 400 `{"error": "You do not have enough credits to run this task."}`, 401.
Bodies are checked per model like Runway's strict schemas (a field the model does not take,
an `audio` or `negativePrompt` on Gen-4.x, is an unrecognized key); `submitted` keeps each
accepted body.

Scenario knobs: `polls_to_finish`, `throttled_polls`, `moderate_prompts_containing`,
`never_finish`, `fail_jobs_with`, `credits`. Faults: `plan` (a FaultPlan).
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, has_credential, sample_mp4
from tests.fakes.runway_inputs import validate_edit

API_VERSION = "2024-11-06"
DOC_URL = "https://docs.dev.runwayml.com/api"
MAX_DATA_URI = 5 * 1024 * 1024
ALL_RATIOS = ("1280:720", "720:1280", "1104:832", "960:960", "832:1104", "1584:672")
# What the served sample looks like for each ratio (small, but the right shape).
SAMPLE_SIZES = {"1280:720": (320, 180), "720:1280": (180, 320), "960:960": (240, 240)}


# What runwayml 5.24.0's Gen4_5 / Gen4Turbo params take (promptImage only on image_to_video).
GEN4_FIELDS = frozenset(
    {"model", "promptText", "promptImage", "ratio", "duration", "seed", "contentModeration"}
)


@dataclass(frozen=True)
class ModelSchema:
    ratios: tuple[str, ...]
    credits_per_second: int
    duration_required: bool
    prompt_required: bool
    fields: frozenset[str] = GEN4_FIELDS


# (endpoint, model) -> schema, from runwayml's *_create_params.py
SCHEMAS = {
    ("text_to_video", "gen4.5"): ModelSchema(("1280:720", "720:1280"), 12, True, True),
    ("image_to_video", "gen4.5"): ModelSchema(ALL_RATIOS, 12, True, True),
    ("image_to_video", "gen4_turbo"): ModelSchema(ALL_RATIOS, 5, False, False),
    # 15 credits/s: gen4_aleph's price (aleph2's is unpublished); the other fields: validate_edit
    ("video_to_video", "aleph2"): ModelSchema((), 15, False, False),
}


@dataclass
class FakeTask:
    id: str
    endpoint: str
    body: dict[str, Any]
    credits: int
    created_at: str
    status: str = "PENDING"
    polls: int = 0
    progress: float = 0.0
    input_failure: tuple[str, str] | None = None  # (failureCode, failure) found in the inputs
    token: str = field(default_factory=lambda: secrets.token_urlsafe(12))


class RunwayFake:
    def __init__(self, api_key: str = "test-key") -> None:
        self.api_key = api_key
        self.plan = FaultPlan()
        self.polls_to_finish = 2  # GETs answered PENDING / RUNNING before the task ends
        self.throttled_polls = 0  # GETs answered THROTTLED first
        self.moderate_prompts_containing: str | None = None
        self.never_finish = False
        self.fail_jobs_with: tuple[str, str] | None = None  # (failureCode, failure)
        self.credits = 1_000_000
        self.tasks: dict[str, FakeTask] = {}
        self.created: list[tuple[str, dict[str, Any]]] = []  # accepted (endpoint, body)
        self.submitted: list[dict[str, Any]] = []  # accepted bodies
        self.deleted: list[str] = []
        self.headers_seen: list[dict[str, str]] = []  # of API requests
        self.download_headers: list[dict[str, str]] = []  # of result downloads
        self.app = FaultInjector(
            Starlette(
                routes=[
                    Route("/v1/text_to_video", self._create, methods=["POST"]),
                    Route("/v1/image_to_video", self._create, methods=["POST"]),
                    Route("/v1/video_to_video", self._create, methods=["POST"]),
                    Route("/v1/tasks/{task_id}", self._get_task, methods=["GET"]),
                    Route("/v1/tasks/{task_id}", self._delete_task, methods=["DELETE"]),
                    Route("/_outputs/{task_id}/video.mp4", self._download, methods=["GET"]),
                ]
            ),
            self.plan,
        )

    # --- endpoints --------------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        refused = self._gate(request)
        if refused is not None:
            return refused
        endpoint = request.url.path.rsplit("/", 1)[-1]
        try:
            body = json.loads(await request.body())
        except ValueError:
            return _error(400, "Invalid JSON body")
        if not isinstance(body, dict):
            return _invalid([_issue("invalid_type", [], "Invalid input: expected object")])
        schema = SCHEMAS.get((endpoint, body.get("model")))  # type: ignore[arg-type]
        if schema is None:
            return _invalid(
                [
                    {
                        "code": "invalid_union",
                        "errors": [],
                        "note": "No matching discriminator",
                        "discriminator": "model",
                        "path": ["model"],
                        "message": "Invalid input",
                    }
                ]
            )
        edit = endpoint == "video_to_video"
        issues = validate_edit(body) if edit else _validate(body, endpoint, schema)
        if issues:
            return _invalid(issues)
        duration = body.get("duration", 10)
        credits = schema.credits_per_second * duration
        if credits > self.credits:
            return _error(400, "You do not have enough credits to run this task.")
        self.credits -= credits
        task = FakeTask(
            str(uuid.uuid4()),
            endpoint,
            body,
            credits,
            datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            input_failure=self._input_failure(body),
        )
        self.tasks[task.id] = task
        self.created.append((endpoint, body))
        self.submitted.append(body)
        return JSONResponse({"id": task.id, "estimatedCost": {"credits": credits}})

    async def _get_task(self, request: Request) -> Response:
        refused = self._gate(request)
        if refused is not None:
            return refused
        task = self.tasks.get(request.path_params["task_id"])
        if task is None:
            return _error(404, "Task not found")
        self._advance(task)
        return JSONResponse(self._task_json(task, request))

    async def _delete_task(self, request: Request) -> Response:
        refused = self._gate(request)
        if refused is not None:
            return refused
        task_id = request.path_params["task_id"]
        task = self.tasks.get(task_id)
        if task is None:
            return _error(404, "Task not found")
        self.deleted.append(task_id)
        if task.status in ("PENDING", "THROTTLED", "RUNNING"):
            task.status = "CANCELLED"  # still readable, as CANCELLED
        else:
            del self.tasks[task_id]  # a finished task is deleted
        return Response(status_code=204)

    async def _download(self, request: Request) -> Response:
        self.download_headers.append({k.lower(): v for k, v in request.headers.items()})
        task = self.tasks.get(request.path_params["task_id"])
        if task is None or task.status != "SUCCEEDED":
            return Response(b"<Error><Code>NoSuchKey</Code></Error>", 404)
        if request.query_params.get("_jwt") != task.token:
            return Response(b"<Error><Code>AccessDenied</Code></Error>", 403)
        width, height = SAMPLE_SIZES.get(task.body.get("ratio", ""), (320, 180))
        return Response(sample_mp4(1.0, width, height), media_type="video/mp4")

    # --- behaviour --------------------------------------------------------------------------

    def _gate(self, request: Request) -> Response | None:
        self.headers_seen.append({k.lower(): v for k, v in request.headers.items()})
        if not has_credential(request, self.api_key):
            return _error(401, "Invalid API key.")
        version = request.headers.get("x-runway-version")
        if version is None:
            return _error(400, "The X-Runway-Version header is required.")
        if version != API_VERSION:
            return _error(
                400,
                "The API version that was provided in the X-Runway-Version header is not valid.",
            )
        return None

    def _input_failure(self, body: dict[str, Any]) -> tuple[str, str] | None:
        word = self.moderate_prompts_containing
        if word and word.lower() in str(body.get("promptText", "")).lower():
            return ("SAFETY.INPUT.TEXT", "The prompt was flagged by content moderation.")
        image = _first_frame(body.get("promptImage"))
        if image is not None and image.startswith("data:") and not _plausible_image(image):
            return (
                "ASSET.INVALID",
                "The image could not be decoded or has unsupported dimensions.",
            )
        return None

    def _advance(self, task: FakeTask) -> None:
        if task.status in ("SUCCEEDED", "FAILED", "CANCELLED"):
            return
        task.polls += 1
        if task.polls <= self.throttled_polls:
            task.status = "THROTTLED"
        elif task.input_failure is not None:
            task.status = "FAILED"
        elif self.never_finish:
            task.status = "RUNNING"
            task.progress = min(0.9, task.progress + 0.05)
        elif task.polls == self.throttled_polls + 1 and self.polls_to_finish > 0:
            task.status = "PENDING"
        elif task.polls < self.throttled_polls + self.polls_to_finish + 1:
            task.status = "RUNNING"
            task.progress = min(0.95, task.progress + 0.4)
        elif self.fail_jobs_with is not None:
            task.status = "FAILED"
        else:
            task.status = "SUCCEEDED"

    def _task_json(self, task: FakeTask, request: Request) -> dict[str, Any]:
        out: dict[str, Any] = {"id": task.id, "status": task.status, "createdAt": task.created_at}
        if task.status in ("PENDING", "THROTTLED", "RUNNING"):
            out["estimatedCost"] = {"credits": task.credits}
        else:
            out["cost"] = {"credits": task.credits if task.status == "SUCCEEDED" else 0}
        if task.status == "RUNNING":
            out["progress"] = round(task.progress, 2)
        elif task.status == "SUCCEEDED":
            base = str(request.base_url).rstrip("/")
            out["output"] = [f"{base}/_outputs/{task.id}/video.mp4?_jwt={task.token}"]
        elif task.status == "FAILED":
            code, failure = task.input_failure or self.fail_jobs_with or ("INTERNAL", "Failed")
            out["failure"] = failure
            out["failureCode"] = code
        return out


# --- validation, as Runway's body validator answers ------------------------------------------


def _validate(body: dict[str, Any], endpoint: str, schema: ModelSchema) -> list[dict[str, Any]]:
    issues: list[dict[str, Any]] = []
    unknown = sorted(set(body) - schema.fields)
    if unknown:
        keys = ", ".join(f'"{k}"' for k in unknown)
        label = "key" if len(unknown) == 1 else "keys"
        issues.append(_issue("unrecognized_keys", [], f"Unrecognized {label}: {keys}"))
    prompt = body.get("promptText")
    if prompt is None:
        if schema.prompt_required:
            issues.append(_issue("invalid_type", ["promptText"], "Invalid input: expected string"))
    elif not isinstance(prompt, str):
        issues.append(_issue("invalid_type", ["promptText"], "Invalid input: expected string"))
    elif not prompt:
        issues.append(
            _issue("too_small", ["promptText"], "Too small: expected string to be non-empty")
        )
    elif len(prompt.encode("utf-16-le")) // 2 > 1000:
        issues.append(
            _issue("too_big", ["promptText"], "Too big: expected at most 1000 characters")
        )
    ratio = body.get("ratio")
    if ratio not in schema.ratios:
        options = "|".join(f'"{r}"' for r in schema.ratios)
        issues.append(
            _issue("invalid_value", ["ratio"], f"Invalid option: expected one of {options}")
        )
    duration = body.get("duration")
    if duration is None:
        if schema.duration_required:
            issues.append(_issue("invalid_type", ["duration"], "Invalid input: expected number"))
    elif isinstance(duration, bool) or not isinstance(duration, int):
        issues.append(_issue("invalid_type", ["duration"], "Invalid input: expected int"))
    elif not 2 <= duration <= 10:
        issues.append(_issue("too_big", ["duration"], "Duration must be from 2 to 10 seconds"))
    seed = body.get("seed")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 4294967295
    ):
        issues.append(_issue("invalid_type", ["seed"], "Invalid input: expected int"))
    if endpoint == "image_to_video":
        image = _first_frame(body.get("promptImage"))
        if any(p != "first" for p in _positions(body.get("promptImage"))):
            # Gen-4.x take only a first frame ("last" is for Runway's Veo 3.1 models).
            issues.append(_issue("invalid_value", ["promptImage", "position"], 'Expected "first"'))
        if image is None:
            issues.append(_issue("invalid_type", ["promptImage"], "Invalid input"))
        elif image.startswith("data:"):
            if len(image) > MAX_DATA_URI:
                issues.append(_issue("too_big", ["promptImage"], "Data URIs must be at most 5MB"))
            elif _decode(image) is None:
                issues.append(_issue("invalid_format", ["promptImage"], "Invalid data URI"))
        elif not image.startswith("https://"):
            issues.append(_issue("invalid_format", ["promptImage"], "Invalid URL: must be HTTPS"))
    elif "promptImage" in body:
        issues.append(_issue("unrecognized_keys", [], 'Unrecognized key: "promptImage"'))
    return issues


def _positions(value: object) -> list[object]:
    return (
        [i.get("position") for i in value if isinstance(i, dict)] if isinstance(value, list) else []
    )


def _first_frame(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and item.get("position") == "first":
                uri = item.get("uri")
                return uri if isinstance(uri, str) else None
    return None


def _decode(uri: str) -> bytes | None:
    header, _, payload = uri.partition(",")
    if not (header.startswith("data:image/") and header.endswith(";base64")):
        return None
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return None


def _plausible_image(uri: str) -> bool:
    """A PNG with a sane IHDR (aspect ratio 0.5-2, as Runway requires) or a whole JPEG."""
    data = _decode(uri) or b""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        width = int.from_bytes(data[16:20], "big")
        height = int.from_bytes(data[20:24], "big")
        return width > 0 and height > 0 and 0.5 <= width / height <= 2.0
    return data.startswith(b"\xff\xd8\xff") and data.rstrip(b"\x00").endswith(b"\xff\xd9")


def _issue(code: str, path: list[str], message: str) -> dict[str, Any]:
    return {"code": code, "path": path, "message": message}


def _invalid(issues: list[dict[str, Any]]) -> JSONResponse:
    return JSONResponse(
        {"error": "Validation of body failed", "issues": issues, "docUrl": DOC_URL}, 400
    )


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "docUrl": DOC_URL}, status)
