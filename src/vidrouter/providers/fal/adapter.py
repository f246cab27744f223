"""fal.ai, a host of many makers' models, through its queue API (adapter "fal", `FAL_KEY`).

Wire format (fal-client 1.0.3 `AsyncClient.submit` / `AsyncRequestHandle`; fal.ai/docs queue
API): `POST {queue}/{app_id}` with the model's input JSON (`?fal_webhook=` for a callback)
answers `{request_id, status_url, response_url, cancel_url}`; `GET status_url?logs=0` reports
`IN_QUEUE` (`queue_position`), `IN_PROGRESS` or `COMPLETED` (with `error`/`error_type` when
the run failed); `GET response_url` answers the model's output (`{"video": {"url", ...}}`) or
the run's error (4xx/5xx, `{"detail": ...}`): fal reports some failures only there;
`PUT cancel_url` cancels. Status and result URLs name only the app's owner and alias
(`fal-ai/kling-video/requests/...`), so the adapter keeps the paths fal returns and sends
them to its own base URL: the key never goes to a host an answer names.

Each model's input field names live in the catalog route's options, so adding a model fal
already serves is a catalog edit (see docs/providers/fal.md):

    i2v_model          app id used when the request carries an image (else the route's model)
    image_field        input field of the image ("image_url"; Kling 2.6+ "start_image_url")
    prompt_field       "prompt"
    duration_field     "duration"
    duration_format    "string" ("5", the default), "integer" (5), "seconds" ("5s"), "omit"
    aspect_ratio_field "aspect_ratio"; "" when the model takes none
    i2v_aspect_ratio   false: no aspect ratio with an image (the image decides the shape)
    input.<field>      a fixed input sent as is, e.g. "input.resolution" = "720p"
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, ClassVar

import httpx

from vidrouter.domain.generation import JsonScalar
from vidrouter.providers.base import (
    AuthFailed,
    InvalidInput,
    JobFailed,
    JobState,
    MalformedResponse,
    PollPolicy,
    ProviderContext,
    ProviderError,
    ProviderFactory,
    ProviderJob,
    ProviderRequest,
    ProviderStatus,
    PublishedModel,
    RateLimited,
    ResultRef,
)
from vidrouter.providers.fal import errors
from vidrouter.providers.http import json_object, new_client, send
from vidrouter.providers.images import decode_data_uri

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://queue.fal.run"
DEFAULT_API_BASE_URL = "https://api.fal.ai"
REQUEST_ID_HEADER = errors.REQUEST_ID_HEADER
NAMESPACES = ("workflows", "comfy")  # app ids with a namespace keep three path segments
OUR_RATIOS = ("16:9", "9:16", "1:1")

_STATES = {"IN_QUEUE": JobState.QUEUED, "IN_PROGRESS": JobState.RUNNING}


class FalProvider:
    name: ClassVar[str] = "fal"
    # fal's video apps typically finish in 1-5 minutes (Veo, Kling Master up to ~10); the
    # queue keeps requests while runners scale up and documents no maximum: 30 min is ours.
    poll_policy = PollPolicy(
        first_poll=timedelta(seconds=10),
        interval=timedelta(seconds=5),
        max_interval=timedelta(seconds=20),
        max_wait=timedelta(minutes=30),
    )

    def __init__(self, base_url: str, api_key: str) -> None:
        self._prefix = httpx.URL(base_url).path.rstrip("/")
        self._client = new_client(
            base_url, {"Authorization": f"Key {api_key}", "Accept": "application/json"}
        )

    async def submit(self, request: ProviderRequest) -> ProviderJob:
        app, body, seconds = _input(request)
        params = {"fal_webhook": request.callback_url} if request.callback_url else None
        response = await self._send(
            "POST", f"/{app}", json=body, params=params, refine=errors.refine
        )
        queued = json_object(response)
        request_id = queued.get("request_id")
        if not isinstance(request_id, str) or not request_id:
            raise MalformedResponse("fal answered the submit without a request_id")
        base = _requests_path(app, request_id)
        data: dict[str, JsonScalar] = {
            "app": app,
            "seconds": seconds,
            "status_path": self._path_of(queued.get("status_url"), f"{base}/status"),
            "response_path": self._path_of(queued.get("response_url"), base),
            "cancel_path": self._path_of(queued.get("cancel_url"), f"{base}/cancel"),
        }
        return ProviderJob(request_id, data, response.headers.get(REQUEST_ID_HEADER) or request_id)

    async def poll(self, job: ProviderJob) -> ProviderStatus:
        try:
            response = await self._send("GET", _data(job, "status_path"), params={"logs": "0"})
        except ProviderError as exc:
            if exc.status_code == 404:
                raise _gone(job, exc) from exc
            raise
        status = json_object(response)
        state = status.get("status")
        if state == "COMPLETED":
            return await self._completed(job, status)
        if state in _STATES:
            return ProviderStatus(_STATES[str(state)])
        # Vocabulary we do not know: keep polling (bounded by max_wait) and say so.
        log.warning("fal_unknown_status", extra={"job_id": job.id, "status": str(state)})
        return ProviderStatus(JobState.RUNNING)

    async def fetch_result(self, job: ProviderJob) -> ResultRef:
        video = job.data.get("video_url")
        if not isinstance(video, str):
            video = _video_url(json_object(await self._send("GET", _data(job, "response_path"))))
        if video is None or not video.startswith(("https://", "http://")):
            raise MalformedResponse(f"fal request {job.id} has no downloadable video")
        return ResultRef(url=video)  # fal's CDN serves results without the key

    async def cancel(self, job: ProviderJob) -> None:
        try:
            await self._send("PUT", _data(job, "cancel_path"))
        except ProviderError as exc:
            if exc.status_code not in (400, 404):  # ALREADY_COMPLETED, NOT_FOUND
                raise

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _completed(self, job: ProviderJob, status: Mapping[str, Any]) -> ProviderStatus:
        """The run ended: its result, or the failure fal reports when it is fetched."""
        try:
            response = await self._send("GET", _data(job, "response_path"))
        except ProviderError as exc:
            answer = exc.response
            if answer is None or isinstance(exc, RateLimited | AuthFailed):
                raise
            if (
                answer.status_code >= 500
                and not status.get("error")
                and not errors.fal_error(answer)
            ):
                raise  # the gateway's hiccup, not the run's failure: poll again
            return _ended(
                errors.job_error(job.id, answer.status_code, errors.body(answer), status, answer)
            )
        result = json_object(response)
        video = _video_url(result)
        if video is None:
            if "detail" in result:
                return _ended(
                    errors.job_error(job.id, response.status_code, result, status, response)
                )
            raise MalformedResponse(f"fal request {job.id} completed without a video")
        seconds = job.data.get("seconds")
        return ProviderStatus(
            JobState.SUCCEEDED,
            progress=100,
            billed_seconds=float(seconds) if isinstance(seconds, int | float) else None,
            data={**job.data, "video_url": video},
        )

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await send(self._client, method, path, request_id_header=REQUEST_ID_HEADER, **kwargs)

    def _path_of(self, url: object, fallback: str) -> str:
        """The path of a URL fal returned, relative to our base URL (its host is ignored)."""
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            return fallback
        path = httpx.URL(url).path
        if self._prefix and path.startswith(f"{self._prefix}/"):
            path = path[len(self._prefix) :]
        return path if "/requests/" in path else fallback


# --- requests ---------------------------------------------------------------------------------


def _input(request: ProviderRequest) -> tuple[str, dict[str, Any], int]:
    """The app to call, its input, and the seconds of video asked for."""
    options = request.options
    app = request.model
    body: dict[str, Any] = {_option(options, "prompt_field", "prompt"): request.prompt}
    if request.image_url is not None:
        i2v = options.get("i2v_model")
        app = i2v if isinstance(i2v, str) and i2v else app
        body[_option(options, "image_field", "image_url")] = _image(request.image_url)
    seconds = max(1, round(request.duration))
    fmt = _option(options, "duration_format", "string")
    formats: dict[str, object] = {
        "string": str(seconds),
        "integer": seconds,
        "seconds": f"{seconds}s",
    }
    if fmt in formats:
        body[_option(options, "duration_field", "duration")] = formats[fmt]
    elif fmt != "omit":
        raise InvalidInput(f"fal route option duration_format={fmt!r} is not one we know")
    ratio_field = _option(options, "aspect_ratio_field", "aspect_ratio")
    with_image = request.image_url is not None
    if ratio_field and not (with_image and options.get("i2v_aspect_ratio") is False):
        body[ratio_field] = request.aspect_ratio
    for key, value in options.items():
        if key.startswith("input.") and len(key) > len("input."):
            body[key[len("input.") :]] = value
    return app, body, seconds


def _option(options: Mapping[str, JsonScalar], name: str, default: str) -> str:
    value = options.get(name, default)
    return value if isinstance(value, str) else default


def _image(url: str) -> str:
    """fal's runners fetch image URLs themselves; a data: URI is checked and sent inline."""
    if url.startswith("data:"):
        decode_data_uri(url)  # raises InvalidInput for what no model can read
        return url
    if url.startswith(("https://", "http://")):
        return url
    raise InvalidInput("image_url must be an http(s) URL or a data: URI")


