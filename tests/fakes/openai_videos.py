"""A fake OpenAI-style `/v1/videos` upstream (the Sora 2 Videos API wire format).

Paths, Bearer auth, the multipart or JSON create body, the `Video` object, its status
vocabulary (queued -> in_progress -> completed | failed), the `/content` download, list and
delete, and OpenAI's error body `{"error": {"message", "type", "param", "code"}}` follow the
official SDK's types (openai 3.54.0: `types/video*.py`, `resources/videos.py`).

Scenario knobs: `polls_to_finish`, `moderate_prompts_containing` (400 moderation_blocked at
create), `fail_jobs_with = (code, message)` (the job fails on its first poll),
`never_finish`, `models` (accepted model names; None accepts any).
"""

from __future__ import annotations

import base64
import io
import json
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, sample_mp4
from tests.fakes.openai_videos_extend import extended_fields, extension_problem

SECONDS = ("4", "8", "12")
# The SDK's literal, then the 1080p sizes OpenAI's guide listed for Sora 2 Pro late in its life.
SIZES = ("720x1280", "1280x720", "1024x1792", "1792x1024", "1080x1920", "1920x1080")
FIELDS = ("model", "prompt", "seconds", "size", "input_reference")
IMAGE_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


@dataclass
class CreateCall:
    """What one POST /v1/videos carried."""

    encoding: str  # "multipart" or "json"
    fields: dict[str, str]
    headers: dict[str, str]
    image: bytes | None = None
    image_type: str | None = None  # the part's Content-Type
    image_filename: str | None = None
    image_size: tuple[int, int] | None = None
    body: dict[str, Any] = field(default_factory=dict)  # the JSON body, or the form's fields


