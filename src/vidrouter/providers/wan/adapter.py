"""Alibaba Wan on Model Studio (DashScope, international): the asynchronous video-synthesis API.

    create   POST /api/v1/services/aigc/video-generation/video-synthesis
             (header `X-DashScope-Async: enable`) -> {"request_id", "output": {"task_id",
             "task_status": "PENDING"}}
    poll     GET  /api/v1/tasks/{task_id} -> output.task_status PENDING | RUNNING | SUCCEEDED |
             FAILED | CANCELED | UNKNOWN; output.video_url on success; usage.*duration
    cancel   POST /api/v1/tasks/{task_id}/cancel (only while PENDING)
    errors   {"request_id", "code", "message"} with the HTTP status; a failed task carries
             output.code / output.message

Two request shapes share that endpoint, chosen per route (catalog option `protocol`):
- "legacy" (wan2.6 and earlier): text-to-video takes `parameters.size` ("1280*720"), the
  image-to-video model takes `input.img_url` (a URL or a base64 data URI) and
  `parameters.resolution` ("720P") and keeps the image's aspect ratio;
- "media" (wan2.7 and later): `parameters.resolution` plus `parameters.ratio` ("16:9"), and
  the first frame as `input.media = [{"type": "first_frame", "url": ...}]`.

The request's controls: resolution -> the tier ("720P"; legacy text-to-video sends the
tier's `size` for the aspect ratio instead), negative_prompt -> `input.negative_prompt`,
seed -> `parameters.seed`, enhance_prompt -> `parameters.prompt_extend`, generate_audio ->
`parameters.audio` (where the route lists the switch: wan2.6), end_image_url -> a
`last_frame` media item (media shape).

References, edits and extensions go to the models the route's `r2v_model`, `edit_model` and
`extend_model` options name, or to wan2.1-vace-plus itself (`inputs.py`).

Route options: `i2v_model` (the provider model used when an image is given), `protocol`,
and, where the controls say nothing, `resolution` (the tier), `prompt_extend` and `audio`.
DashScope has neither an idempotency key nor callbacks, so neither is sent.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from vidrouter.domain.generation import JobData
from vidrouter.providers import base, http
from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.providers.wan import errors, inputs

log = logging.getLogger(__name__)

CREDENTIAL = "DASHSCOPE_API_KEY"
DEFAULT_BASE_URL = "https://dashscope-intl.aliyuncs.com"
CREATE_PATH = "/api/v1/services/aigc/video-generation/video-synthesis"
TASK_PATH = "/api/v1/tasks/{task_id}"
CANCEL_PATH = "/api/v1/tasks/{task_id}/cancel"
DEFAULT_RESOLUTION = "720P"
TIERS = {"480p": "480P", "720p": "720P", "1080p": "1080P"}  # ours -> DashScope's
MAX_SEED = 2_147_483_647  # DashScope's seed range is 0..2^31-1, narrower than ours
MAX_NEGATIVE_PROMPT = 500

LEGACY = "legacy"
MEDIA = "media"

# Text-to-video `size` of the legacy protocol, per resolution tier and aspect ratio.
SIZES: Mapping[str, Mapping[str, str]] = {
    "480P": {"16:9": "832*480", "9:16": "480*832", "1:1": "624*624"},
    "720P": {"16:9": "1280*720", "9:16": "720*1280", "1:1": "960*960"},
    "1080P": {"16:9": "1920*1080", "9:16": "1080*1920", "1:1": "1440*1440"},
}


class WanProvider(http.BearerAdapter):
    credential = CREDENTIAL
    name: ClassVar[str] = "wan"
    # Generation typically takes 1-5 minutes (Model Studio docs); tasks are kept 24 hours.
    poll_policy = base.PollPolicy.seconds(15, 10, 30, give_up=45 * 60)

    # --- submit -----------------------------------------------------------------------------

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        model = request.model
        typed = request.type in inputs.TYPED
        if typed:
            model = inputs.typed_model(request)
        elif request.image_url is not None:
            i2v_model = request.options.get("i2v_model")
            if isinstance(i2v_model, str) and i2v_model:
                model = i2v_model
        protocol = _protocol(request.options)  # the route's models share its shape
        payload = await self._input(request, protocol)
        params = _parameters(request, protocol)
        if typed:
            payload.update(inputs.typed_input(request, model))
            params = inputs.typed_parameters(request, model, params)
        body = {"model": model, "input": payload, "parameters": params}
        response = await self._send(
            "POST", CREATE_PATH, json=body, headers={"X-DashScope-Async": "enable"}
        )
        answer = http.json_object(response)
        output = answer.get("output")
        task_id = output.get("task_id") if isinstance(output, dict) else None
        if not isinstance(task_id, str) or not task_id:
            raise base.MalformedResponse(f"POST {CREATE_PATH}: no output.task_id in the answer")
        request_id = answer.get("request_id")
        return base.ProviderJob(
            id=task_id,
            data={"model": model, "protocol": protocol},
            request_id=request_id if isinstance(request_id, str) else None,
        )

    async def _input(self, request: base.ProviderRequest, protocol: str) -> dict[str, Any]:
        payload: dict[str, Any] = {"prompt": request.prompt}
        negative = request.controls.negative_prompt
        if negative is not None:
            if len(negative) > MAX_NEGATIVE_PROMPT:
                raise base.InvalidInput(
                    f"Wan takes a negative prompt of at most {MAX_NEGATIVE_PROMPT} characters"
                )
            payload["negative_prompt"] = negative
        url = request.image_url
        if url is None:
            return payload
        if protocol == LEGACY:
            data, mime = await load_image(url, allow_private=self._allow_private)
            payload["img_url"] = to_data_uri(data, mime)  # no need for Alibaba to reach our URL
            return payload
        frames = [("first_frame", url)]
        if request.controls.end_image_url is not None:
            frames.append(("last_frame", request.controls.end_image_url))
        payload["media"] = [{"type": kind, "url": await self._media_url(u)} for kind, u in frames]
        return payload

    async def _media_url(self, url: str) -> str:
        """An http(s) URL as given (once checked to be an image we may fetch), else inline."""
        data, mime = await load_image(url, allow_private=self._allow_private)
        return url if url.startswith(("http://", "https://")) else to_data_uri(data, mime)

    # --- poll, fetch, cancel ----------------------------------------------------------------

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        path = TASK_PATH.format(task_id=job.id)
        body = http.json_object(await self._send("GET", path))
        output = body.get("output")
        if not isinstance(output, dict):
            raise base.MalformedResponse(f"GET {path}: no output object in the answer")
        status = output.get("task_status")
        request_id = body.get("request_id") if isinstance(body.get("request_id"), str) else None
        if status == "SUCCEEDED":
            url = output.get("video_url")
            if not isinstance(url, str) or not url:
                raise base.MalformedResponse(f"GET {path}: task succeeded without output.video_url")
            data: JobData = {**job.data, "video_url": url}
            return base.ProviderStatus(
                base.JobState.SUCCEEDED, progress=100, billed_seconds=_billed(body), data=data
            )
        if status == "FAILED":
            return base.ProviderStatus(
                base.JobState.FAILED, error=errors.job_failure(output, request_id)
            )
        if status == "UNKNOWN":
            error = base.JobFailed(
                f"task {job.id} is unknown to DashScope (expired after 24 hours, or never made)",
                provider_code="UNKNOWN",
                request_id=request_id,
            )
            return base.ProviderStatus(base.JobState.FAILED, error=error)
        state = _STATES.get(status) if isinstance(status, str) else None
        if state is None:
            raise base.MalformedResponse(f"GET {path}: unexpected task_status {status!r}")
        return base.ProviderStatus(state)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        # A signed OSS URL: no credentials go with it.
        return http.result_at(job.data.get("video_url"), f"Wan task {job.id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        try:
            await self._send("POST", CANCEL_PATH.format(task_id=job.id))
        except (
            base.InvalidInput
        ) as exc:  # only PENDING tasks can be canceled; a running one runs on
            log.info("wan_cancel_refused", extra={"job_id": job.id, "error": exc.provider_code})

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await http.send(self._client, method, path, refine=errors.refine, **kwargs)


_STATES: Mapping[str, base.JobState] = {
    "PENDING": base.JobState.QUEUED,
    "SUSPENDED": base.JobState.QUEUED,
    "RUNNING": base.JobState.RUNNING,
    "SUCCEEDED": base.JobState.SUCCEEDED,
    "FAILED": base.JobState.FAILED,
    "CANCELED": base.JobState.CANCELED,
}


# --- request translation ------------------------------------------------------------------


def _protocol(options: Mapping[str, object]) -> str:
    """The route's request shape (catalog option `protocol`): legacy unless it says media."""
    return MEDIA if options.get("protocol") == MEDIA else LEGACY


