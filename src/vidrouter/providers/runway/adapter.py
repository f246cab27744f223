"""Runway's developer API (api.dev.runwayml.com): Runway's own video models.

    POST   /v1/text_to_video | /v1/image_to_video  -> {"id": <task id>, "estimatedCost": {...}}
    GET    /v1/tasks/{id}   -> status PENDING | THROTTLED | RUNNING | SUCCEEDED | FAILED | CANCELLED
    DELETE /v1/tasks/{id}   -> cancels a task that has not finished

Every request carries `Authorization: Bearer <RUNWAYML_API_SECRET>` and `X-Runway-Version`.
Runway takes no idempotency key and no metadata, so the generation id is not sent anywhere: a
submit whose answer was lost may leave an orphan task at Runway (it is billed if it runs).
Video edits go to `/v1/video_to_video` (`inputs.py`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import quote

import httpx

from vidrouter.domain.generation import JobData
from vidrouter.domain.inputs import VIDEO_TO_VIDEO
from vidrouter.providers import base, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.controls_fields import TEXT_ASPECT_RATIOS, listed
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.providers.runway import errors, inputs

API_VERSION = "2024-11-06"
DEFAULT_BASE_URL = "https://api.dev.runwayml.com"
CREDENTIAL = "RUNWAYML_API_SECRET"
REQUEST_ID_HEADER = "x-request-id"  # kept when Runway sends one
MAX_PROMPT_UTF16 = 1000  # promptText, in UTF-16 code units
MAX_DATA_URI_CHARS = 5 * 1024 * 1024  # promptImage as a data URI; https URLs are fetched by Runway

# Our aspect ratios as Runway's output resolutions ("width:height" in pixels). Which of them a
# model makes, and which only from an image, is the catalog's (`aspect_ratios`, route option
# `text_aspect_ratios`); a model without text-to-video lacks it in its `capabilities`.
RATIOS = {"16:9": "1280:720", "9:16": "720:1280", "1:1": "960:960"}


class RunwayProvider:
    name: ClassVar[str] = "runway"
    # Runway: "do not expect updates more often than every five seconds"; Gen-4 Turbo takes
    # well under a minute, Gen-4.5 a few; THROTTLED tasks wait for a free slot of the account.
    poll_policy = base.PollPolicy.seconds(10, 5, 20, give_up=30 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        headers = http.bearer(config.key(CREDENTIAL), **{"X-Runway-Version": API_VERSION})
        self._client = http.client_for(config, headers)
        self._allow_private = config.allow_private_images

    # --- submit -----------------------------------------------------------------------------

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        if request.type == VIDEO_TO_VIDEO:
            _check_prompt(request.prompt)
            edit = await inputs.edit_body(request)
            edit.update(_route_extras(request.options))
            return await self._create(inputs.PATH, edit, inputs.billed_seconds(request))
        ratio = RATIOS.get(request.aspect_ratio)
        if ratio is None:
            raise base.InvalidInput(f"Runway does not make {request.aspect_ratio} videos")
        _check_prompt(request.prompt)
        duration = max(1, round(request.duration))
        body: dict[str, Any] = {
            "model": request.model,
            "promptText": request.prompt,
            "ratio": ratio,
            "duration": duration,
        }
        if request.image_url:
            body["promptImage"] = await self._prompt_image(request.image_url)
            path = "/v1/image_to_video"
        else:
            text_ratios = listed(request.options, TEXT_ASPECT_RATIOS)
            if text_ratios and request.aspect_ratio not in text_ratios:
                allowed = ", ".join(sorted(text_ratios))
                raise base.InvalidInput(
                    f"{request.model} makes {request.aspect_ratio} videos only from an image "
                    f"(without image_url: {allowed})",
                    provider_code="ratio_needs_image",
                )
            path = "/v1/text_to_video"
        # Gen-4.x have no resolution or audio field (the ratio is the pixel size; they are
        # silent): of the controls only the seed travels.
        if request.controls.seed is not None:
            body["seed"] = request.controls.seed
        body.update(_route_extras(request.options))
        return await self._create(path, body, duration)

    async def _create(self, path: str, body: dict[str, Any], duration: int) -> base.ProviderJob:
        response = await self._send("POST", path, json=body)
        task_id = http.json_object(response).get("id")
        if not isinstance(task_id, str) or not task_id:
            raise base.MalformedResponse(f"POST {path}: the answer has no task id")
        return base.ProviderJob(
            task_id,
            {"endpoint": path, "duration": duration},
            request_id=response.headers.get(REQUEST_ID_HEADER),
        )

    async def _prompt_image(self, url: str) -> str:
        """An https URL goes to Runway as it is (Runway fetches it); anything else is loaded
        here, checked, and sent inline as a data URI."""
        if url.startswith("https://"):
            return url
        data, mime = await load_image(url, allow_private=self._allow_private)
        uri = to_data_uri(data, mime)
        if len(uri) > MAX_DATA_URI_CHARS:
            raise base.InvalidInput(
                "the image is larger than Runway's 5 MB limit for inline images; "
                "pass it as an https URL instead"
            )
        return uri

    # --- poll, fetch, cancel ----------------------------------------------------------------

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        try:
            response = await self._send("GET", _task_path(job.id))
        except base.InvalidInput as exc:
            if exc.status_code == 404:
                return base.ProviderStatus(
                    base.JobState.FAILED,
                    error=base.JobFailed(
                        f"Runway no longer knows task {job.id}",
                        provider_code="task_not_found",
                        request_id=exc.request_id,
                        status_code=404,
                    ),
                )
            raise
        return _status(http.json_object(response), job)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        # A presigned URL: it needs no key, and ours must not travel to the CDN.
        return http.result_at(job.data.get("output_url"), f"Runway task {job.id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        await http.delete_tolerating(
            self._client, "DELETE", _task_path(job.id), request_id_header=REQUEST_ID_HEADER
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return await http.send(
            self._client,
            method,
            url,
            request_id_header=REQUEST_ID_HEADER,
            refine=errors.refine,
            **kwargs,
        )


# --- translation ----------------------------------------------------------------------------


def _task_path(task_id: str) -> str:
    return f"/v1/tasks/{quote(task_id, safe='')}"


def _check_prompt(prompt: str) -> None:
    units = len(prompt.encode("utf-16-le")) // 2
    if units > MAX_PROMPT_UTF16:
        raise base.InvalidInput(
            f"Runway takes prompts of at most {MAX_PROMPT_UTF16} UTF-16 code units; "
            f"this one has {units}",
            provider_code="prompt_too_long",
        )


def _route_extras(options: Mapping[str, object]) -> dict[str, Any]:
    """Optional wire fields a catalog route may set: `public_figure_threshold`."""
    extras: dict[str, Any] = {}
    threshold = options.get("public_figure_threshold")
    if isinstance(threshold, str):
        extras["contentModeration"] = {"publicFigureThreshold": threshold}
    return extras


def _status(task: Mapping[str, Any], job: base.ProviderJob) -> base.ProviderStatus:
    status = task.get("status")
    if status in ("PENDING", "THROTTLED"):
        return base.ProviderStatus(base.JobState.QUEUED, progress=0)
    if status == "RUNNING":
        return base.ProviderStatus(base.JobState.RUNNING, progress=_percent(task.get("progress")))
    if status == "SUCCEEDED":
        output = task.get("output")
        url = output[0] if isinstance(output, list) and output else None
        if not isinstance(url, str) or not url:
            return base.ProviderStatus(
                base.JobState.FAILED,
                error=base.JobFailed("Runway reported success without an output", retryable=True),
            )
        data: JobData = {**job.data, "output_url": url}
        duration = job.data.get("duration")
        billed = float(duration) if isinstance(duration, int | float) else None
        return base.ProviderStatus(
            base.JobState.SUCCEEDED, progress=100, billed_seconds=billed, data=data
        )
    if status == "FAILED":
        return base.ProviderStatus(base.JobState.FAILED, error=errors.job_failure(task))
    if status == "CANCELLED":
        return base.ProviderStatus(base.JobState.CANCELED)
    raise base.MalformedResponse(f"Runway task {job.id} has an unknown status {status!r}")


def _percent(progress: object) -> int | None:
    if isinstance(progress, bool) or not isinstance(progress, int | float):
        return None
    if not math.isfinite(progress):
        return None
    return max(0, min(99, int(progress * 100)))


FACTORY = ProviderFactory("runway", (CREDENTIAL,), RunwayProvider, DEFAULT_BASE_URL)
