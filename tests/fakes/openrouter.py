"""A fake of OpenRouter's asynchronous video API (openrouter.ai/api/v1/videos).

It speaks what the official `openrouter` SDK (1.3.84, `client.video_generation.*`) sends and
parses, and what OpenRouter's reference and video guide describe:

    POST /api/v1/videos               -> 202 {id: "gen-vid-...", polling_url, status: "pending"}
    GET  /api/v1/videos/{id}          -> {id, polling_url, status, error?, generation_id?,
                                          unsigned_urls?, usage: {cost, is_byok}?}
    GET  /api/v1/videos/{id}/content?index=0  -> the MP4 (video/mp4; the key is required)
    GET  /api/v1/videos/models        -> {data: [VideoModel...]} (no key needed)

Errors have OpenRouter's shape `{"error": {"code": <status>, "message", "metadata"?}}`;
statuses go pending -> in_progress -> completed | failed (also cancelled, expired). A job
with a `callback_url` is announced there when it ends, signed `X-OpenRouter-Signature:
t=<ts>,v1=<hex HMAC-SHA256(secret, "<ts>,<body>")>` with `X-OpenRouter-Idempotency-Key`.

Knobs: `polls_to_finish`, `never_finish`, `moderate_prompts_containing` (the job fails with
a safety message), `flag_prompts_containing` (403 at submit, OpenRouter's moderation),
`fail_jobs_with` (the job fails with this error), `expire_jobs`, `reject_images` (400 at
submit), `credits` (402 when spent), `webhook_secret`, `allow_http_callbacks`.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import secrets
import string
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.base import FaultInjector, FaultPlan, has_credential, sample_mp4

MAX_BODY = 50 * 1024 * 1024  # the documented request cap, checked against Content-Length
SAMPLE_SIZES = {"16:9": (320, 180), "9:16": (180, 320), "1:1": (240, 240)}


def _model(
    slug: str,
    name: str,
    durations: list[int],
    resolutions: list[str],
    ratios: list[str],
    frames: list[str],
    audio: bool | None,
    skus: dict[str, str],
    passthrough: list[str] | None = None,
    seed: bool = True,
) -> dict[str, Any]:
    """A VideoModel as `GET /videos/models` lists it (every field the SDK requires)."""
    return {
        "id": slug,
        "canonical_slug": slug + "-20260320",
        "name": name,
        "description": f"{name} video generation.",
        "created": 1774000000,
        "supported_durations": durations,
        "supported_resolutions": resolutions,
        "supported_aspect_ratios": ratios,
        "supported_sizes": None,
        "supported_frame_images": frames,
        "generate_audio": audio,
        "seed": seed,
        "upscale_factor": None,
        "creativity": None,
        "allowed_passthrough_parameters": passthrough or [],
        "pricing_skus": skus,
    }


# The models our catalog routes to, with OpenRouter's limits and SKUs (as listed 2026-10-09).
VEO_PASSTHROUGH = ["personGeneration", "aspectRatio", "negativePrompt", "conditioningScale",
                   "enhancePrompt"]  # fmt: skip
# The upstream slug `provider.options` is keyed by for each maker (OpenRouter's cookbook;
# Kling's is unconfirmed). OpenRouter forwards only the serving upstream's options.
SLUGS = {"google": "google-vertex", "alibaba": "alibaba", "minimax": "minimax",
         "bytedance": "byteplus", "runway": "runway", "kwaivgi": "kling"}  # fmt: skip
S2 = list(range(4, 16))
MODELS = {
    m["id"]: m
    for m in (
        _model(
            "google/veo-3.1",
            "Google: Veo 3.1",
            [4, 6, 8],
            ["720p", "1080p", "4K"],
            ["16:9", "9:16"],
            ["first_frame", "last_frame"],
            True,
            {
                "duration_seconds_with_audio": "0.40",
                "duration_seconds_with_audio_4k": "0.60",
                "duration_seconds_without_audio": "0.20",
                "duration_seconds_without_audio_4k": "0.40",
            },
            VEO_PASSTHROUGH,
        ),
        _model(
            "google/veo-3.1-fast",
            "Google: Veo 3.1 Fast",
            [4, 6, 8],
            ["720p", "1080p", "4K"],
            ["16:9", "9:16"],
            ["first_frame", "last_frame"],
            True,
            {
                "duration_seconds_with_audio": "0.12",
                "duration_seconds_with_audio_4k": "0.30",
                "duration_seconds_without_audio": "0.10",
                "duration_seconds_with_audio_720p": "0.10",
                "duration_seconds_without_audio_4k": "0.25",
                "duration_seconds_without_audio_720p": "0.08",
            },
            VEO_PASSTHROUGH,
        ),
        _model(
            "kwaivgi/kling-v3.0-pro",
            "Kling: Kling 3.0 Pro",
            list(range(3, 16)),
            ["720p"],
            ["16:9", "9:16", "1:1"],
            ["first_frame", "last_frame"],
            True,
            {
                "duration_seconds": "0.112",
                "duration_seconds_with_audio": "0.168",
                "text_to_video_duration_seconds_720p": "0.112",
                "image_to_video_duration_seconds_720p": "0.112",
            },
            ["negative_prompt", "cfg_scale"],
            seed=False,
        ),
        _model(
            "minimax/hailuo-2.3",
            "MiniMax: Hailuo 2.3",
            [6, 10],
            ["1080p"],
            ["16:9"],
            ["first_frame"],
            False,
            {"duration_seconds": "0.0817"},
            ["prompt_optimizer", "fast_pretreatment"],
            seed=False,
        ),
        _model(
            "bytedance/seedance-2.0",
            "ByteDance: Seedance 2.0",
            S2,
            ["480p", "720p", "1080p", "4K"],
            ["1:1", "3:4", "9:16", "4:3", "16:9", "21:9"],
            ["first_frame", "last_frame"],
            True,
            {
                "video_tokens": "0.000007",
                "video_tokens_1080p": "0.0000077",
                "video_tokens_without_audio": "0.000007",
            },
        ),
        _model(
            "bytedance/seedance-2.0-fast",
            "ByteDance: Seedance 2.0 Fast",
            S2,
            ["480p", "720p"],
            ["1:1", "9:16", "16:9"],
            ["first_frame", "last_frame"],
            True,
            {"video_tokens": "0.0000042", "video_tokens_without_audio": "0.0000042"},
        ),
        _model(
            "bytedance/seedance-2.0-mini",
            "ByteDance: Seedance 2.0 Mini",
            S2,
            ["480p", "720p"],
            ["1:1", "9:16", "16:9"],
            ["first_frame", "last_frame"],
            True,
            {"video_tokens": "0.0000035", "video_tokens_without_audio": "0.0000035"},
        ),
        _model(
            "bytedance/seedance-1-5-pro",
            "ByteDance: Seedance 1.5 Pro",
            list(range(4, 13)),
            ["480p", "720p", "1080p"],
            ["1:1", "9:16", "16:9"],
            ["first_frame", "last_frame"],
            True,
            {"video_tokens": "0.0000024", "video_tokens_without_audio": "0.0000012"},
        ),
        _model(
            "alibaba/wan-2.7",
            "Alibaba: Wan 2.7",
            list(range(2, 11)),
            ["720p", "1080p"],
            ["16:9", "9:16", "1:1", "4:3", "3:4"],
            ["first_frame", "last_frame"],
            True,
            {"duration_seconds": "0.1"},
            ["negative_prompt", "prompt_extend", "audio", "ratio", "last_image"],
        ),
        _model(
            "alibaba/wan-2.6",
            "Alibaba: Wan 2.6",
            [5, 10],
            ["720p", "1080p"],
            ["16:9", "9:16"],
            ["first_frame"],
            True,
            {
                "text_to_video_duration_seconds_720p": "0.08",
                "image_to_video_duration_seconds_720p": "0.10",
                "text_to_video_duration_seconds_1080p": "0.12",
                "image_to_video_duration_seconds_1080p": "0.15",
            },
        ),
        _model(
            "runway/gen-4.5",
            "Runway: Gen-4.5",
            list(range(2, 11)),
            ["720p"],
            ["16:9", "9:16"],
            ["first_frame"],
            False,
            {"cents_per_second_output": "12"},
        ),
    )
}


# xAI Grok Imagine (the 2026-09/10 listing snapshots in ../shared/providers/openrouter.md).
_GROK = _model(
    "x-ai/grok-imagine-video",
    "xAI: Grok Imagine Video",
    list(range(1, 16)),
    ["480p", "720p"],
    ["16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3"],
    ["first_frame"],
    False,
    {
        "cents_per_video_output_second_480p": "5",
        "cents_per_video_output_second_720p": "7",
        "cents_per_image_input": "0.2",
    },
    seed=False,
)
MODELS[_GROK["id"]] = _GROK


@dataclass
class Job:
    id: str
    body: dict[str, Any]
    created: float
    status: str = "pending"
    polls: int = 0
    error: str | None = None
    failure: str | None = None  # decided at submit (moderation)
    notified: bool = False


class OpenRouterFake:
    def __init__(self, api_key: str = "test-key") -> None:
        self.api_key = api_key
        self.plan = FaultPlan()
        self.polls_to_finish = 2  # GETs answered pending / in_progress before the job ends
        self.never_finish = False
        self.moderate_prompts_containing: str | None = None
        self.flag_prompts_containing: str | None = None
        self.fail_jobs_with: str | None = None
        self.expire_jobs = False
        self.reject_images = False
        self.credits = 1000.0
        self.webhook_secret = "whsec-openrouter-test"
        self.allow_http_callbacks = False
        self.jobs: dict[str, Job] = {}
        self.created: list[dict[str, Any]] = []  # accepted bodies
        self.submitted = self.created  # the name the controls harness reads
        # `provider.options` names OpenRouter would silently drop (wrong slug, not allowed)
        self.dropped: list[str] = []
        self.headers_seen: list[dict[str, str]] = []  # of API requests
        self.download_headers: list[dict[str, str]] = []
        self.callbacks: list[asyncio.Task[None]] = []
        self.callback_failures: list[str] = []
        self.app = FaultInjector(
            Starlette(
                routes=[
                    Route("/api/v1/videos/models", self._models, methods=["GET"]),
                    Route("/api/v1/videos", self._create, methods=["POST"]),
                    Route("/api/v1/videos/{job_id}", self._get, methods=["GET"]),
                    Route("/api/v1/videos/{job_id}/content", self._content, methods=["GET"]),
                ]
            ),
            self.plan,
        )

    # --- endpoints --------------------------------------------------------------------------

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"data": list(MODELS.values())})

    async def _create(self, request: Request) -> Response:
        if (refused := self._gate(request)) is not None:
            return refused
        if int(request.headers.get("content-length") or 0) > MAX_BODY:
            return _error(413, "Request body too large")
        try:
            body = json.loads(await request.body())
        except ValueError:
            return _error(400, "Invalid JSON body")
        if not isinstance(body, dict):
            return _error(400, "Expected a JSON object")
        problem = _validate(body) or self._callback_problem(body.get("callback_url"))
        if problem is not None:
            return _error(400, problem)
        if self.reject_images and (body.get("frame_images") or body.get("input_references")):
            return _error(400, "Invalid image in frame_images[0]: the image could not be decoded")
        prompt = str(body.get("prompt") or "")
        word = self.flag_prompts_containing
        if word and word in prompt:
            metadata = {
                "reasons": ["violence"],
                "flagged_input": prompt[:100],
                "provider_name": "OpenAI",
                "model_slug": body["model"],
            }
            message = f'{body["model"]} requires moderation. Your input was flagged for "violence".'
            return _error(403, message, metadata)
        cost = _price(body) * int(body.get("duration") or 8)
        if cost > self.credits:
            return _error(402, "Insufficient credits. Add more using https://openrouter.ai/credits")
        self.credits -= cost
        job = Job(_job_id(), body, time.time())
        word = self.moderate_prompts_containing
        if word and word in prompt:
            job.failure = "Video generation was blocked by the provider's safety filters"
        self.jobs[job.id] = job
        self.created.append(body)
        self.dropped += _dropped_passthrough(body)
        return JSONResponse(self._job_json(job, request), 202)

    async def _get(self, request: Request) -> Response:
        if (refused := self._gate(request)) is not None:
            return refused
        job = self.jobs.get(request.path_params["job_id"])
        if job is None:
            return _error(404, "Video generation job not found")
        self._advance(job)
        if job.status in ("completed", "failed", "expired") and not job.notified:
            job.notified = True
            if job.body.get("callback_url"):
                self.callbacks.append(asyncio.create_task(self._notify(job, request)))
        return JSONResponse(self._job_json(job, request))

    async def _content(self, request: Request) -> Response:
        self.download_headers.append({k.lower(): v for k, v in request.headers.items()})
        if (refused := self._gate(request)) is not None:
            return refused
        job = self.jobs.get(request.path_params["job_id"])
        if job is None:
            return _error(404, "Video generation job not found")
        if request.query_params.get("index", "0") != "0":
            return _error(400, "Output index out of range")
        if job.status == "expired":
            return _error(410, "The video outputs have expired")
        if job.status != "completed":
            return _error(409, f"Video generation is not complete (status: {job.status})")
        width, height = SAMPLE_SIZES.get(str(job.body.get("aspect_ratio")), (320, 180))
        return Response(sample_mp4(1.0, width, height), media_type="video/mp4")

    # --- behaviour --------------------------------------------------------------------------

    def _gate(self, request: Request) -> Response | None:
        self.headers_seen.append({k.lower(): v for k, v in request.headers.items()})
        if not has_credential(request, self.api_key):
            return _error(401, "No auth credentials found")
        return None

    def _advance(self, job: Job) -> None:
        if job.status not in ("pending", "in_progress"):
            return
        job.polls += 1
        if job.polls < self.polls_to_finish or self.never_finish:
            job.status = "pending" if job.polls == 1 else "in_progress"
        elif job.failure or self.fail_jobs_with:
            job.status, job.error = "failed", job.failure or self.fail_jobs_with
        elif self.expire_jobs:
            job.status, job.error = "expired", "The video outputs have expired"
        else:
            job.status = "completed"

    def _job_json(self, job: Job, request: Request) -> dict[str, Any]:
        base = str(request.base_url).rstrip("/")
        out: dict[str, Any] = {
            "id": job.id,
            "polling_url": f"{base}/api/v1/videos/{job.id}",
            "status": job.status,
        }
        if job.error is not None:
            out["error"] = job.error
        if job.status == "completed":
            out["generation_id"] = "gen-" + job.id.removeprefix("gen-vid-")
            out["unsigned_urls"] = [f"{base}/api/v1/videos/{job.id}/content?index=0"]
            out["usage"] = {
                "cost": _price(job.body) * int(job.body.get("duration") or 8),
                "is_byok": False,
            }
        return out

    async def _notify(self, job: Job, request: Request) -> None:
        event = {
            "type": f"video.generation.{job.status}",
            "created_at": datetime.now(UTC).isoformat(),
            "data": {**self._job_json(job, request), "model": job.body["model"]},
        }
        body = json.dumps(event).encode()
        stamp = str(int(time.time()))
        digest = _hmac(self.webhook_secret, f"{stamp},".encode() + body)
        headers = {
            "content-type": "application/json",
            "x-openrouter-signature": f"t={stamp},v1={digest}",
            "x-openrouter-idempotency-key": f"{job.id}-{job.status}",
        }
        try:
            async with httpx.AsyncClient(timeout=5) as client:
                await client.post(job.body["callback_url"], content=body, headers=headers)
        except httpx.HTTPError as exc:  # an unreachable receiver: OpenRouter gives up too
            self.callback_failures.append(f"{job.body['callback_url']}: {exc!r}")

    def _callback_problem(self, url: object) -> str | None:
        if url is None:
            return None
        if isinstance(url, str) and (
            url.startswith("https://") or (self.allow_http_callbacks and url.startswith("http"))
        ):
            return None
        return "callback_url must be an HTTPS URL"


# --- validation, as OpenRouter checks a request against the model's published limits ---------


# `VideoGenerationRequest`'s fields (spec 2026-08, SDK 1.3.84; shared/providers/openrouter.md).
# OpenRouter's answer to another is unpublished; the fake refuses it so that a control sent
# at the top level under a wrong name (`negative_prompt`, `end_image_url`) fails its test.
FIELDS = {
    "model", "prompt", "duration", "resolution", "aspect_ratio", "size", "generate_audio",
    "seed", "callback_url", "frame_images", "input_references", "provider",
    "previous_job_id", "session_id", "user", "trace", "upscale_factor", "creativity",
}  # fmt: skip


def _validate(body: dict[str, Any]) -> str | None:
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        return f"Unrecognized keys in body: {', '.join(unknown)}"
    if set(body.get("provider") or {}) - {"options"}:
        return "provider: only `options` is taken for video generation"
    model = MODELS.get(body.get("model"))
    if model is None:
        return f"{body.get('model')} is not a valid video model ID"
    frames = body.get("frame_images") or []
    prompt = body.get("prompt")
    if prompt is not None and (not isinstance(prompt, str) or not prompt.strip()):
        return "prompt must be a non-empty string"
    if prompt is None and not frames:
        return "prompt is required"
    for field, allowed in (
        ("duration", model["supported_durations"]),
        ("aspect_ratio", model["supported_aspect_ratios"]),
        ("resolution", model["supported_resolutions"]),
    ):
        value = body.get(field)
        if value is not None and (isinstance(value, bool) or value not in allowed):
            return f"Unsupported {field} {value!r} for {model['id']}; supported: {allowed}"
    if "generate_audio" in body and not isinstance(body["generate_audio"], bool):
        return "generate_audio must be a boolean"
    if body.get("generate_audio") is True and not model["generate_audio"]:
        return f"{model['id']} cannot generate audio"
    if "seed" in body:
        seed = body["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 4294967295:
            return "seed must be an integer between 0 and 4294967295"
        if not model["seed"]:
            return f"seed is not supported by {model['id']}"
    for index, frame in enumerate(frames):
        if not isinstance(frame, dict) or frame.get("type") != "image_url":
            return f"frame_images[{index}]: type must be image_url"
        if frame.get("frame_type") not in model["supported_frame_images"]:
            return f"frame_images[{index}]: unsupported frame_type for {model['id']}"
        if not _image_url_ok(frame.get("image_url")):
            return f"frame_images[{index}]: image_url.url must be an https or data URL"
    return _check_references(body.get("input_references") or [], str(model["id"]))


# `InputReference` (SDK 1.3.84): an image, audio or video part. Audio and video are "only
# honored by providers that support them (including BytePlus Seedance generation 2)"; where
# OpenRouter would drop them silently the fake refuses them, so that a test sending one to a
# model that ignores it fails.
MEDIA_REFERENCES = ("bytedance/seedance-2",)


def _check_references(references: list[Any], model: str) -> str | None:
    for index, ref in enumerate(references):
        kind = ref.get("type") if isinstance(ref, dict) else None
        if kind not in ("image_url", "video_url", "audio_url") or set(ref) != {"type", kind}:
            return f"input_references[{index}]: invalid reference"
        if kind == "image_url" and not _image_url_ok(ref.get("image_url")):
            return f"input_references[{index}]: invalid reference"
        url = ref[kind].get("url") if isinstance(ref[kind], dict) else None
        if kind != "image_url" and not (isinstance(url, str) and url.startswith("https://")):
            return f"input_references[{index}]: {kind}.url must be an https URL"
        if kind != "image_url" and not model.startswith(MEDIA_REFERENCES):
            return f"input_references[{index}]: {model} takes image references only"
    return None


def _dropped_passthrough(body: dict[str, Any]) -> list[str]:
    """The `provider.options` entries OpenRouter would not forward to the model's upstream."""
    model = MODELS[body["model"]]
    options = (body.get("provider") or {}).get("options") or {}
    slug = SLUGS.get(model["id"].split("/")[0])
    dropped = []
    for upstream, values in options.items():
        # Veo's cookbook example nests its names under `parameters`.
        names = values.get("parameters", values) if isinstance(values, dict) else {}
        for name in names if upstream == slug else [upstream]:
            if upstream != slug or name not in model["allowed_passthrough_parameters"]:
                dropped.append(f"{upstream}.{name}")
    return dropped


def _image_url_ok(part: object) -> bool:
    url = part.get("url") if isinstance(part, dict) else None
    if not isinstance(url, str):
        return False
    if url.startswith("https://"):
        return True
    header, _, payload = url.partition(",")
    if not (header.startswith("data:image/") and header.endswith(";base64")):
        return False
    try:
        base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _price(body: dict[str, Any]) -> float:
    skus = MODELS[body["model"]]["pricing_skus"]
    for key in ("duration_seconds", "duration_seconds_with_audio", "cents_per_second_output"):
        if key in skus:
            return float(skus[key]) / (100 if key.startswith("cents") else 1)
    return 0.15


def _job_id() -> str:
    alphabet = string.ascii_letters + string.digits
    return f"gen-vid-{int(time.time())}-" + "".join(secrets.choice(alphabet) for _ in range(20))


def _hmac(secret: str, message: bytes) -> str:
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def _error(status: int, message: str, metadata: dict[str, Any] | None = None) -> JSONResponse:
    error: dict[str, Any] = {"code": status, "message": message}
    if metadata is not None:
        error["metadata"] = metadata
    return JSONResponse({"error": error}, status)
