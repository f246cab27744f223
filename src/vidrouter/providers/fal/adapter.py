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
    input.<field>      a fixed input sent as is, e.g. "input.cfg_scale" = 0.5
    field.<control>    the app's field for one of our controls, e.g. "field.end_image_url" =
                       "tail_image_url"; "values.<control>" respells values (controls_fields)

References, edits and extensions go to the apps and fields named by the options `inputs.py`
reads (`r2v_model`, `refs.image`, `source_field`, "<type>:<option>", ...).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import httpx

from vidrouter.domain.generation import JsonScalar
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.controls_fields import control_inputs, field_name
from vidrouter.providers.fal import errors, inputs
from vidrouter.providers.images import decode_data_uri

log = logging.getLogger(__name__)

CREDENTIAL = "FAL_KEY"
DEFAULT_BASE_URL = "https://queue.fal.run"
DEFAULT_API_BASE_URL = "https://api.fal.ai"  # where fal describes its apps (`catalog`)
REQUEST_ID_HEADER = errors.REQUEST_ID_HEADER
NAMESPACES = ("workflows", "comfy")  # app ids with a namespace keep three path segments

_STATES = {"IN_QUEUE": base.JobState.QUEUED, "IN_PROGRESS": base.JobState.RUNNING}


class FalProvider:
    name: ClassVar[str] = "fal"
    # fal's video apps typically finish in 1-5 minutes (Veo, Kling Master up to ~10); the
    # queue keeps requests while runners scale up and documents no maximum: 30 min is ours.
    poll_policy = base.PollPolicy.seconds(10, 5, 20, give_up=30 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        self._prefix = httpx.URL(config.base_url).path.rstrip("/")
        headers = {"Authorization": f"Key {config.key(CREDENTIAL)}", "Accept": "application/json"}
        self._client = http.client_for(config, headers)

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        if request.type in inputs.TYPED:
            app, typed = inputs.typed_request(request)
            _, body, asked = _input(typed)
            body.update(inputs.media_fields(typed))
            seconds = inputs.billed_seconds(typed, asked)
        else:
            app, body, seconds = _input(request)
        params = {"fal_webhook": request.callback_url} if request.callback_url else None
        response = await self._send(
            "POST", f"/{app}", json=body, params=params, refine=errors.refine
        )
        queued = http.json_object(response)
        request_id = queued.get("request_id")
        if not isinstance(request_id, str) or not request_id:
            raise base.MalformedResponse("fal answered the submit without a request_id")
        root = _requests_path(app, request_id)
        data: dict[str, JsonScalar] = {
            "app": app,
            "seconds": seconds,
            "status_path": self._path_of(queued.get("status_url"), f"{root}/status"),
            "response_path": self._path_of(queued.get("response_url"), root),
            "cancel_path": self._path_of(queued.get("cancel_url"), f"{root}/cancel"),
        }
        return base.ProviderJob(
            request_id, data, response.headers.get(REQUEST_ID_HEADER) or request_id
        )

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        try:
            response = await self._send("GET", _data(job, "status_path"), params={"logs": "0"})
        except base.ProviderError as exc:
            if exc.status_code == 404:
                raise _gone(job, exc) from exc
            raise
        status = http.json_object(response)
        state = status.get("status")
        if state == "COMPLETED":
            return await self._completed(job, status)
        if state in _STATES:
            return base.ProviderStatus(_STATES[str(state)])
        # Vocabulary we do not know: keep polling (bounded by max_wait) and say so.
        log.warning("fal_unknown_status", extra={"job_id": job.id, "status": str(state)})
        return base.ProviderStatus(base.JobState.RUNNING)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        video = http.stored_url(job)
        if video is None:
            video = _video_url(
                http.json_object(await self._send("GET", _data(job, "response_path")))
            )
        return http.result_at(video, f"fal request {job.id}")  # fal's CDN needs no key

    async def cancel(self, job: base.ProviderJob) -> None:
        try:
            await self._send("PUT", _data(job, "cancel_path"))
        except base.ProviderError as exc:
            if exc.status_code not in (400, 404):  # ALREADY_COMPLETED, NOT_FOUND
                raise

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _completed(
        self, job: base.ProviderJob, status: Mapping[str, Any]
    ) -> base.ProviderStatus:
        """The run ended: its result, or the failure fal reports when it is fetched."""
        try:
            response = await self._send("GET", _data(job, "response_path"))
        except base.ProviderError as exc:
            answer = exc.response
            if answer is None or isinstance(exc, base.RateLimited | base.AccountRefused):
                raise
            if (
                answer.status_code >= 500
                and not status.get("error")
                and not errors.fal_error(answer)
            ):
                raise  # the gateway's hiccup, not the run's failure: poll again
            return _ended(
                errors.job_failure(job.id, answer.status_code, errors.body(answer), status, answer)
            )
        result = http.json_object(response)
        video = _video_url(result)
        if video is None:
            if "detail" in result:
                return _ended(
                    errors.job_failure(job.id, response.status_code, result, status, response)
                )
            raise base.MalformedResponse(f"fal request {job.id} completed without a video")
        seconds = job.data.get("seconds")
        return base.ProviderStatus(
            base.JobState.SUCCEEDED,
            progress=100,
            billed_seconds=float(seconds) if isinstance(seconds, int | float) else None,
            data={**job.data, "video_url": video},
        )

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await http.send(
            self._client, method, path, request_id_header=REQUEST_ID_HEADER, **kwargs
        )

    def _path_of(self, url: object, fallback: str) -> str:
        """The path of a URL fal returned, relative to our base URL (its host is ignored)."""
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            return fallback
        path = httpx.URL(url).path
        if self._prefix and path.startswith(f"{self._prefix}/"):
            path = path[len(self._prefix) :]
        return path if "/requests/" in path else fallback


# --- requests ---------------------------------------------------------------------------------


def _input(request: base.ProviderRequest) -> tuple[str, dict[str, Any], int]:
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
        raise base.InvalidInput(f"fal route option duration_format={fmt!r} is not one we know")
    ratio_field = _option(options, "aspect_ratio_field", "aspect_ratio")
    with_image = request.image_url is not None
    if ratio_field and not (with_image and options.get("i2v_aspect_ratio") is False):
        body[ratio_field] = request.aspect_ratio
    for key, value in options.items():
        if key.startswith("input.") and len(key) > len("input."):
            body[key[len("input.") :]] = value
    # The user's controls win over a route's fixed inputs of the same name.
    body.update(control_inputs(options, request.controls))
    end_field = field_name(options, "end_image_url")
    if end_field is not None and end_field in body:
        body[end_field] = _image(str(body[end_field]), "end_image_url")
    return app, body, seconds


def _option(options: Mapping[str, JsonScalar], name: str, default: str) -> str:
    value = options.get(name, default)
    return value if isinstance(value, str) else default


def _image(url: str, param: str = "image_url") -> str:
    """fal's runners fetch image URLs themselves; a data: URI is checked and sent inline."""
    if url.startswith("data:"):
        decode_data_uri(url)  # raises InvalidInput for what no model can read
        return url
    if url.startswith(("https://", "http://")):
        return url
    raise base.InvalidInput(f"{param} must be an http(s) URL or a data: URI")


def _requests_path(app: str, request_id: str) -> str:
    """Where fal keeps a request: the app's owner and alias only (fal-client AppId)."""
    parts = app.strip("/").split("/")
    keep = 3 if parts[0] in NAMESPACES else 2
    return "/" + "/".join(parts[:keep]) + f"/requests/{request_id}"


def _data(job: base.ProviderJob, key: str) -> str:
    value = job.data.get(key)
    if isinstance(value, str) and value:
        return value
    app = job.data.get("app")
    if not isinstance(app, str):
        raise base.MalformedResponse(f"fal request {job.id} lost its app id")
    root = _requests_path(app, job.id)
    return {"status_path": f"{root}/status", "cancel_path": f"{root}/cancel"}.get(key, root)


# --- answers ----------------------------------------------------------------------------------


def _video_url(result: Mapping[str, Any]) -> str | None:
    video = result.get("video")
    url = video.get("url") if isinstance(video, dict) else video
    return url if isinstance(url, str) and url else None


def _ended(error: base.ProviderError | None) -> base.ProviderStatus:
    if error is None:
        return base.ProviderStatus(base.JobState.CANCELED)
    return base.ProviderStatus(base.JobState.FAILED, error=error)


def _gone(job: base.ProviderJob, exc: base.ProviderError) -> base.JobFailed:
    return base.JobFailed(
        f"fal no longer has request {job.id}",
        retryable=True,
        status_code=404,
        request_id=exc.request_id,
    )


async def _published(config: AdapterConfig, wanted: Sequence[str]) -> list[base.PublishedModel]:
    # The catalog reader is built on this module's names, so it is imported when asked for.
    from vidrouter.providers.fal import catalog

    return await catalog.published(config, wanted)


FACTORY = ProviderFactory(
    "fal",
    (CREDENTIAL,),
    FalProvider,
    DEFAULT_BASE_URL,
    other_base_urls={"fal_api": DEFAULT_API_BASE_URL},
    catalog_reader=_published,
)

__all__ = ["FACTORY", "FalProvider"]
