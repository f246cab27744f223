"""OpenRouter's asynchronous video API: one host, one wire format, many makers' models.

    POST /v1/videos            {model, prompt, duration, aspect_ratio, resolution, generate_audio,
                                frame_images | input_references, callback_url, session_id,
                                provider: {options}}  -> 202 {id, polling_url, status: "pending"}
    GET  /v1/videos/{id}       {id, polling_url, status: pending | in_progress | completed |
                                failed | cancelled | expired, error?, generation_id?,
                                unsigned_urls?, usage: {cost, is_byok}?}
    GET  /v1/videos/{id}/content?index=0   the MP4 (with the key)
    GET  /v1/videos/models     {data: [{id, supported_durations, supported_aspect_ratios,
                                supported_resolutions, ..., pricing_skus}]}

(paths under `https://openrouter.ai/api`; `VIDROUTER_OPENROUTER_BASE_URL` replaces that.)
OpenRouter normalises the request for every model, so a catalog route names only what varies
by model, in its options: `resolution`, `generate_audio`, `image_as` ("first_frame", the
default, or "reference"), `send_aspect_ratio` (default true) and `provider_options` (a JSON
object string passed through as `provider.options`). There is no cancel endpoint.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import time
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, ClassVar
from urllib.parse import quote

import httpx

from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.generation import JsonScalar
from vidrouter.providers import http
from vidrouter.providers.base import (
    AuthFailed,
    JobState,
    MalformedResponse,
    PollPolicy,
    ProviderContext,
    ProviderFactory,
    ProviderJob,
    ProviderRequest,
    ProviderStatus,
    PublishedModel,
    ResultRef,
)
from vidrouter.providers.images import decode_data_uri, to_data_uri
from vidrouter.providers.openrouter import errors
from vidrouter.settings import Settings

log = logging.getLogger(__name__)

NAME = "openrouter"
CREDENTIAL = "OPENROUTER_API_KEY"
DEFAULT_BASE_URL = "https://openrouter.ai/api"
TITLE = "vidrouter"
SIGNATURE_HEADER = "x-openrouter-signature"
CALLBACK_TOLERANCE_SECONDS = 300.0
_OUR_RATIOS = ("16:9", "9:16", "1:1")
_STATES = {
    "pending": JobState.QUEUED,
    "in_progress": JobState.RUNNING,
    "completed": JobState.SUCCEEDED,
    "failed": JobState.FAILED,
    "expired": JobState.FAILED,
    "cancelled": JobState.CANCELED,
}


class OpenRouterProvider:
    name: ClassVar[str] = NAME
    # OpenRouter: "typically 30 seconds to several minutes"; poll every 10-30 s. Seedance 2.0
    # and Veo queue for many minutes under load; no longest run is documented.
    poll_policy = PollPolicy(
        first_poll=timedelta(seconds=20),
        interval=timedelta(seconds=10),
        max_interval=timedelta(seconds=30),
        max_wait=timedelta(minutes=40),
    )

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._base = settings.provider_base_url(NAME, DEFAULT_BASE_URL)
        self._client = http.new_client(self._base, attribution_headers(settings))

    # --- the provider interface -----------------------------------------------------------

    async def submit(self, request: ProviderRequest) -> ProviderJob:
        body = await self._create_body(request)
        response = await self._send("POST", "/v1/videos", json=body)
        video = http.json_object(response)
        job_id = video.get("id")
        if not isinstance(job_id, str) or not job_id:
            raise MalformedResponse("POST /v1/videos answered without a job id")
        data: dict[str, JsonScalar] = {"model": request.model, "duration": body["duration"]}
        return ProviderJob(job_id, data, request_id=errors.request_id(response))

    async def poll(self, job: ProviderJob) -> ProviderStatus:
        response = await self._send("GET", _job_path(job.id), lost_job=True)
        return status_of(http.json_object(response), job.data)

    async def fetch_result(self, job: ProviderJob) -> ResultRef:
        # OpenRouter's authenticated content endpoint, on the host we talk to: the key is
        # never sent to whatever host a status answer might name.
        return ResultRef(
            url=f"{self._base}{_job_path(job.id)}/content?index=0", headers=self._auth()
        )

    async def cancel(self, job: ProviderJob) -> None:
        log.info("openrouter_cancel_unsupported", extra={"job_id": job.id})

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- HTTP -----------------------------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        key = self._settings.env(CREDENTIAL)
        if key is None:
            raise AuthFailed(f"{CREDENTIAL} is not set")
        return {"Authorization": f"Bearer {key}"}

    async def _send(
        self, method: str, path: str, *, lost_job: bool = False, **kw: Any
    ) -> httpx.Response:
        refine = errors.refine_lost_job if lost_job else errors.refine
        return await http.send(
            self._client, method, path, headers=self._auth(), refine=refine, **kw
        )

    async def _create_body(self, request: ProviderRequest) -> dict[str, Any]:
        options = request.options
        body: dict[str, Any] = {
            "model": request.model,
            "prompt": request.prompt,
            "duration": max(1, math.ceil(request.duration - 1e-9)),
            "session_id": request.generation_id,  # groups a generation's attempts in logs
        }
        if _flag(options, "send_aspect_ratio", True):
            body["aspect_ratio"] = request.aspect_ratio
        resolution = options.get("resolution")
        if resolution is not None:
            body["resolution"] = _text_option(options, "resolution")
        if "generate_audio" in options:
            body["generate_audio"] = _flag(options, "generate_audio", False)
        if request.image_url:
            # A URL (our content host's signed copy when it is public) OpenRouter fetches
            # itself; a data: URI is checked (PNG or JPEG, at most 20 MiB) and sent inline.
            url = request.image_url
            if url.startswith("data:"):
                url = to_data_uri(*decode_data_uri(url))
            image: dict[str, Any] = {"type": "image_url", "image_url": {"url": url}}
            mode = options.get("image_as", "first_frame")
            if mode == "reference":
                body["input_references"] = [image]
            elif mode == "first_frame":
                body["frame_images"] = [{**image, "frame_type": "first_frame"}]
            else:
                raise AuthFailed(
                    f'{NAME} route option image_as must be "first_frame" or "reference"'
                )
        if request.callback_url:
            body["callback_url"] = request.callback_url
        passthrough = options.get("provider_options")
        if passthrough is not None:
            body["provider"] = {"options": _json_object_option(passthrough)}
        return body


def attribution_headers(settings: Settings) -> dict[str, str]:
    """OpenRouter's app attribution: the title, and the app's URL when we have a public one."""
    headers = {"Accept": "application/json", "X-Title": TITLE, "X-OpenRouter-Title": TITLE}
    if settings.public_url:
        headers["HTTP-Referer"] = settings.public_url
    return headers


def _job_path(job_id: str) -> str:
    return f"/v1/videos/{quote(job_id, safe='')}"


def _flag(options: Mapping[str, JsonScalar], name: str, default: bool) -> bool:
    value = options.get(name, default)
    if not isinstance(value, bool):
        raise AuthFailed(f"{NAME} route option {name} must be true or false")
    return value


def _text_option(options: Mapping[str, JsonScalar], name: str) -> str:
    value = options.get(name)
    if not isinstance(value, str) or not value:
        raise AuthFailed(f"{NAME} route option {name} must be a string")
    return value


def _json_object_option(raw: JsonScalar) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise AuthFailed(f"{NAME} route option provider_options must be a JSON object string")
    return value


# --- their answers onto ours ----------------------------------------------------------------


def status_of(video: Mapping[str, Any], data: Mapping[str, JsonScalar]) -> ProviderStatus:
    raw = video.get("status")
    state = _STATES.get(raw) if isinstance(raw, str) else None
    if state is None:
        raise MalformedResponse(f"OpenRouter reported an unknown video status {raw!r}")
    progress = video.get("progress")  # not in OpenRouter's schema; read where a proxy adds it
    percent = max(0, min(100, int(progress))) if isinstance(progress, int | float) else None
    if state is JobState.SUCCEEDED:
        found: dict[str, JsonScalar] = dict(data)
        generation_id = video.get("generation_id")
        if isinstance(generation_id, str):
            found["generation_id"] = generation_id
        usage = video.get("usage")
        cost = usage.get("cost") if isinstance(usage, Mapping) else None
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            found["cost_usd"] = float(cost)
        # OpenRouter prices per second of the duration asked for; it reports only the charge.
        billed = data.get("duration")
        seconds = float(billed) if isinstance(billed, int | float) and billed > 0 else None
        return ProviderStatus(state, progress=100, billed_seconds=seconds, data=found)
    if state is JobState.FAILED:
        return ProviderStatus(state, progress=percent, error=errors.job_error(video))
    return ProviderStatus(state, progress=percent)


# --- the published catalog ------------------------------------------------------------------

# Frame areas behind Seedance's per-token prices (tokens = w x h x 24 fps / 1024 per second).
_FRAME_AREAS = {"480p": 854 * 480, "720p": 1280 * 720, "1080p": 1920 * 1080, "4k": 3840 * 2160}
_MODES = ("text_to_video", "image_to_video")
_AUDIO_PARTS = {True: "_with_audio", False: "_without_audio"}
# (SKU stem, USD per unit) of the SKUs priced per second of output video.
_SECOND_SKUS = (
    ("duration_seconds", 1.0),
    ("cents_per_second_output", 0.01),
    ("cents_per_video_output_second", 0.01),
)


def price_per_second(
    skus: Mapping[str, Any], resolution: str | None = None, audio: bool | None = None
) -> float | None:
    """USD per second of a clip at `resolution`, with or without audio (None: the model's
    default), from OpenRouter's `pricing_skus`: the dearer of text- and image-to-video."""
    prices = [p for p in (_sku_price(skus, resolution, audio, m) for m in _MODES) if p is not None]
    return round(max(prices), 6) if prices else None