def _requests_path(app: str, request_id: str) -> str:
    """Where fal keeps a request: the app's owner and alias only (fal-client AppId)."""
    parts = app.strip("/").split("/")
    keep = 3 if parts[0] in NAMESPACES else 2
    return "/" + "/".join(parts[:keep]) + f"/requests/{request_id}"


def _data(job: ProviderJob, key: str) -> str:
    value = job.data.get(key)
    if isinstance(value, str) and value:
        return value
    app = job.data.get("app")
    if not isinstance(app, str):
        raise MalformedResponse(f"fal request {job.id} lost its app id")
    base = _requests_path(app, job.id)
    return {"status_path": f"{base}/status", "cancel_path": f"{base}/cancel"}.get(key, base)


# --- answers ----------------------------------------------------------------------------------


def _video_url(result: Mapping[str, Any]) -> str | None:
    video = result.get("video")
    url = video.get("url") if isinstance(video, dict) else video
    return url if isinstance(url, str) and url else None


def _ended(error: ProviderError | None) -> ProviderStatus:
    if error is None:
        return ProviderStatus(JobState.CANCELED)
    return ProviderStatus(JobState.FAILED, error=error)


def _gone(job: ProviderJob, exc: ProviderError) -> JobFailed:
    return JobFailed(
        f"fal no longer has request {job.id}",
        retryable=True,
        status_code=404,
        request_id=exc.request_id,
    )


