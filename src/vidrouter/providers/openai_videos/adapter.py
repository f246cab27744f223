"""Any upstream that speaks OpenAI's `/v1/videos` wire format.

OpenAI defined it for Sora 2 and retired it on 2026-09-24; gateways and resellers still
serve it. There is no fixed host and no fixed credential: each catalog route names its
upstream in its options,

    base_url = "https://gateway.example/v1"   # the prefix in front of /videos
    api_key_env = "MY_GATEWAY_KEY"            # the variable holding its Bearer key

and may add `sizes = "16:9=1280x720,9:16@1080p=1080x1920,1:1=1024x1024"` (our aspect ratio,
at one resolution or at all, to the upstream's `size`, over the defaults: 720p and 1080p in
16:9 and 9:16), `request_format = "multipart"|"json"`,
`fit_image = true|false` and `timeout_seconds`. A job keeps `base_url` and `api_key_env` in
its data (never the key itself), so its polls and its download go to the same upstream with
the key as it is at that moment.

    POST {base}/videos               model, prompt, seconds ("4"), size ("1280x720"),
                                     input_reference (an image file)  -> Video
    GET  {base}/videos/{id}          Video {status: queued|in_progress|completed|failed,
                                            progress, seconds, error {code, message}}
    GET  {base}/videos/{id}/content  the MP4
    DELETE {base}/videos/{id}        cancel (best effort)
    POST {base}/videos/extensions    {prompt, seconds (the seconds added), video: {id}} ->
                                     Video (its content: the source and the extension)

Of OpenAI's other operations, an extension of a video this very route made is the one a
route may list (`video-extend` with `extends_own_output = true` and the option
`extension_returns = "whole"`): docs/providers/openai_videos.md says why edits, remixes and
characters are not mapped.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import quote

import httpx
from PIL import Image, ImageOps

from vidrouter.domain.generation import JsonScalar
from vidrouter.domain.inputs import VIDEO_EXTEND
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.providers.openai_videos import errors

log = logging.getLogger(__name__)

NAME = "openai_videos"
REQUEST_ID_HEADER = "x-request-id"
# `size` carries both the resolution and the aspect ratio: Sora's 720p sizes and the 1080p
# ones Sora 2 Pro took late in its life. A bare ratio is the size when no resolution is asked.
DEFAULT_SIZES = {
    "16:9": "1280x720",
    "9:16": "720x1280",
    "16:9@720p": "1280x720",
    "9:16@720p": "720x1280",
    "16:9@1080p": "1920x1080",
    "9:16@1080p": "1080x1920",
}
_SIZE = re.compile(r"^(\d{2,5})x(\d{2,5})$")

# OpenAI's own vocabulary first; the rest are spellings seen at resellers of the format.
_STATES = {
    "queued": base.JobState.QUEUED,
    "submitted": base.JobState.QUEUED,
    "pending": base.JobState.QUEUED,
    "in_progress": base.JobState.RUNNING,
    "processing": base.JobState.RUNNING,
    "running": base.JobState.RUNNING,
    "completed": base.JobState.SUCCEEDED,
    "succeeded": base.JobState.SUCCEEDED,
    "failed": base.JobState.FAILED,
    "expired": base.JobState.FAILED,
    "cancelled": base.JobState.CANCELED,
    "canceled": base.JobState.CANCELED,
}


@dataclass(frozen=True)
class Upstream:
    """Where a route's (or a job's) videos live, and which variable holds the key."""

    base_url: str
    api_key_env: str | None
    timeout: float | None = None

    @classmethod
    def of(cls, values: Mapping[str, JsonScalar]) -> Upstream:
        base_url = values.get("base_url")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise base.AccountRefused(f"{NAME} route option base_url must be an http(s) URL")
        key_env = values.get("api_key_env")
        if key_env is not None and not isinstance(key_env, str):
            raise base.AccountRefused(f"{NAME} route option api_key_env must be a variable name")
        timeout = values.get("timeout_seconds")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float)
        ):
            raise base.AccountRefused(f"{NAME} route option timeout_seconds must be a number")
        return cls(base_url.rstrip("/"), key_env or None, float(timeout) if timeout else None)

    def data(self) -> dict[str, JsonScalar]:
        return {
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "timeout_seconds": self.timeout,
        }


class OpenAIVideosProvider:
    name: ClassVar[str] = NAME
    # Sora 2 took ~1-3 min for a 4-8 s clip and Sora 2 Pro several times that; resellers
    # queue for minutes more under load.
    poll_policy = base.PollPolicy.seconds(15, 10, 30, give_up=45 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        # No base URL of its own: each route names its upstream (and its key's variable).
        self._config = config
        self._clients: dict[str, httpx.AsyncClient] = {}

    # --- the provider interface -----------------------------------------------------------

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        upstream = Upstream.of(request.options)
        headers = {**self._auth(upstream), "X-Client-Request-Id": request.generation_id}
        if request.type == VIDEO_EXTEND:
            return await self._extend(request, upstream, headers)
        # The upstream format has no other control: a route declares none in `supports`.
        size = size_for(request.aspect_ratio, request.options, request.controls.resolution)
        fields = {
            "model": request.model,
            "prompt": request.prompt,
            "seconds": seconds_for(request.duration),
            "size": size,
        }
        image = await self._reference(request, size) if request.image_url else None
        body = _create_body(fields, image, request.options.get("request_format", "multipart"))
        response = await self._send(upstream, "POST", "/videos", headers=headers, **body)
        video = http.json_object(response)
        video_id = video.get("id")
        if not isinstance(video_id, str) or not video_id:
            raise base.MalformedResponse("POST /videos answered without a video id")
        return base.ProviderJob(
            video_id,
            data={**upstream.data(), "model": request.model, "size": size},
            request_id=response.headers.get(REQUEST_ID_HEADER),
        )

    async def _extend(
        self, request: base.ProviderRequest, upstream: Upstream, headers: dict[str, str]
    ) -> base.ProviderJob:
        """`POST /videos/extensions` of a video this route made, by its upstream id: the
        answer is a new Video whose content is the whole video (source and extension)."""
        made = request.source.job if request.source is not None else None
        if made is None:
            raise base.InvalidInput(f"{NAME} extends only the videos its own upstream made")
        body = {
            "prompt": request.prompt,
            "seconds": seconds_for(request.duration),
            "video": {"id": made.id},
        }
        response = await self._send(
            upstream, "POST", "/videos/extensions", headers=headers, json=body
        )
        video_id = http.json_object(response).get("id")
        if not isinstance(video_id, str) or not video_id:
            raise base.MalformedResponse("POST /videos/extensions answered without a video id")
        return base.ProviderJob(
            video_id,
            data={**upstream.data(), "model": request.model, "extends": made.id},
            request_id=response.headers.get(REQUEST_ID_HEADER),
        )

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        upstream = Upstream.of(job.data)
        response = await self._send(
            upstream, "GET", _video_path(job.id), headers=self._auth(upstream), lost_job=True
        )
        return status_of(http.json_object(response))

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        upstream = Upstream.of(job.data)
        return base.ResultRef(
            url=f"{upstream.base_url}{_video_path(job.id)}/content", headers=self._auth(upstream)
        )

    async def cancel(self, job: base.ProviderJob) -> None:
        # OpenAI documents DELETE for completed or failed videos; gateways that cannot stop a
        # running job refuse it, which is fine: the engine has given up on it either way.
        try:
            upstream = Upstream.of(job.data)
            await self._send(upstream, "DELETE", _video_path(job.id), headers=self._auth(upstream))
        except base.ProviderError as exc:
            log.info("openai_videos_cancel_refused", extra={"job_id": job.id, "error": exc.code})

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    # --- HTTP -----------------------------------------------------------------------------

    def _client(self, base_url: str) -> httpx.AsyncClient:
        client = self._clients.get(base_url)
        if client is None:
            client = http.new_client(
                base_url, {"Accept": "application/json"}, transport=self._config.transport
            )
            self._clients[base_url] = client
        return client

    def _auth(self, upstream: Upstream) -> dict[str, str]:
        if upstream.api_key_env is None:
            return {}  # an upstream that takes no key (e.g. on a private network)
        key = self._config.credential(upstream.api_key_env)
        if key is None:
            raise base.AccountRefused(
                f"{upstream.api_key_env} is not set (the {NAME} route's api key)"
            )
        return {"Authorization": f"Bearer {key}"}

    async def _send(
        self, upstream: Upstream, method: str, path: str, *, lost_job: bool = False, **kw: Any
    ) -> httpx.Response:
        if upstream.timeout is not None:
            kw["timeout"] = httpx.Timeout(upstream.timeout, connect=min(10.0, upstream.timeout))
        return await http.send(
            self._client(upstream.base_url),
            method,
            path,
            request_id_header=REQUEST_ID_HEADER,
            refine=functools.partial(errors.refine, lost_job=lost_job),
            **kw,
        )

    async def _reference(self, request: base.ProviderRequest, size: str) -> tuple[str, bytes, str]:
        assert request.image_url is not None
        data, mime = await load_image(
            request.image_url, allow_private=self._config.allow_private_images
        )
        if request.options.get("fit_image", True) is not False:
            data, mime = await asyncio.to_thread(fit_image, data, mime, size)
        return ("reference.png" if mime == "image/png" else "reference.jpg"), data, mime


# --- our request onto theirs ----------------------------------------------------------------


def size_for(
    aspect_ratio: str, options: Mapping[str, JsonScalar], resolution: str | None = None
) -> str:
    """The `size` for this ratio at this resolution: the operator's `ratio@resolution`, then
    their bare `ratio` (their one size for it), then ours."""
    operator = _operator_sizes(options)
    if resolution is None:
        chosen = operator.get(aspect_ratio) or DEFAULT_SIZES.get(aspect_ratio)
    else:
        at = f"{aspect_ratio}@{resolution}"
        chosen = (
            operator.get(at)
            or operator.get(aspect_ratio)
            or DEFAULT_SIZES.get(at)
            or _computed_size(aspect_ratio, resolution)
        )
    if chosen is None:
        at = f" at {resolution}" if resolution else ""
        raise base.InvalidInput(f"aspect ratio {aspect_ratio}{at} has no size on this upstream")
    return chosen


def _computed_size(aspect_ratio: str, resolution: str) -> str | None:
    """Width x height for a resolution OpenAI never named (e.g. 768p at 16:9 -> 1366x768):
    the short side is the resolution, the long side follows the ratio, rounded to even
    (video encoders want even sides)."""
    short = {"4k": 2160}.get(resolution) or int(resolution.rstrip("p") or 0)
    w, _, h = aspect_ratio.partition(":")
    if not (w.isdigit() and h.isdigit() and short and int(w) and int(h)):
        return None
    ratio = int(w) / int(h)
    long = 2 * round(short * max(ratio, 1 / ratio) / 2)
    return f"{long}x{short}" if ratio >= 1 else f"{short}x{long}"


def _operator_sizes(options: Mapping[str, JsonScalar]) -> dict[str, str]:
    raw = options.get("sizes")
    if raw is None:
        return {}
    if not isinstance(raw, str):
        raise base.AccountRefused(f'{NAME} route option sizes must read like "16:9=1280x720,..."')
    sizes = {}
    for entry in filter(None, (part.strip() for part in raw.split(","))):
        ratio, _, size = (s.strip() for s in entry.partition("="))
        if not ratio or not _SIZE.match(size):
            raise base.AccountRefused(f"{NAME} route option sizes: bad entry {entry!r}")
        sizes[ratio] = size
    return sizes


def seconds_for(duration: float) -> str:
    """The `seconds` string: whole seconds (the catalog lists the values the upstream takes)."""
    return str(max(1, math.ceil(duration - 1e-9)))


def fit_image(data: bytes, mime: str, size: str) -> tuple[bytes, str]:
    """Scale and centre-crop the image to exactly `size`: Sora refused an `input_reference`
    whose pixel size differed from the requested `size`."""
    match = _SIZE.match(size)
    assert match is not None
    target = (int(match[1]), int(match[2]))
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.size == target:
                return data, mime
            source = image.convert("RGB") if mime == "image/jpeg" else image
            fitted = ImageOps.fit(source, target, Image.Resampling.LANCZOS)
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise base.InvalidInput(f"the image could not be read: {exc}") from exc
    out = io.BytesIO()
    if mime == "image/jpeg":
        fitted.save(out, format="JPEG", quality=95)
    else:
        fitted.save(out, format="PNG")
    return out.getvalue(), mime


def _create_body(
    fields: dict[str, str], image: tuple[str, bytes, str] | None, request_format: JsonScalar
) -> dict[str, Any]:
    """Multipart form (what the official SDK sends) or JSON, with the image inline."""
    if request_format == "json":
        body: dict[str, Any] = dict(fields)
        if image is not None:
            body["input_reference"] = {"image_url": to_data_uri(image[1], image[2])}
        return {"json": body}
    if request_format != "multipart":
        raise base.AccountRefused(
            f'{NAME} route option request_format must be "multipart" or "json"'
        )
    files: dict[str, Any] = {name: (None, value) for name, value in fields.items()}
    if image is not None:
        files["input_reference"] = image
    return {"files": files}


def _video_path(video_id: str) -> str:
    return f"/videos/{quote(video_id, safe='')}"


# --- their answers onto ours ----------------------------------------------------------------


def status_of(video: Mapping[str, Any]) -> base.ProviderStatus:
    raw = video.get("status")
    state = _STATES.get(raw) if isinstance(raw, str) else None
    if state is None:
        raise base.MalformedResponse(f"the upstream reported an unknown video status {raw!r}")
    progress = video.get("progress")
    percent = max(0, min(100, int(progress))) if isinstance(progress, int | float) else None
    if state is base.JobState.SUCCEEDED:
        return base.ProviderStatus(
            state, progress=100, billed_seconds=_seconds(video.get("seconds"))
        )
    if state is base.JobState.FAILED:
        return base.ProviderStatus(state, progress=percent, error=errors.job_failure(video))
    return base.ProviderStatus(state, progress=percent)


def _seconds(value: object) -> float | None:
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


# No fixed credential: each route names its own key variable (`api_key_env`), which the
# registry checks before it lists the route.
FACTORY = ProviderFactory(NAME, (), OpenAIVideosProvider)

__all__ = ["FACTORY", "OpenAIVideosProvider", "Upstream", "seconds_for", "size_for", "status_of"]
