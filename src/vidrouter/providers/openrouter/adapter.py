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
OpenRouter normalises `resolution` ("4K" in capitals), `generate_audio`, `seed` and the last
frame (`frame_images` entry `last_frame`) for every model; the rest of our controls go to
the upstream through `provider.options.<slug>`, under names a route declares
(`"field.negative_prompt" = "provider.options.alibaba.negative_prompt"`; an empty name: not
sent, for a model without that input): providers/controls_fields.py. Other route options:
`image_as` ("first_frame", the default, or "reference"), `send_aspect_ratio` (default true),
`provider_options` (a JSON object string passed through as `provider.options`) and, where a
request carries no controls, `resolution` and `generate_audio`. No cancel endpoint exists.
References, edits and extensions are `input_references` (`inputs.py`); an edit is as long
as its source, the nearest of the route option `edit_durations`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar
from urllib.parse import quote

import httpx

from vidrouter.domain.controls import Controls
from vidrouter.domain.generation import JsonScalar
from vidrouter.domain.inputs import VIDEO_TO_VIDEO
from vidrouter.providers import base, by_reference, http
from vidrouter.providers.config import AdapterConfig, ProviderFactory
from vidrouter.providers.controls_fields import control_inputs, listed, merge
from vidrouter.providers.images import decode_data_uri, to_data_uri
from vidrouter.providers.openrouter import errors, inputs

log = logging.getLogger(__name__)

NAME = "openrouter"
CREDENTIAL = "OPENROUTER_API_KEY"
DEFAULT_BASE_URL = "https://openrouter.ai/api"
TITLE = "vidrouter"
OUR_RATIOS = ("16:9", "9:16", "1:1")
# The controls OpenRouter normalises for every model, and how it spells our values.
FIELDS = {"resolution": "resolution", "generate_audio": "generate_audio", "seed": "seed"}
VALUES = {"resolution": "4k=4K"}
_STATES = {
    "pending": base.JobState.QUEUED,
    "in_progress": base.JobState.RUNNING,
    "completed": base.JobState.SUCCEEDED,
    "failed": base.JobState.FAILED,
    "expired": base.JobState.FAILED,
    "cancelled": base.JobState.CANCELED,
}


class OpenRouterProvider:
    name: ClassVar[str] = NAME
    # OpenRouter: "typically 30 seconds to several minutes"; poll every 10-30 s. Seedance 2.0
    # and Veo queue for many minutes under load; no longest run is documented.
    poll_policy = base.PollPolicy.seconds(20, 10, 30, give_up=40 * 60)

    def __init__(self, config: AdapterConfig) -> None:
        self._key = config.credential(CREDENTIAL)
        self._base = config.base_url
        self._client = http.client_for(config, attribution_headers(config.public_url))

    # --- the provider interface -----------------------------------------------------------

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        body = await self._create_body(request)
        response = await self._send("POST", "/v1/videos", json=body)
        video = http.json_object(response)
        job_id = video.get("id")
        if not isinstance(job_id, str) or not job_id:
            raise base.MalformedResponse("POST /v1/videos answered without a job id")
        data: dict[str, JsonScalar] = {"model": request.model, "duration": body["duration"]}
        return base.ProviderJob(job_id, data, request_id=errors.request_id(response))

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        response = await self._send("GET", _job_path(job.id), lost_job=True)
        return status_of(http.json_object(response), job.data)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        # OpenRouter's authenticated content endpoint, on the host we talk to: the key is
        # never sent to whatever host a status answer might name.
        return base.ResultRef(
            url=f"{self._base}{_job_path(job.id)}/content?index=0", headers=self._auth()
        )

    async def cancel(self, job: base.ProviderJob) -> None:
        log.info("openrouter_cancel_unsupported", extra={"job_id": job.id})

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- HTTP -----------------------------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        if self._key is None:
            raise base.AccountRefused(f"{CREDENTIAL} is not set")
        return {"Authorization": f"Bearer {self._key}"}

    async def _send(
        self, method: str, path: str, *, lost_job: bool = False, **kw: Any
    ) -> httpx.Response:
        refine = functools.partial(errors.refine, lost_job=lost_job)
        return await http.send(
            self._client, method, path, headers=self._auth(), refine=refine, **kw
        )

    async def _create_body(self, request: base.ProviderRequest) -> dict[str, Any]:
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
            mode = options.get("image_as", "first_frame")
            if mode == "reference":
                body["input_references"] = [_image_part(request.image_url)]
            elif mode == "first_frame":
                body["frame_images"] = [_frame(request.image_url, "first_frame")]
                end = request.controls.end_image_url
                if end:
                    body["frame_images"].append(_frame(end, "last_frame"))
            else:
                raise base.AccountRefused(
                    f'{NAME} route option image_as must be "first_frame" or "reference"'
                )
        if request.type in by_reference.TYPED:
            body["prompt"], typed = inputs.typed_fields(request)
            body.update(typed)
            if request.type == VIDEO_TO_VIDEO and request.source is not None:
                body["duration"] = _edit_seconds(request.source.seconds, options)
        if request.callback_url:
            body["callback_url"] = request.callback_url
        passthrough = options.get("provider_options")
        if passthrough is not None:
            body["provider"] = {"options": _json_object_option(passthrough)}
        # The end frame is a frame_images entry (above), never a field of its own.
        return merge(body, control_inputs(options, _without_end(request), FIELDS, VALUES))