@dataclass
class FakeOpenAIVideos:
    api_key: str = "test-key"
    models: frozenset[str] | None = None
    seconds: tuple[str, ...] = SECONDS  # what `seconds` takes (a reseller may take more)
    sizes: tuple[str, ...] = SIZES  # what `size` takes (sora-2 took only the 720p two)
    polls_to_finish: int = 2
    moderate_prompts_containing: str | None = None
    fail_jobs_with: tuple[str, str] | None = None
    never_finish: bool = False
    plan: FaultPlan = field(default_factory=FaultPlan)
    videos: dict[str, dict[str, Any]] = field(default_factory=dict)
    polls: dict[str, int] = field(default_factory=dict)
    created: list[CreateCall] = field(default_factory=list)
    submitted: list[dict[str, Any]] = field(default_factory=list)  # each accepted create's body
    deleted: list[str] = field(default_factory=list)
    extended: set[str] = field(default_factory=set)  # videos made by POST /videos/extensions

    def app(self) -> FaultInjector:
        routes = [
            Route("/v1/videos", self._create, methods=["POST"]),
            Route("/v1/videos/extensions", self._extend, methods=["POST"]),
            Route("/v1/videos", self._list, methods=["GET"]),
            Route("/v1/videos/{video_id}", self._retrieve, methods=["GET"]),
            Route("/v1/videos/{video_id}", self._delete, methods=["DELETE"]),
            Route("/v1/videos/{video_id}/content", self._content, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints --------------------------------------------------------------------------

    async def _create(self, request: Request) -> Response:
        if (denied := self._check_auth(request)) is not None:
            return denied
        try:
            call = await _parse_create(request)
        except _BadRequest as exc:
            return exc.response
        if (invalid := self._validate(call)) is not None:
            return invalid
        self.created.append(call)
        self.submitted.append(call.body or dict(call.fields))
        video_id = "video_" + secrets.token_hex(16)
        self.videos[video_id] = queued_video(video_id, call.fields)
        self.polls[video_id] = 0
        return json_answer(self.videos[video_id])

    async def _extend(self, request: Request) -> Response:
        if (denied := self._check_auth(request)) is not None:
            return denied
        body = await request.json()
        problem = extension_problem(body, self.videos, self.seconds)
        if problem is not None:
            status, message, param = problem
            return error_answer(status, message, param=param)
        self.submitted.append(body)
        video_id = "video_" + secrets.token_hex(16)
        self.videos[video_id] = queued_video(
            video_id, extended_fields(body, self.videos[body["video"]["id"]])
        )
        self.extended.add(video_id)
        self.polls[video_id] = 0
        return json_answer(self.videos[video_id])

    async def _retrieve(self, request: Request) -> Response:
        if (denied := self._check_auth(request)) is not None:
            return denied
        video = self.videos.get(request.path_params["video_id"])
        if video is None:
            return _not_found(request.path_params["video_id"])
        self._advance(video)
        return json_answer(video)

    async def _content(self, request: Request) -> Response:
        if (denied := self._check_auth(request)) is not None:
            return denied
        video = self.videos.get(request.path_params["video_id"])
        if video is None:
            return _not_found(request.path_params["video_id"])
        variant = request.query_params.get("variant", "video")
        if variant not in ("video", "thumbnail", "spritesheet"):
            return error_answer(
                400, f"Invalid value: '{variant}'.", param="variant", code="invalid_value"
            )
        if video["status"] != "completed":
            return error_answer(
                400, f"Video {video['id']} is not ready yet (status {video['status']})."
            )
        if variant == "video":
            # An extension's content is the whole video: as long as its `seconds`.
            seconds = float(video["seconds"]) if video["id"] in self.extended else 1.0
            return Response(
                sample_mp4(seconds), media_type="video/mp4", headers=request_id_header()
            )
        return Response(_webp(), media_type="image/webp", headers=request_id_header())

    async def _list(self, request: Request) -> Response:
        if (denied := self._check_auth(request)) is not None:
            return denied
        order = request.query_params.get("order", "desc")
        limit = int(request.query_params.get("limit", "20"))
        ordered = list(self.videos.values())  # insertion order is creation order
        if order == "desc":
            ordered.reverse()
        after = request.query_params.get("after")
        if after is not None:
            ids = [v["id"] for v in ordered]
            ordered = ordered[ids.index(after) + 1 :] if after in ids else []
        page = ordered[:limit]
        return json_answer(
            {
                "object": "list",
                "data": page,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
                "has_more": len(ordered) > limit,
            }
        )

    async def _delete(self, request: Request) -> Response:
        if (denied := self._check_auth(request)) is not None:
            return denied
        video_id = request.path_params["video_id"]
        if self.videos.pop(video_id, None) is None:
            return _not_found(video_id)
        self.deleted.append(video_id)
        return json_answer({"id": video_id, "object": "video.deleted", "deleted": True})

    # --- behaviour --------------------------------------------------------------------------

    def _check_auth(self, request: Request) -> Response | None:
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer "):
            return error_answer(
                401,
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            )
        if header.removeprefix("Bearer ") != self.api_key:
            shown = header.removeprefix("Bearer ")[:3] + "*" * 8
            return error_answer(
                401, f"Incorrect API key provided: {shown}.", code="invalid_api_key"
            )
        return None

    def _validate(self, call: CreateCall) -> Response | None:
        fields = call.fields
        for name in fields:
            if name not in FIELDS:
                return error_answer(
                    400, f"Unknown parameter: '{name}'.", param=name, code="unknown_parameter"
                )
        prompt = fields.get("prompt")
        if not prompt:
            return error_answer(
                400,
                "Missing required parameter: 'prompt'.",
                param="prompt",
                code="missing_required_parameter",
            )
        model = fields.get("model", "sora-2")
        if self.models is not None and model not in self.models:
            return _invalid_value("model", model, sorted(self.models))
        if fields.get("seconds", "4") not in self.seconds:
            return _invalid_value("seconds", fields["seconds"], self.seconds)
        size = fields.get("size", "720x1280")
        if size not in self.sizes:
            return _invalid_value("size", size, self.sizes)
        if self.moderate_prompts_containing and self.moderate_prompts_containing in prompt:
            return error_answer(
                400,
                "Your request was blocked by our moderation system.",
                code="moderation_blocked",
            )
        if call.image is not None:
            return _check_image(call, size)
        return None

    def _advance(self, video: dict[str, Any]) -> None:
        if video["status"] in ("completed", "failed"):
            return
        polls = self.polls[video["id"]] = self.polls.get(video["id"], 0) + 1
        now = int(time.time())
        if self.fail_jobs_with is not None:
            code, message = self.fail_jobs_with
            video.update(
                status="failed", error={"code": code, "message": message}, completed_at=now
            )
        elif self.never_finish or polls < self.polls_to_finish:
            video.update(
                status="in_progress", progress=min(99, polls * 100 // (self.polls_to_finish + 1))
            )
        else:
            video.update(status="completed", progress=100, completed_at=now, expires_at=now + 3600)


# --- request parsing --------------------------------------------------------------------------


class _BadRequest(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


async def _parse_create(request: Request) -> CreateCall:
    content_type = request.headers.get("content-type", "")
    raw = await request.body()
    headers = dict(request.headers)
    if content_type.startswith("application/json"):
        try:
            data = json.loads(raw)
        except ValueError:
            raise _BadRequest(
                error_answer(400, "We could not parse the JSON body of your request.")
            ) from None
        if not isinstance(data, dict):
            raise _BadRequest(error_answer(400, "The body of your request must be a JSON object."))
        body = dict(data)  # the parsed fields, before input_reference is taken out
        reference = data.pop("input_reference", None)
        for name, value in data.items():
            if not isinstance(value, str):  # `seconds` too: the API takes "8", never 8
                raise _BadRequest(
                    error_answer(
                        400,
                        f"Invalid type for '{name}': expected a string, but got "
                        f"{type(value).__name__} instead.",
                        param=name,
                        code="invalid_type",
                    )
                )
        call = CreateCall("json", {k: str(v) for k, v in data.items()}, headers, body=body)
        if isinstance(reference, dict) and isinstance(reference.get("image_url"), str):
            _attach_data_uri(call, reference["image_url"])
        elif reference is not None:
            raise _BadRequest(
                error_answer(
                    400,
                    "input_reference must be an object with image_url or file_id.",
                    param="input_reference",
                )
            )
        return call
    if content_type.startswith("multipart/form-data"):
        call = CreateCall("multipart", {}, headers)
        for name, filename, part_type, payload in _multipart(content_type, raw):
            if name == "input_reference" and filename is not None:
                call.image, call.image_type, call.image_filename = payload, part_type, filename
            elif name == "input_reference[image_url]":
                _attach_data_uri(call, payload.decode())
            else:
                call.fields[name] = payload.decode()
        return call
    raise _BadRequest(
        error_answer(
            400,
            f"Unsupported content type: '{content_type}'. This API method only accepts "
            "'application/json' and 'multipart/form-data' requests.",
        )
    )


def _attach_data_uri(call: CreateCall, uri: str) -> None:
    header, _, payload = uri.partition(",")
    if not header.startswith("data:") or not header.endswith(";base64"):
        raise _BadRequest(
            error_answer(
                400,
                "input_reference.image_url must be a base64 data URL here.",
                param="input_reference",
            )
        )
    call.image = base64.b64decode(payload)
    call.image_type = header[5:].removesuffix(";base64")


def _multipart(content_type: str, body: bytes) -> list[tuple[str, str | None, str | None, bytes]]:
    """(name, filename, content type, payload) of each part; exact, byte for byte."""
    match = re.search(r'boundary="?([^";]+)"?', content_type)
    if match is None:
        raise _BadRequest(error_answer(400, "The multipart body has no boundary."))
    parts = []
    for chunk in body.split(b"--" + match[1].encode())[1:]:
        if chunk.startswith(b"--"):
            break
        head, _, payload = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        text = head.decode("utf-8", "replace")
        name = re.search(r'name="([^"]*)"', text)
        filename = re.search(r'filename="([^"]*)"', text)
        ctype = re.search(r"(?im)^content-type:\s*(\S+)", text)
        parts.append(
            (
                name[1] if name else "",
                filename[1] if filename else None,
                ctype[1] if ctype else None,
                payload.removesuffix(b"\r\n"),
            )
        )
    return parts


def _check_image(call: CreateCall, size: str) -> Response | None:
    assert call.image is not None
    try:
        with Image.open(io.BytesIO(call.image)) as image:
            kind, dimensions = image.format, image.size
    except OSError:
        kind, dimensions = None, None
    if kind not in IMAGE_TYPES or dimensions is None:
        return error_answer(
            400,
            "Invalid file format. Supported formats are: 'image/jpeg', 'image/png', and 'image/webp'.",
            param="input_reference",
            code="invalid_value",
        )
    call.image_size = dimensions
    width, height = (int(n) for n in size.split("x"))
    if dimensions != (width, height):
        return error_answer(400, "Inpaint image must match the requested width and height")
    return None


# --- responses --------------------------------------------------------------------------------


def queued_video(video_id: str, fields: dict[str, str]) -> dict[str, Any]:
    """A new video object, as the create call answers it."""
    return {
        "id": video_id,
        "object": "video",
        "model": fields.get("model", "sora-2"),
        "status": "queued",
        "progress": 0,
        "created_at": int(time.time()),
        "completed_at": None,
        "expires_at": None,
        "error": None,
        "prompt": fields["prompt"],
        "remixed_from_video_id": None,
        "seconds": fields.get("seconds", "4"),
        "size": fields.get("size", "720x1280"),
    }


def request_id_header() -> dict[str, str]:
    return {"x-request-id": "req_" + secrets.token_hex(16)}


def json_answer(body: object, status: int = 200) -> Response:
    return JSONResponse(body, status_code=status, headers=request_id_header())


def error_answer(
    status: int,
    message: str,
    type_: str = "invalid_request_error",
    *,
    param: str | None = None,
    code: str | None = None,
) -> Response:
    return json_answer(
        {"error": {"message": message, "type": type_, "param": param, "code": code}}, status
    )


def _invalid_value(param: str, value: str, allowed: Any) -> Response:
    options = ", ".join(f"'{a}'" for a in allowed)
    return error_answer(
        400,
        f"Invalid value: '{value}'. Supported values are: {options}.",
        param=param,
        code="invalid_value",
    )


def _not_found(video_id: str) -> Response:
    return error_answer(404, f"Video with id '{video_id}' not found.", param="video_id")


def _webp() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 36), (40, 90, 160)).save(out, format="WEBP")
    return out.getvalue()