def _sku_price(
    skus: Mapping[str, Any], resolution: str | None, audio: bool | None, mode: str
) -> float | None:
    res = resolution.lower() if resolution else None
    audio_parts = ["", "_with_audio"] if audio is None else [_AUDIO_PARTS[audio], ""]
    for aud in audio_parts:
        for part in ([f"_{res}"] if res else []) + [""]:
            for prefix in (f"{mode}_", ""):
                for stem, unit in _SECOND_SKUS:
                    value = _number(skus.get(f"{prefix}{stem}{aud}{part}"))
                    if value is not None:
                        return value * unit
                value = _number(skus.get(f"{prefix}video_tokens{aud}{part}"))
                if value is not None:
                    return value * _FRAME_AREAS.get(res or "720p", _FRAME_AREAS["720p"]) * 24 / 1024
    return None


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number >= 0 else None


def published_from(
    listing: Mapping[str, Any],
    wanted: Sequence[str],
    options: Mapping[str, Mapping[str, JsonScalar]] | None = None,
) -> list[PublishedModel]:
    """OpenRouter's `GET /v1/videos/models` answer as PublishedModels for `wanted`, priced at
    the resolution and audio setting of each model's route options (`options[model]`)."""
    entries = listing.get("data")
    if not isinstance(entries, list):
        raise MalformedResponse("GET /v1/videos/models: expected a data array")
    by_id = {e["id"]: e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)}
    return [
        _published(name, by_id[name], (options or {}).get(name, {}))
        for name in wanted
        if name in by_id
    ]


