"""MiniMax Hailuo video on the MiniMax Open Platform (international host api.minimax.io).

Wire format (platform.minimax.io API reference, checked 2026-11-22): three steps.
`POST /v1/video_generation` creates a task and answers `{task_id, base_resp}`;
`GET /v1/query/video_generation?task_id=` reports `status` Preparing, Queueing, Processing,
Success (with `file_id`, `video_width`, `video_height`) or Fail; `GET /v1/files/retrieve?
file_id=` answers `{file: {..., download_url}}`, a pre-signed link valid for one hour, so it is
fetched afresh for every download and never stored.

Every answer carries `base_resp: {status_code, status_msg}`; MiniMax usually reports errors
as HTTP 200 with a non-zero `status_code`, so each answer is checked for one. There is no
cancel endpoint, no idempotency key, no progress figure. Images go inline as data URIs.
A subject reference (S2V-01) is `inputs.py`.
"""

from __future__ import annotations

import io
import logging
from typing import Any, ClassVar

import httpx
from PIL import Image, UnidentifiedImageError

from vidrouter.domain.generation import JobData
from vidrouter.domain.inputs import REFERENCE_TO_VIDEO
from vidrouter.providers import base, http
from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.controls_fields import offered_durations
from vidrouter.providers.images import decode_data_uri, load_image, to_data_uri
from vidrouter.providers.minimax import errors, inputs

log = logging.getLogger(__name__)

CREDENTIAL = "MINIMAX_API_KEY"
DEFAULT_BASE_URL = "https://api.minimax.io"
CREATE_PATH = "/v1/video_generation"
QUERY_PATH = "/v1/query/video_generation"
RETRIEVE_PATH = "/v1/files/retrieve"
REQUEST_ID_HEADER = errors.REQUEST_ID_HEADER
DEFAULT_RESOLUTION = "768P"
# Our resolution -> MiniMax's (768P is MiniMax's own tier, 1366x768: not 720p).
RESOLUTIONS = {"768p": "768P", "1080p": "1080P"}
MAX_PROMPT_CHARS = 2000
# Models that only animate a first frame (MiniMax refuses them a text-only request).
IMAGE_ONLY_MODELS = frozenset(
    {"MiniMax-Hailuo-2.3-Fast", "I2V-01", "I2V-01-Director", "I2V-01-live"}
)
# First-frame limits from the image-to-video reference: short side over 300 px, aspect ratio
# between 2:5 and 5:2, under 20 MB (images.load_image enforces 20 MiB).
MIN_SHORT_SIDE = 300
MIN_RATIO, MAX_RATIO = 2 / 5, 5 / 2


