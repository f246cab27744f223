"""Vidu (Shengshu) over its own API (`api.vidu.com`, `VIDU_API_KEY`).

    create  POST /ent/v2/text2video | img2video | start-end2video | reference2video
            {model, prompt, duration, resolution, aspect_ratio (text only), images?, seed?,
            audio?, payload, callback_url?} -> 200 {"task_id", "state": "created", ...}
    poll    GET  /ent/v2/tasks/{id}/creations -> {"state": created | queueing | processing |
            success | failed, "err_code", "credits", "creations": [{"url", "cover_url"}]}
    cancel  POST /ent/v2/tasks/{id}/cancel {"id"} -> {} (refused once the task runs)
    errors  {"code", "reason", "message", "metadata": {"trace_id"}} (errors.py)

The key goes as `Authorization: Token <key>` (not Bearer). The endpoint follows the inputs:
no image is text-to-video, a first frame image-to-video, a first and an end frame
start-end-to-video (`images` = [start, end]); image modes take the image's shape, so no
aspect ratio is sent with one. Images go as given when they are http(s) URLs (Vidu fetches
them) and inline as `data:` URIs otherwise. Our generation id rides in `payload`, which Vidu
echoes back. Reference images (reference-to-video) go to `/ent/v2/reference2video` as
`images` (1-7, in order; the prompt may name them), with the aspect ratio: inline as
`data:` URIs where Vidu could not fetch our copy.

Callbacks: Vidu POSTs the task on each state change to `callback_url`, signed with the key
(callbacks.py); we only ever take one as a hint to poll now.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from vidrouter.domain.inputs import REFERENCE_TO_VIDEO
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.providers.inline import url_or_inline
from vidrouter.providers.vidu import errors
from vidrouter.providers.vidu.callbacks import verify_callback

log = logging.getLogger(__name__)

CREDENTIAL = "VIDU_API_KEY"
DEFAULT_BASE_URL = "https://api.vidu.com"
TEXT, IMAGE, START_END = "text2video", "img2video", "start-end2video"
REFERENCE = "reference2video"
_ENDPOINTS: Mapping[str, str] = {
    kind: f"/ent/v2/{kind}" for kind in (TEXT, IMAGE, START_END, REFERENCE)
}
MAX_REFERENCES = 7
# The whole request body is at most 20 MB (platform.vidu.com docs): inline images share it.
MAX_INLINE_BYTES = 10 * 1024 * 1024
TASK_PATH = "/ent/v2/tasks/{id}/creations"
CANCEL_PATH = "/ent/v2/tasks/{id}/cancel"

_STATES: Mapping[str, base.JobState] = {
    "created": base.JobState.QUEUED,
    "queueing": base.JobState.QUEUED,
    "processing": base.JobState.RUNNING,
}


class ViduProvider:
    name: ClassVar[str] = "vidu"
    # q3-turbo typically 2-4 minutes, q3-pro 3-6 (reseller estimates); beyond 5 concurrent
    # tasks an organisation's tasks wait in `queueing`. Vidu publishes no maximum: 45 min.
    poll_policy = base.PollPolicy.seconds(15, 5, 20, give_up=45 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        self._key = config.key(CREDENTIAL)
        headers = {"Authorization": f"Token {self._key}", "Accept": "application/json"}
        self._client = http.client_for(config, headers)
        self._allow_private = config.allow_private_images

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        if request.type == REFERENCE_TO_VIDEO:
            kind, body = REFERENCE, _body(request, REFERENCE)
            body["images"] = await _references(request.references)
        else:
            kind, body = await self._framed(request)
        response = await http.send(
            self._client, "POST", _ENDPOINTS[kind], json=body, refine=errors.refine
        )
        task = http.json_object(response)
        task_id = task.get("task_id")
        if isinstance(task_id, int) and not isinstance(task_id, bool):
            task_id = str(task_id)
        if not isinstance(task_id, str) or not task_id:
            raise base.MalformedResponse("Vidu answered the create without a task_id")
        data = {"model": request.model, "kind": kind, "duration": body["duration"]}
        return base.ProviderJob(id=task_id, data=data, request_id=task_id)

    async def _framed(self, request: base.ProviderRequest) -> tuple[str, dict[str, Any]]:
        """Text, a first frame, or a first and an end frame: the endpoint and its body."""
        end = request.controls.end_image_url
        if end is not None and request.image_url is None:
            raise base.InvalidInput("Vidu takes an end frame only after a first frame")
        frames = [u for u in (request.image_url, end) if u is not None]
        kind = (TEXT, IMAGE, START_END)[len(frames)]
        body = _body(request, kind)
        if frames:
            body["images"] = [await self._image(url) for url in frames]
        return kind, body

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        task = await http.get_job(
            self._client, TASK_PATH.format(id=job.id), lost=_lost(job), refine=errors.refine
        )
        state = task.get("state")
        if state == "success":
            return _succeeded(job, task)
        if state == "failed":
            err_code = str(task.get("err_code") or "")
            if err_code == errors.USER_CANCELLED:
                return base.ProviderStatus(base.JobState.CANCELED)
            return base.ProviderStatus(
                base.JobState.FAILED, error=errors.job_failure(err_code, job.id)
            )
        mapped = _STATES.get(state) if isinstance(state, str) else None
        if mapped is None:
            raise base.MalformedResponse(f"Vidu task {job.id}: unexpected state {state!r}")
        return base.ProviderStatus(mapped)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        # creations[0].url is valid 24 hours and needs no credentials.
        return http.result_at(http.stored_url(job), f"Vidu task {job.id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        """Only a task that has not started can be cancelled: Vidu refuses the rest with a
        400 ("task state is scheduled, can not cancel"), and the task runs to its end."""
        try:
            await http.send(
                self._client,
                "POST",
                CANCEL_PATH.format(id=job.id),
                json={"id": job.id},
                refine=errors.refine,
            )
        except base.InvalidInput as exc:
            log.info("vidu_cancel_refused", extra={"job_id": job.id, "error": exc.provider_code})

    def callback_is_genuine(self, delivery: base.CallbackDelivery) -> bool:
        """Whether a callback is Vidu's: signed with our key for our callback URL, fresh."""
        return verify_callback(self._key, delivery.method, delivery.url, delivery.headers)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _image(self, url: str) -> str:
        """An http(s) URL as given (once checked to be an image we may fetch), else inline
        with its `data:image/...;base64,` prefix, as Vidu requires."""
        data, mime = await load_image(url, allow_private=self._allow_private)
        return url if url.startswith(("https://", "http://")) else to_data_uri(data, mime)