def _published(
    name: str, entry: Mapping[str, Any], route: Mapping[str, JsonScalar]
) -> PublishedModel:
    skus, durations = entry.get("pricing_skus"), entry.get("supported_durations")
    ratios, resolution, audio = (
        entry.get("supported_aspect_ratios"),
        route.get("resolution"),
        route.get("generate_audio"),
    )
    seconds = tuple(
        sorted(float(d) for d in durations if isinstance(d, int | float))
        if isinstance(durations, list)
        else ()
    )
    price = price_per_second(
        skus if isinstance(skus, dict) else {},
        resolution if isinstance(resolution, str) else None,
        audio if isinstance(audio, bool) else None,
    )
    return PublishedModel(
        provider_model=name,
        price_per_second=price,
        durations=seconds or None,
        max_duration=max(seconds) if seconds else None,
        aspect_ratios=(
            tuple(r for r in _OUR_RATIOS if r in ratios) if isinstance(ratios, list) else None
        ),
    )


async def published(ctx: ProviderContext, wanted: Sequence[str]) -> list[PublishedModel]:
    """What OpenRouter publishes now about `wanted`, priced as our catalog's routes ask."""
    options: dict[str, Mapping[str, JsonScalar]] = {}
    for model in load_catalog(ctx.settings.catalog).models:
        for route in model.routes:
            if route.provider == NAME:
                options.setdefault(route.provider_model, route.options)
    base = ctx.settings.provider_base_url(NAME, DEFAULT_BASE_URL)
    async with http.new_client(base, attribution_headers(ctx.settings)) as client:
        response = await http.send(client, "GET", "/v1/videos/models")
    return published_from(http.json_object(response), wanted, options)


# --- callbacks ------------------------------------------------------------------------------


def verify_callback(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now: float | None = None,
    tolerance: float = CALLBACK_TOLERANCE_SECONDS,
) -> bool:
    """Whether a `callback_url` delivery is OpenRouter's: `X-OpenRouter-Signature:
    t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>," + raw body)>`, fresh within
    `tolerance` seconds (the workspace's webhook signing secret)."""
    if not secret:
        return False
    header = next((v for k, v in headers.items() if k.lower() == SIGNATURE_HEADER), None)
    if not header:
        return False
    stamp, signatures = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            stamp = value
        elif key == "v1":
            signatures.append(value)
    if stamp is None or not stamp.isdigit() or not signatures:
        return False
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance:
        return False
    expected = sign_callback(secret, stamp, body)
    return any(hmac.compare_digest(expected, s) for s in signatures)


def sign_callback(secret: str, timestamp: str, body: bytes) -> str:
    return hmac.new(secret.encode(), timestamp.encode() + b"," + body, hashlib.sha256).hexdigest()


def _build(ctx: ProviderContext) -> OpenRouterProvider:
    return OpenRouterProvider(ctx.settings)


FACTORY = ProviderFactory(NAME, (CREDENTIAL,), _build, published=published)

__all__ = [
    "FACTORY",
    "OpenRouterProvider",
    "price_per_second",
    "published_from",
    "sign_callback",
    "status_of",
    "verify_callback",
]