def _edit_seconds(seconds: float, options: Mapping[str, JsonScalar]) -> int:
    """An edit is as long as its source, the nearest of the route's `edit_durations` option
    ("4,5,...") where the model makes only some lengths."""
    whole = max(1, round(seconds))
    offered = [int(d) for d in listed(options, "edit_durations")]
    return min(offered, key=lambda d: abs(d - whole)) if offered else whole


def _image_part(url: str) -> dict[str, Any]:
    """A URL (our content host's signed copy when it is public) OpenRouter fetches itself; a
    data: URI is checked (PNG or JPEG, at most 20 MiB) and sent inline."""
    if url.startswith("data:"):
        url = to_data_uri(*decode_data_uri(url))
    return {"type": "image_url", "image_url": {"url": url}}


def _frame(url: str, frame_type: str) -> dict[str, Any]:
    return {**_image_part(url), "frame_type": frame_type}


def _without_end(request: base.ProviderRequest) -> Controls:
    return dataclasses.replace(request.controls, end_image_url=None)


def attribution_headers(public_url: str | None) -> dict[str, str]:
    """OpenRouter's app attribution: the title, and the app's URL when we have a public one."""
    headers = {"Accept": "application/json", "X-Title": TITLE, "X-OpenRouter-Title": TITLE}
    if public_url:
        headers["HTTP-Referer"] = public_url
    return headers


def _job_path(job_id: str) -> str:
    return f"/v1/videos/{quote(job_id, safe='')}"


def _flag(options: Mapping[str, JsonScalar], name: str, default: bool) -> bool:
    value = options.get(name, default)
    if not isinstance(value, bool):
        raise base.AccountRefused(f"{NAME} route option {name} must be true or false")
    return value


def _text_option(options: Mapping[str, JsonScalar], name: str) -> str:
    value = options.get(name)
    if not isinstance(value, str) or not value:
        raise base.AccountRefused(f"{NAME} route option {name} must be a string")
    return value


def _json_object_option(raw: JsonScalar) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise base.AccountRefused(
            f"{NAME} route option provider_options must be a JSON object string"
        )
    return value


# --- their answers onto ours ----------------------------------------------------------------


def status_of(video: Mapping[str, Any], data: Mapping[str, JsonScalar]) -> base.ProviderStatus:
    raw = video.get("status")
    state = _STATES.get(raw) if isinstance(raw, str) else None
    if state is None:
        raise base.MalformedResponse(f"OpenRouter reported an unknown video status {raw!r}")
    progress = video.get("progress")  # not in OpenRouter's schema; read where a proxy adds it
    percent = max(0, min(100, int(progress))) if isinstance(progress, int | float) else None
    if state is base.JobState.SUCCEEDED:
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
        return base.ProviderStatus(state, progress=100, billed_seconds=seconds, data=found)
    if state is base.JobState.FAILED:
        return base.ProviderStatus(state, progress=percent, error=errors.job_failure(video))
    return base.ProviderStatus(state, progress=percent)


async def _published(config: AdapterConfig, wanted: Sequence[str]) -> list[base.PublishedModel]:
    # The catalog reader is built on this module's names, so it is imported when asked for.
    from vidrouter.providers.openrouter import catalog

    return await catalog.published(config, wanted)


FACTORY = ProviderFactory(
    NAME, (CREDENTIAL,), OpenRouterProvider, DEFAULT_BASE_URL, catalog_reader=_published
)

__all__ = ["FACTORY", "OpenRouterProvider", "attribution_headers", "status_of"]
