"""A fake of the PixVerse Platform API (`app-api.pixverse.ai/openapi/v2`), written from
/work/shared/providers/pixverse.md and PixVerse's own MCP client (pixverse-mcp 0.2.2, which
needs Python 3.12: it cannot drive this fake here).

- Every call needs `API-KEY` and an `Ai-trace-id`; answers are HTTP 200 with `{"ErrCode",
  "ErrMsg", "Resp"}` (errors too: 400012 "Invalid API-KEY", 400017 "Invalid parameter").
- `POST /image/upload` (multipart `image`): a PNG/JPEG -> `Resp.img_id`, `img_url`.
- `POST /video/text/generate`, `/video/img/generate`, `/video/transition/generate`: the body is
  checked against the documented fields of the model (unknown fields refused), its durations
  and qualities; `Resp.video_id` (a large integer). 500044 past `max_concurrent` unfinished
  videos, 500090 `out_of_credits`, 500063 for a moderated prompt (`moderate_at_create`).
- `POST /video/fusion/generate` (`image_references` of uploaded images, 1-3, 5 or 8 s, not
  V6) and `/video/extend/generate` (`source_video_id` of a finished video of this fake):
  the answer is the new part only.
- `GET /video/result/{video_id}`: status 5 for `polls_to_finish` polls, then 1 with `url`, or
  7 (moderated) / 8 (failed); 500008 for an unknown id.
- `GET /cdn/{id}.mp4`: the video, without the key.
`signed_webhook()` builds a delivery as PixVerse signs it (its own implementation).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, is_png_or_jpeg, sample_mp4

API = "/openapi/v2"
QUALITIES = ("360p", "540p", "720p", "1080p")
RATIOS5 = ("16:9", "4:3", "1:1", "3:4", "9:16")
RATIOS_V6 = (*RATIOS5, "2:3", "3:2", "21:9")
COMMON = {"model", "prompt", "duration", "quality", "seed", "style", "template_id", "motion_mode"}
COMMON |= {"camera_movement"}
NEW = {"generate_audio_switch", "generate_multi_clip_switch", "thinking_type"}
OLD = {"negative_prompt", "water_mark"}


@dataclass(frozen=True)
class Model:
    durations: tuple[int, ...]
    ratios: tuple[str, ...]
    fields: frozenset[str]  # beyond COMMON
    short_at_1080p: tuple[int, ...] | None = None  # durations allowed at 1080p, if fewer


MODELS = {
    "v6": Model(tuple(range(1, 16)), RATIOS_V6, frozenset(NEW)),
    "v5.6": Model((5, 8, 10), RATIOS5, frozenset(NEW), (5, 8)),
    "v5.5": Model((5, 8, 10), RATIOS5, frozenset(NEW), (5, 8)),
    "v5": Model((5, 8), RATIOS5, frozenset(OLD)),
    "v4.5": Model((5, 8), RATIOS5, frozenset(OLD), (5,)),
}
ENDPOINT_FIELDS = {
    "text": {"aspect_ratio"},
    "img": {"img_id"},
    "transition": {"first_frame_img", "last_frame_img"},
    "fusion": {"aspect_ratio", "image_references"},
    "extend": {"source_video_id", "video_media_id"},
}
ENDPOINT_REQUIRED = {
    "text": set(),
    "img": {"img_id"},
    "transition": ENDPOINT_FIELDS["transition"],
    "fusion": {"aspect_ratio", "image_references"},
    "extend": set(),  # one of source_video_id, video_media_id
}
# Fusion on v4.5 and later but not V6, 1-3 references, 5 or 8 s (the fusion guide; the V6
# capability table); extend on the models whose row says so.
FUSION_MODELS = ("v5.6", "v5.5", "v5", "v4.5")
EXTEND_MODELS = ("v6", "v5.5", "v5", "v4.5")


@dataclass
class Video:
    id: int
    body: dict[str, Any]
    polls: int = 0
    status: int = 5
    ends_with: int = 1  # 1 success, 7 moderated, 8 failed


@dataclass
class PixverseFake:
    api_key: str = "test-key"
    polls_to_finish: int = 1
    max_concurrent: int = 5
    moderate_prompts_containing: str | None = None
    moderate_at_create: bool = False  # 500063 at create instead of status 7
    out_of_credits: bool = False
    never_finish: bool = False
    fail_jobs: bool = False  # every new video ends with status 8
    plan: FaultPlan = field(default_factory=FaultPlan)
    tasks: dict[int, Video] = field(default_factory=dict)
    images: dict[int, bytes] = field(default_factory=dict)
    trace_ids: list[str] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(318466123456789))

    @property
    def submitted(self) -> list[dict[str, Any]]:
        return [video.body for video in self.tasks.values()]

    def app(self) -> FaultInjector:
        routes = [
            Route(f"{API}/image/upload", self._upload, methods=["POST"]),
            Route(f"{API}/video/{{kind}}/generate", self._generate, methods=["POST"]),
            Route(f"{API}/video/result/{{id}}", self._result, methods=["GET"]),
            Route("/cdn/{id}.mp4", self._video, methods=["GET"]),
        ]
        return FaultInjector(Starlette(routes=routes), self.plan)

    # --- endpoints ------------------------------------------------------------------------

    async def _upload(self, request: Request) -> Response:
        refused = self._check(request)
        if refused is not None:
            return refused
        form = await request.form()
        image = form.get("image")
        if not isinstance(image, UploadFile):
            return _fail(400017, "Invalid parameter: image is required")
        data = await image.read()
        if not is_png_or_jpeg(data):
            return _fail(500031, "Unsupported image format")
        img_id = next(self._ids)
        self.images[img_id] = data
        return _ok({"img_id": img_id, "img_url": f"{request.base_url}img/{img_id}.png"})

    async def _generate(self, request: Request) -> Response:
        refused = self._check(request)
        if refused is not None:
            return refused
        kind = request.path_params["kind"]
        if kind not in ENDPOINT_FIELDS:
            return _fail(400017, f"Invalid parameter: no {kind} endpoint here")
        try:
            body = await request.json()
        except ValueError:
            return _fail(400013, "Invalid binding request")
        problem = self._validate(kind, body)
        if problem is not None:
            return _fail(400017, f"Invalid parameter: {problem}")
        if self.out_of_credits:
            return _fail(500090, "Insufficient balance")
        running = [v for v in self.tasks.values() if v.status == 5]
        if len(running) >= self.max_concurrent:
            return _fail(500044, "Reached the limit for concurrent generations")
        word = self.moderate_prompts_containing
        flagged = bool(word) and str(word).lower() in body["prompt"].lower()
        if flagged and self.moderate_at_create:
            return _fail(500063, "Content moderation failed")
        video = Video(next(self._ids), body, ends_with=7 if flagged else 8 if self.fail_jobs else 1)
        self.tasks[video.id] = video
        return _ok({"video_id": video.id, "credits": 60})

    async def _result(self, request: Request) -> Response:
        refused = self._check(request)
        if refused is not None:
            return refused
        raw = request.path_params["id"]
        video = self.tasks.get(int(raw)) if raw.isdigit() else None
        if video is None:
            return _fail(500008, "data not found")
        if video.status == 5 and not self.never_finish:
            video.polls += 1
            if video.polls > self.polls_to_finish:
                video.status = video.ends_with
        answer: dict[str, Any] = {
            "id": video.id,
            "status": video.status,
            "prompt": video.body["prompt"],
            "seed": video.body.get("seed", 0),
            "outputWidth": 1280,
            "outputHeight": 720,
            "resolution_ratio": 720,
            "create_time": "2026-11-26T10:00:00Z",
            "modify_time": "2026-11-26T10:01:10Z",
        }
        if video.status == 1:
            answer |= {"url": f"{request.base_url}cdn/{video.id}.mp4", "size": 5833216}
        return _ok(answer)

    async def _video(self, request: Request) -> Response:
        return Response(sample_mp4(), media_type="video/mp4")

    # --- behaviour -------------------------------------------------------------------------

    def _check(self, request: Request) -> Response | None:
        if request.headers.get("api-key") != self.api_key:
            return _fail(400012, "Invalid API-KEY")
        trace = request.headers.get("ai-trace-id")
        if not trace:
            return _fail(400017, "Invalid parameter: Ai-trace-id is required")
        self.trace_ids.append(trace)
        return None

    def _validate(self, kind: str, body: object) -> str | None:
        if not isinstance(body, dict):
            return "the body must be a JSON object"
        model = MODELS.get(str(body.get("model")))
        if model is None:
            return f"model must be one of {', '.join(MODELS)}"
        unknown = sorted(set(body) - COMMON - model.fields - ENDPOINT_FIELDS[kind])
        if unknown:
            return f"unknown fields {', '.join(unknown)}"
        missing = sorted(({"prompt", "duration", "quality"} | ENDPOINT_REQUIRED[kind]) - set(body))
        if missing:
            return f"missing {', '.join(missing)}"
        prompt = body["prompt"]
        if not isinstance(prompt, str) or not prompt or len(prompt) > 2048:
            return "prompt must be 1 to 2048 characters"
        if body["quality"] not in QUALITIES:
            return "quality"
        allowed = model.durations
        if body["quality"] == "1080p" and model.short_at_1080p:
            allowed = model.short_at_1080p
        if body["duration"] not in allowed:
            return f"duration {body['duration']} at {body['quality']}"
        if kind == "text" and body.get("aspect_ratio", "16:9") not in model.ratios:
            return "aspect_ratio"
        seed = body.get("seed", 0)
        if not isinstance(seed, int) or not 0 <= seed <= 2_147_483_647:
            return "seed"
        if "generate_audio_switch" in body and not isinstance(body["generate_audio_switch"], bool):
            return "generate_audio_switch"
        for name in ("img_id", "first_frame_img", "last_frame_img"):
            if name in body and body[name] not in self.images:
                return f"{name} is not an uploaded image"
        if kind == "fusion":
            return self._fusion(body)
        if kind == "extend":
            return self._extend(body)
        return None

    def _fusion(self, body: dict[str, Any]) -> str | None:
        if body["model"] not in FUSION_MODELS:
            return f"fusion is not supported on model {body['model']}"
        if body["duration"] not in (5, 8):
            return "fusion duration must be 5 or 8"
        refs = body["image_references"]
        if not isinstance(refs, list) or not 1 <= len(refs) <= 3:
            return "image_references takes 1 to 3 items"
        for ref in refs:
            if not isinstance(ref, dict) or set(ref) != {"type", "img_id", "ref_name"}:
                return "each image reference is {type, img_id, ref_name}"
            if ref["type"] not in ("subject", "background") or ref["img_id"] not in self.images:
                return "image reference type or img_id"
            name = ref["ref_name"]
            if not isinstance(name, str) or not name or " " in name:
                return "ref_name must be a name the prompt can mention as @name"
        return None

    def _extend(self, body: dict[str, Any]) -> str | None:
        if body["model"] not in EXTEND_MODELS:
            return f"extend is not supported on model {body['model']}"
        if body["model"] != "v6" and body["duration"] not in (5, 8):
            return "extend duration must be 5 or 8"
        given = [n for n in ("source_video_id", "video_media_id") if n in body]
        if len(given) != 1:
            return "choose either source_video_id or video_media_id, not both"
        if given == ["video_media_id"]:
            return "video_media_id is not an uploaded video"  # this fake takes no uploads
        source = self.tasks.get(body["source_video_id"])
        if source is None or source.status != 1:
            return "source_video_id is not a finished video"
        return None


def signed_webhook(
    secret: str, payload: dict[str, Any], *, timestamp: int | None = None, nonce: str = ""
) -> tuple[dict[str, str], bytes]:
    """(headers, body) of a webhook as PixVerse sends it: the body's fields as a sorted,
    URL-encoded query string, signed with HMAC-SHA256 and Base64."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    nonce = nonce or secrets.token_hex(16)
    pairs = []
    for key in sorted(payload):
        value = payload[key]
        text = (
            ("true" if value else "false")
            if isinstance(value, bool)
            else value
            if isinstance(value, str)
            else json.dumps(value)
        )
        pairs.append(f"{quote_plus(key)}={quote_plus(text)}")
    message = f"{stamp}\n{nonce}\n{'&'.join(pairs)}".encode()
    signature = base64.b64encode(hmac.new(secret.encode(), message, hashlib.sha256).digest())
    headers = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": stamp,
        "Webhook-Nonce": nonce,
        "Webhook-Signature": signature.decode(),
        "Ai-Trace-Id": secrets.token_hex(16),
    }
    return headers, json.dumps(payload).encode()


def envelope(code: int, message: str, resp: object | None = None) -> dict[str, Any]:
    return {"ErrCode": code, "ErrMsg": message, "Resp": {} if resp is None else resp}


def _ok(resp: dict[str, Any]) -> JSONResponse:
    return JSONResponse(envelope(0, "success", resp))


def _fail(code: int, message: str) -> JSONResponse:
    return JSONResponse(envelope(code, message))  # HTTP 200, as PixVerse answers errors