def _parameters(request: base.ProviderRequest, protocol: str) -> dict[str, Any]:
    controls, options = request.controls, request.options
    chosen = TIERS.get(controls.resolution or "") or options.get("resolution")
    resolution = str(chosen or DEFAULT_RESOLUTION).upper()
    params: dict[str, Any] = {"duration": max(1, round(request.duration)), "watermark": False}
    image = request.image_url is not None
    if protocol == MEDIA:
        params["resolution"] = resolution
        if not image:  # image-to-video keeps the image's aspect ratio
            params["ratio"] = request.aspect_ratio
    elif image:
        params["resolution"] = resolution
    else:
        size = SIZES.get(resolution, {}).get(request.aspect_ratio)
        if size is None:
            raise base.InvalidInput(
                f"no Wan size for aspect ratio {request.aspect_ratio} at {resolution}"
            )
        params["size"] = size
    if controls.seed is not None:
        if controls.seed > MAX_SEED:
            raise base.InvalidInput(f"Wan takes a seed from 0 to {MAX_SEED}")
        params["seed"] = controls.seed
    # Only a route with the switch (catalog `supports`) is sent one; the others always sound.
    audio = controls.generate_audio if "generate_audio" in request.supports else None
    for flag, asked in (("prompt_extend", controls.enhance_prompt), ("audio", audio)):
        value = options.get(flag) if asked is None else asked
        if isinstance(value, bool):
            params[flag] = value
    return params


def _billed(body: Mapping[str, Any]) -> float | None:
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None
    for key in ("output_video_duration", "video_duration", "duration"):
        value = usage.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


FACTORY = ProviderFactory("wan", (CREDENTIAL,), WanProvider, DEFAULT_BASE_URL)