# --- what fal publishes -----------------------------------------------------------------------


async def published(ctx: ProviderContext, wanted: Sequence[str]) -> list[PublishedModel]:
    """Prices (`GET /v1/models/pricing`) and input limits (`GET /v1/models` with the
    endpoint's OpenAPI schema) of the apps our catalog routes to, from fal's platform API."""
    key = ctx.settings.env("FAL_KEY")
    if key is None:
        raise AuthFailed("FAL_KEY is not set")
    base = ctx.settings.provider_base_url("fal_api", DEFAULT_API_BASE_URL)
    ids = list(dict.fromkeys(wanted))
    prices: dict[str, dict[str, Any]] = {}
    schemas: dict[str, dict[str, Any]] = {}
    async with new_client(base, {"Authorization": f"Key {key}"}) as client:
        for start in range(0, len(ids), 50):  # the API takes 1-50 endpoint ids per call
            chunk = [("endpoint_id", i) for i in ids[start : start + 50]]
            for item in await _pages(client, "/v1/models/pricing", chunk, "prices"):
                prices[str(item.get("endpoint_id"))] = item
            query = [*chunk, ("expand", "openapi-3.0")]
            for item in await _pages(client, "/v1/models", query, "models"):
                if isinstance(item.get("openapi"), dict):
                    schemas[str(item.get("endpoint_id"))] = item["openapi"]
    out = []
    for app in ids:
        if app in prices or app in schemas:
            durations, ratios = _limits(schemas.get(app, {}))
            out.append(
                PublishedModel(
                    app,
                    price_per_second=_per_second(prices.get(app)),
                    durations=durations,
                    max_duration=max(durations) if durations else None,
                    aspect_ratios=ratios,
                )
            )
    return out