def _body(request: base.ProviderRequest, kind: str) -> dict[str, Any]:
    controls = request.controls
    body: dict[str, Any] = {
        "model": request.model,
        "prompt": request.prompt,
        "duration": max(1, round(request.duration)),
        "payload": request.generation_id,
    }
    if kind in (TEXT, REFERENCE):  # the frame modes take the image's shape
        body["aspect_ratio"] = request.aspect_ratio
    if controls.resolution is not None:
        body["resolution"] = controls.resolution
    if controls.generate_audio is not None:
        body["audio"] = controls.generate_audio
    if controls.seed is not None:
        body["seed"] = controls.seed
    if request.callback_url is not None:
        body["callback_url"] = request.callback_url
    return body


async def _references(references: tuple[base.ProviderMedia, ...]) -> list[str]:
    images = [m for m in references if m.kind == "image"]
    if not 1 <= len(images) <= MAX_REFERENCES or len(images) != len(references):
        raise base.InvalidInput(f"Vidu takes 1 to {MAX_REFERENCES} reference images, nothing else")
    return [await url_or_inline(m, max_bytes=MAX_INLINE_BYTES) for m in images]


def _succeeded(job: base.ProviderJob, task: Mapping[str, Any]) -> base.ProviderStatus:
    creations = task.get("creations")
    first = creations[0] if isinstance(creations, list) and creations else None
    url = first.get("url") if isinstance(first, dict) else None
    if not isinstance(url, str) or not url:
        # A finished task whose video is gone (after 24 hours): a new task is the way back.
        error = base.JobFailed(
            f"Vidu task {job.id} succeeded without a video",
            retryable=True,
            provider_code="CreationNotFound",
            request_id=job.id,
        )
        return base.ProviderStatus(base.JobState.FAILED, error=error)
    data = {**job.data, "video_url": url}
    credits = task.get("credits")
    if isinstance(credits, int | float) and not isinstance(credits, bool):
        data["credits"] = credits  # what Vidu charged, for the operator
    seconds = job.data.get("duration")
    billed = float(seconds) if isinstance(seconds, int | float) else None
    return base.ProviderStatus(
        base.JobState.SUCCEEDED, progress=100, billed_seconds=billed, data=data
    )


def _lost(job: base.ProviderJob) -> Callable[[base.ProviderError], base.ProviderError]:
    """A 404 at poll: `CreationNotFound` is a result that expired (a new task makes it
    again); `TaskNotFound` a task Vidu does not know (not tried again: it may have run)."""

    def lost(exc: base.ProviderError) -> base.ProviderError:
        expired = exc.provider_code == "CreationNotFound"
        return http.reclassify(
            exc,
            base.JobFailed,
            f"Vidu no longer has task {job.id}" + (" (its video expired)" if expired else ""),
            retryable=expired,
        )

    return lost


FACTORY = ProviderFactory("vidu", (CREDENTIAL,), ViduProvider, DEFAULT_BASE_URL)

__all__ = ["FACTORY", "ViduProvider"]
