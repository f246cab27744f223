"""Lightricks LTX on its own API (`api.ltx.video`), following LTX's OpenAPI document.

LTX serves every generation endpoint twice, with identical request bodies: `/v1/...` answers
synchronously (the HTTP response body is the MP4, after minutes of an open connection) and
`/v2/...` asynchronously. A gateway that leases work and survives restarts cannot hold a
connection for the whole generation, so this adapter speaks only v2, which fits our
submit/poll model as it is:

    submit   POST /v2/text-to-video | /v2/image-to-video -> 202 {"id", "created_at"}
    poll     GET  /v2/{endpoint}/{id} (the segment that created it) -> status pending |
             processing | completed (`result.video_url`) | failed (`error.type`, `message`)
    result   `result.video_url`, kept 24 hours after the job ends (then the GET is a 404)
    cancel   none: LTX has no cancel, delete or list endpoint

Mapping: our resolution tier and aspect ratio -> one `resolution` "WIDTHxHEIGHT" (16:9 or
9:16 only); duration -> integer seconds; generate_audio -> `generate_audio` (LTX's default
is true); the first frame -> `image_uri`, the end frame -> `last_frame_uri` (LTX-2.3). The
route's `fps` option is sent as `fps` (LTX's default is 24). No seed, negative prompt or
callback exists on this API. Images go as the https URL given (LTX fetches domain names
only, without redirects) or inline as a data URI (at most 7 MB encoded); larger inputs
would go through `POST /v1/upload` (not used yet). A source video is edited on
`/v2/retake` (video-to-video) or extended on `/v2/extend` (inputs.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

from vidrouter.domain.addresses import forbidden_host_reason, parse_ip_literal
from vidrouter.providers import base, http
from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.providers.ltx import errors, inputs

log = logging.getLogger(__name__)

CREDENTIAL = "LTX_API_KEY"
DEFAULT_BASE_URL = "https://api.ltx.video"
REQUEST_ID_HEADER = "x-request-id"
TEXT_TO_VIDEO = "text-to-video"
IMAGE_TO_VIDEO = "image-to-video"
CREATE_PATH = "/v2/{endpoint}"
JOB_PATH = "/v2/{endpoint}/{id}"
# Our resolution tier -> LTX's landscape size; 9:16 swaps the two.
SIZES: Mapping[str, tuple[int, int]] = {
    "720p": (1280, 720),
    "1080p": (1920, 1080),
    "4k": (3840, 2160),
}
DEFAULT_RESOLUTION = "1080p"
MAX_DATA_URI_CHARS = 7 * 1024 * 1024  # LTX's limit for an inline image (encoded)

_STATES: Mapping[str, base.JobState] = {
    "pending": base.JobState.QUEUED,
    "processing": base.JobState.RUNNING,
}


class LtxProvider(http.BearerAdapter):
    credential = CREDENTIAL
    name: ClassVar[str] = "ltx"
    # LTX advises a poll every 5 s; generations take from tens of seconds (fast, 6 s) to a
    # few minutes (pro, 4K). It documents no maximum: 30 minutes is our bound (unconfirmed).
    poll_policy = base.PollPolicy.seconds(10, 5, 20, give_up=30 * 60)

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        if request.type in inputs.ENDPOINTS:
            endpoint = inputs.ENDPOINTS[request.type]
            body = await inputs.source_body(request, allow_private=self._allow_private)
        else:
            endpoint, body = await self._generation(request)
        response = await http.send(
            self._client,
            "POST",
            CREATE_PATH.format(endpoint=endpoint),
            json=body,
            request_id_header=REQUEST_ID_HEADER,
            refine=errors.refine,
        )
        answer = http.json_object(response)
        job_id = answer.get("id")
        if not isinstance(job_id, str) or not job_id:
            raise base.MalformedResponse(f"LTX answered the {endpoint} create without an id")
        return base.ProviderJob(
            id=job_id,
            data={"endpoint": endpoint, "duration": body["duration"]},
            request_id=response.headers.get(REQUEST_ID_HEADER),
        )

    async def _generation(self, request: base.ProviderRequest) -> tuple[str, dict[str, Any]]:
        """Text, or a first frame (and an end frame): the endpoint and its body."""
        body = _create_body(request)
        endpoint = TEXT_TO_VIDEO
        if request.image_url is not None:
            endpoint = IMAGE_TO_VIDEO
            body["image_uri"] = await self._media_uri(request.image_url)
            if request.controls.end_image_url is not None:
                body["last_frame_uri"] = await self._media_uri(request.controls.end_image_url)
        return endpoint, body

    @http.lost_is_failed
    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        answer = await self._job(job)
        status = answer.get("status")
        if status == "completed":
            video = _video_url(answer)
            if video is None:
                raise base.MalformedResponse(f"LTX job {job.id} completed without a video_url")
            return http.succeeded(job, video)
        if status == "failed":
            error = errors.job_failure(answer.get("error"), job.id)
            return base.ProviderStatus(base.JobState.FAILED, error=error)
        state = _STATES.get(status) if isinstance(status, str) else None
        if state is None:  # vocabulary we do not know: keep polling (bounded) and say so
            log.warning("ltx_unknown_status", extra={"job_id": job.id, "status": str(status)})
            return base.ProviderStatus(base.JobState.RUNNING)
        return base.ProviderStatus(state)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        video = http.stored_url(job) or _video_url(await self._job(job))
        return http.result_at(video, f"LTX job {job.id}")  # a plain URL: no key sent with it

    async def cancel(self, job: base.ProviderJob) -> None:
        """LTX has no cancel endpoint: the job runs to its end (and is billed)."""

    async def _job(self, job: base.ProviderJob) -> dict[str, Any]:
        endpoint = job.data.get("endpoint")
        path = JOB_PATH.format(
            endpoint=endpoint if isinstance(endpoint, str) else TEXT_TO_VIDEO, id=job.id
        )
        return await http.get_job(
            self._client,
            path,
            lost=lambda exc: _lost(exc, job.id),
            request_id_header=REQUEST_ID_HEADER,
            refine=errors.refine,
        )

    async def _media_uri(self, url: str) -> str:
        """An https URL with a domain name as given (once checked to be an image we may
        fetch); anything else inline, as LTX takes data URIs."""
        data, mime = await load_image(url, allow_private=self._allow_private)
        host = urlsplit(url).hostname or ""
        named = parse_ip_literal(host) is None and forbidden_host_reason(host) is None
        if url.startswith("https://") and named:  # LTX fetches domain names only, not IPs
            return url
        inline = to_data_uri(data, mime)
        if len(inline) > MAX_DATA_URI_CHARS:
            raise base.InvalidInput(
                "LTX takes an inline image of at most 7 MB: give an https image URL instead"
            )
        return inline


def _lost(exc: base.ProviderError, job_id: str) -> base.ProviderError:
    # LTX keeps a job 24 hours after it ends; past that (or for an id it never made) the
    # GET is a 404. Nothing was delivered, so the generation may be made again.
    return http.reclassify(
        exc,
        base.JobFailed,
        f"LTX no longer has job {job_id} (jobs are kept 24 hours)",
        provider_code="not_found_error",
        retryable=True,
    )


def _create_body(request: base.ProviderRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "prompt": request.prompt,
        "model": request.model,
        "duration": max(1, round(request.duration)),
        "resolution": _resolution(request.controls.resolution, request.aspect_ratio),
    }
    fps = request.options.get("fps")
    if isinstance(fps, int) and not isinstance(fps, bool):
        body["fps"] = fps
    if request.controls.generate_audio is not None:
        body["generate_audio"] = request.controls.generate_audio
    return body


def _resolution(tier: str | None, aspect_ratio: str) -> str:
    size = SIZES.get(tier or DEFAULT_RESOLUTION)
    if size is None:
        raise base.InvalidInput(f"LTX makes no {tier} video")
    width, height = size
    if aspect_ratio == "9:16":
        width, height = height, width
    elif aspect_ratio != "16:9":
        raise base.InvalidInput("LTX makes 16:9 and 9:16 videos only")
    return f"{width}x{height}"


def _video_url(answer: Mapping[str, Any]) -> str | None:
    return http.text_at(answer, "result", "video_url")


FACTORY = ProviderFactory("ltx", (CREDENTIAL,), LtxProvider, DEFAULT_BASE_URL)

__all__ = ["FACTORY", "LtxProvider"]
