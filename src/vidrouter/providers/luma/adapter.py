"""Luma AI's Dream Machine API (Ray 2, Ray Flash 2).

Wire format (lumaai SDK 1.21.0; docs.lumalabs.ai): `POST /dream-machine/v1/generations/video`
creates a generation (201, a `Generation` object in state `queued`), `GET .../generations/{id}`
reports `queued`, `dreaming`, `completed` (video at `assets.video`) or `failed`
(`failure_reason`, free text), `DELETE .../generations/{id}` removes it. Errors are
`{"detail": "..."}`. Luma has no idempotency key, no progress figure and no error codes.

Luma fetches keyframe images itself, so an image must be an http(s) URL: a `data:` URI is
refused here as invalid input until images can be stored and signed on our side. Edits
(modify) and extensions: `inputs.py`.
"""

from __future__ import annotations

import logging
import math
from typing import Any, ClassVar

from vidrouter.providers import base, http
from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.controls_fields import offered_durations
from vidrouter.providers.luma import errors, inputs

log = logging.getLogger(__name__)

CREDENTIAL = "LUMAAI_API_KEY"
DEFAULT_BASE_URL = "https://api.lumalabs.ai"
CREATE_PATH = "/dream-machine/v1/generations/video"
GENERATION_PATH = "/dream-machine/v1/generations/{id}"
REQUEST_ID_HEADER = "x-request-id"  # unconfirmed: Luma documents no request-id header
DEFAULT_RESOLUTION = "720p"


class LumaProvider(http.BearerAdapter):
    credential = CREDENTIAL
    name: ClassVar[str] = "luma"
    # Ray 2 at 720p typically takes 1-3 minutes (Ray Flash 2 well under one); queues grow at
    # peak times. Luma documents no maximum: 30 minutes is our bound (unconfirmed).
    poll_policy = base.PollPolicy.seconds(15, 5, 20, give_up=30 * 60)

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        modify = inputs.is_modify(request)
        body = inputs.modify_body(request) if modify else _create_body(request)
        response = await http.send(
            self._client,
            "POST",
            inputs.MODIFY_PATH if modify else CREATE_PATH,
            json=body,
            request_id_header=REQUEST_ID_HEADER,
            refine=errors.refine,
        )
        generation = http.json_object(response)
        job_id = generation.get("id")
        if not isinstance(job_id, str) or not job_id:
            raise base.MalformedResponse("Luma answered the create without a generation id")
        # Billed per pixel generated: a modify as long as its source, else the clip asked for.
        seconds = request.source.seconds if modify and request.source else _seconds(request)
        return base.ProviderJob(
            id=job_id,
            data={"model": request.model, "duration": seconds},
            request_id=response.headers.get(REQUEST_ID_HEADER),
        )

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        generation = await self._get(job)
        state = generation.get("state")
        mapped = _STATES.get(state) if isinstance(state, str) else None
        if mapped is None:
            # Unknown vocabulary: keep polling (bounded by max_wait) and say so.
            log.warning("luma_unknown_state", extra={"job_id": job.id, "state": str(state)})
            return base.ProviderStatus(base.JobState.RUNNING)
        if mapped is base.JobState.FAILED:
            reason = generation.get("failure_reason")
            return base.ProviderStatus(
                base.JobState.FAILED, error=errors.job_failure(reason, job.id)
            )
        if mapped is base.JobState.SUCCEEDED:
            video = _video_url(generation)
            if video is None:
                raise base.MalformedResponse(f"Luma generation {job.id} completed without a video")
            duration = job.data.get("duration")
            billed = float(duration) if isinstance(duration, int | float) else None
            return base.ProviderStatus(
                base.JobState.SUCCEEDED,
                progress=100,
                billed_seconds=billed,
                data={**job.data, "video_url": video},
            )
        return base.ProviderStatus(mapped)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        video = http.stored_url(job) or _video_url(await self._get(job))
        # assets.video is a public CDN URL: the download needs no credentials.
        return http.result_at(video, f"Luma generation {job.id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        """Luma has no cancel: deleting the generation is the only way to drop it."""
        await http.delete_tolerating(
            self._client,
            "DELETE",
            GENERATION_PATH.format(id=job.id),
            request_id_header=REQUEST_ID_HEADER,
        )

    async def _get(self, job: base.ProviderJob) -> dict[str, Any]:
        try:
            response = await http.send(
                self._client,
                "GET",
                GENERATION_PATH.format(id=job.id),
                request_id_header=REQUEST_ID_HEADER,
                refine=errors.refine,
            )
        except base.ProviderError as exc:
            if exc.status_code != 404:
                raise
            raise http.reclassify(
                exc, base.JobFailed, f"Luma no longer has generation {job.id}"
            ) from exc
        return http.json_object(response)


_STATES = {
    "queued": base.JobState.QUEUED,
    "pending": base.JobState.QUEUED,  # seen in older answers
    "dreaming": base.JobState.RUNNING,
    "completed": base.JobState.SUCCEEDED,
    "failed": base.JobState.FAILED,
}


def _create_body(request: base.ProviderRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "generation_type": "video",
        "model": request.model,
        "prompt": request.prompt,
        "aspect_ratio": request.aspect_ratio,
        "duration": f"{_seconds(request)}s",
        "resolution": request.controls.resolution or DEFAULT_RESOLUTION,
    }
    extension = inputs.extension_frames(request)
    if extension is not None:  # the source's shape and resolution carry on
        del body["aspect_ratio"], body["resolution"]
        body["keyframes"] = extension
        if request.callback_url is not None:
            body["callback_url"] = request.callback_url
        return body
    loop = request.options.get("loop")
    if isinstance(loop, bool):
        body["loop"] = loop
    # The start and end frames; Ray 2 makes no audio and takes no seed or negative prompt.
    frames = {"frame0": request.image_url, "frame1": request.controls.end_image_url}
    keyframes = {name: _image_frame(url) for name, url in frames.items() if url is not None}
    if keyframes:
        body["keyframes"] = keyframes
    if request.callback_url is not None:
        body["callback_url"] = request.callback_url
    return body


def _image_frame(url: str) -> dict[str, str]:
    if not url.startswith(("https://", "http://")):
        raise base.InvalidInput(
            "Luma needs an http(s) image URL (it fetches the image itself); "
            "data: URIs are not supported on this route"
        )
    return {"type": "image", "url": url}


def _seconds(request: base.ProviderRequest) -> int:
    """The shortest duration the route offers that is at least the one asked for (a route
    declaring none: the duration asked, in whole seconds)."""
    offered = offered_durations(request.options)  # the catalog's: sent as "5s" / "9s"
    if not offered:
        return math.ceil(request.duration)
    for seconds in offered:
        if request.duration <= seconds:
            return seconds
    allowed = ", ".join(str(d) for d in offered)
    raise base.InvalidInput(f"Luma generates only these durations (seconds): {allowed}")


def _video_url(generation: dict[str, Any]) -> str | None:
    return http.text_at(generation, "assets", "video")


FACTORY = ProviderFactory("luma", (CREDENTIAL,), LumaProvider, DEFAULT_BASE_URL)

__all__ = ["FACTORY", "LumaProvider"]