async def _pages(
    client: httpx.AsyncClient, path: str, query: list[tuple[str, str]], key: str
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(20):
        params = [*query, ("cursor", cursor)] if cursor else query
        body = json_object(await send(client, "GET", path, params=params))
        items += [i for i in body.get(key) or [] if isinstance(i, dict)]
        cursor = body.get("next_cursor") if body.get("has_more") else None
        if not isinstance(cursor, str) or not cursor:
            break
    return items


def _per_second(price: Mapping[str, Any] | None) -> float | None:
    if not price or str(price.get("currency", "USD")).upper() != "USD":
        return None
    unit = str(price.get("unit", "")).lower().replace("-", "_").replace(" ", "_")
    value = price.get("unit_price")
    if unit in ("second", "seconds", "video_second", "video_seconds", "per_second"):
        return float(value) if isinstance(value, int | float) else None
    return None  # per video, per image, per GPU-second: not a price per second of video


def _limits(openapi: Mapping[str, Any]) -> tuple[tuple[float, ...] | None, tuple[str, ...] | None]:
    """Durations and aspect ratios (our vocabulary) from an endpoint's input schema."""
    schemas = openapi.get("components", {}).get("schemas", {})
    if not isinstance(schemas, dict):
        return None, None
    fields = _input_properties(openapi, schemas)
    durations = _durations(fields.get("duration"), schemas)
    ratios = _enum(fields.get("aspect_ratio"), schemas)
    ours = tuple(r for r in OUR_RATIOS if r in ratios) if ratios else None
    return durations, ours


def _input_properties(openapi: Mapping[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    for item in (openapi.get("paths") or {}).values():
        post = item.get("post") if isinstance(item, dict) else None
        content = ((post or {}).get("requestBody") or {}).get("content") or {}
        schema = _resolve((content.get("application/json") or {}).get("schema"), schemas)
        if isinstance(schema.get("properties"), dict) and "prompt" in schema["properties"]:
            return dict(schema["properties"])
    for name, schema in schemas.items():
        props = schema.get("properties") if isinstance(schema, dict) else None
        if str(name).endswith("Input") and isinstance(props, dict) and "prompt" in props:
            return dict(props)
    return {}


def _resolve(schema: object, schemas: Mapping[str, Any]) -> dict[str, Any]:
    for _ in range(10):
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return schema
        schema = schemas.get(ref.rsplit("/", 1)[-1])
    return {}


def _enum(schema: object, schemas: Mapping[str, Any]) -> list[Any]:
    resolved = _resolve(schema, schemas)
    if isinstance(resolved.get("enum"), list):
        return list(resolved["enum"])
    values: list[Any] = []
    for key in ("allOf", "anyOf", "oneOf"):
        for part in resolved.get(key) or []:
            values += _enum(part, schemas)
    return values


def _durations(schema: object, schemas: Mapping[str, Any]) -> tuple[float, ...] | None:
    found = set()
    for value in _enum(schema, schemas):
        match = re.fullmatch(r"(\d+(?:\.\d+)?)s?", str(value))
        if match:
            found.add(float(match.group(1)))
    resolved = _resolve(schema, schemas)
    low, high = resolved.get("minimum"), resolved.get("maximum")
    if not found and isinstance(low, int) and isinstance(high, int) and 0 < high - low <= 60:
        found = {float(s) for s in range(low, high + 1)}
    return tuple(sorted(found)) or None


def _build(ctx: ProviderContext) -> FalProvider:
    api_key = ctx.settings.env("FAL_KEY")
    if api_key is None:
        raise AuthFailed("FAL_KEY is not set")
    return FalProvider(ctx.settings.provider_base_url("fal", DEFAULT_BASE_URL), api_key)


FACTORY = ProviderFactory("fal", ("FAL_KEY",), _build, published=published)

__all__ = ["FACTORY", "FalProvider", "published"]