class MinimaxProvider(http.BearerAdapter):
    credential = CREDENTIAL
    name: ClassVar[str] = "minimax"
    # A 6 s 768P video typically takes 1-3 minutes; MiniMax suggests polling every 10 s and
    # documents no maximum: 30 minutes is our bound (unconfirmed).
    poll_policy = base.PollPolicy.seconds(20, 10, 30, give_up=30 * 60)

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        if request.type == REFERENCE_TO_VIDEO:
            subject = await inputs.subject_body(request, self._frame)
            seconds, resolution = inputs.SUBJECT_SECONDS, inputs.SUBJECT_RESOLUTION
            return await self._create(subject, {"duration": seconds, "resolution": resolution})
        body = _create_body(request)
        end_frame = request.controls.end_image_url  # MiniMax-Hailuo-02 only (the catalog's)
        if request.image_url is not None:
            body["first_frame_image"] = await self._frame(request.image_url)
            if end_frame is not None:
                body["last_frame_image"] = await self._frame(end_frame)
        elif request.model in IMAGE_ONLY_MODELS:
            raise base.InvalidInput(
                f"{request.model} only animates an image: image_url is required"
            )
        data: JobData = {"duration": body["duration"], "resolution": body["resolution"]}
        return await self._create(body, data)

    async def _create(self, body: dict[str, Any], data: JobData) -> base.ProviderJob:
        response, answer = await self._call("POST", CREATE_PATH, json=body)
        task_id = answer.get("task_id")
        if not isinstance(task_id, str | int) or isinstance(task_id, bool) or task_id == "":
            raise base.MalformedResponse(f"POST {CREATE_PATH}: no task_id in the answer")
        return base.ProviderJob(str(task_id), data, response.headers.get(REQUEST_ID_HEADER))

    async def _frame(self, image_url: str) -> str:
        """The image as MiniMax takes it, checked against its limits before anything is sent."""
        if image_url.startswith("data:"):
            data, _ = decode_data_uri(image_url)
            _check_dimensions(data)
            return image_url
        data, mime = await load_image(image_url, allow_private=self._allow_private)
        _check_dimensions(data)
        return to_data_uri(data, mime)

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        response, answer = await self._call(
            "GET", QUERY_PATH, params={"task_id": job.id}, allow_error_codes=True
        )
        status = answer.get("status")
        code, message = errors.base_resp(answer)
        if status == "Fail":
            return base.ProviderStatus(
                base.JobState.FAILED, error=errors.job_failure(code, message, response)
            )
        if code != 0:
            raise errors.for_code(code, message, response)
        state = _STATES.get(status) if isinstance(status, str) else None
        if state is None:
            # A status outside the documented five: keep polling, bounded by max_wait.
            log.warning("minimax_unknown_status", extra={"job_id": job.id, "status": status})
            return base.ProviderStatus(base.JobState.RUNNING)
        if state is not base.JobState.SUCCEEDED:
            return base.ProviderStatus(state)
        file_id = answer.get("file_id")
        if not isinstance(file_id, str | int) or isinstance(file_id, bool) or file_id == "":
            raise base.MalformedResponse(
                f"GET {QUERY_PATH}: task {job.id} succeeded without a file_id"
            )
        data = {**job.data, "file_id": str(file_id)}
        for key in ("video_width", "video_height"):
            value = answer.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                data[key] = value
        duration = job.data.get("duration")
        billed = float(duration) if isinstance(duration, int | float) else None
        # MiniMax bills a whole video of the requested length (6 or 10 s).
        return base.ProviderStatus(
            base.JobState.SUCCEEDED, progress=100, billed_seconds=billed, data=data
        )

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        file_id = job.data.get("file_id")
        if file_id is None:
            raise base.MalformedResponse(f"task {job.id} has no file_id to download")
        _, answer = await self._call("GET", RETRIEVE_PATH, params={"file_id": str(file_id)})
        file = answer.get("file")
        url = file.get("download_url") if isinstance(file, dict) else None
        # Pre-signed: no Authorization header (it is not MiniMax's host).
        return http.result_at(url, f"MiniMax file {file_id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        """MiniMax's v1 video API has no way to cancel a task: it runs to its end."""

    async def _call(
        self, method: str, path: str, *, allow_error_codes: bool = False, **kwargs: Any
    ) -> tuple[httpx.Response, dict[str, Any]]:
        """One request; its JSON answer, or the error its HTTP status or base_resp stands for.

        With `allow_error_codes` a non-zero `base_resp.status_code` in a 2xx answer is left to
        the caller (a task's own failure comes back that way)."""
        response = await http.send(
            self._client,
            method,
            path,
            request_id_header=REQUEST_ID_HEADER,
            refine=errors.refine,
            **kwargs,
        )
        answer = http.json_object(response)
        code, message = errors.base_resp(answer)
        if code != 0 and not allow_error_codes:
            raise errors.for_code(code, message, response)
        return response, answer


_STATES = {
    "Preparing": base.JobState.QUEUED,
    "Queueing": base.JobState.QUEUED,
    "Processing": base.JobState.RUNNING,
    "Success": base.JobState.SUCCEEDED,
    "Fail": base.JobState.FAILED,
}


def _create_body(request: base.ProviderRequest) -> dict[str, Any]:
    duration = int(request.duration)
    offered = offered_durations(request.options)  # the catalog's route options
    if duration != request.duration or (offered and duration not in offered):
        allowed = " or ".join(map(str, offered)) if offered else "whole"
        raise base.InvalidInput(f"MiniMax makes videos of {allowed} seconds")
    controls = request.controls
    chosen = RESOLUTIONS.get(controls.resolution or "") or request.options.get("resolution")
    resolution = str(chosen or DEFAULT_RESOLUTION).upper()
    if resolution == "1080P" and duration != 6:
        raise base.InvalidInput("MiniMax makes 1080P videos of 6 seconds only")
    if len(request.prompt) > MAX_PROMPT_CHARS:
        raise base.InvalidInput(f"MiniMax takes prompts of at most {MAX_PROMPT_CHARS} characters")
    if request.aspect_ratio != "16:9":
        # Text-to-video comes out 16:9; with a first frame, the image's own shape wins.
        raise base.InvalidInput("MiniMax has no aspect ratio parameter: its videos are 16:9")
    body: dict[str, Any] = {
        "model": request.model,
        "prompt": request.prompt,
        "duration": duration,
        "resolution": resolution,
    }
    # MiniMax rewrites the prompt unless told not to: say so only when someone chose.
    optimizer: object = controls.enhance_prompt
    if optimizer is None:
        optimizer = request.options.get("prompt_optimizer")
    if isinstance(optimizer, bool):
        body["prompt_optimizer"] = optimizer
    # callback_url is not sent: MiniMax first POSTs a `challenge` that must be echoed within
    # 3 s, which nothing on our side answers; we poll instead.
    return body


def _check_dimensions(data: bytes) -> None:
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError) as exc:
        raise base.InvalidInput(f"the image cannot be read: {exc}") from exc
    if min(width, height) <= MIN_SHORT_SIDE:
        raise base.InvalidInput(
            f"MiniMax needs a first frame whose short side exceeds {MIN_SHORT_SIDE} px "
            f"(got {width}x{height})"
        )
    if not MIN_RATIO <= width / height <= MAX_RATIO:
        raise base.InvalidInput(
            f"MiniMax needs a first frame with an aspect ratio between 2:5 and 5:2 "
            f"(got {width}x{height})"
        )


FACTORY = ProviderFactory("minimax", (CREDENTIAL,), MinimaxProvider, DEFAULT_BASE_URL)
