"""ByteDance Seedance on BytePlus ModelArk (the Ark runtime API, v3).

Wire format (byteplus-python-sdk-v2 3.0.63, `byteplussdkarkruntime`; docs.byteplus.com
ModelArk 1520757 "Video Generation API"): `POST /api/v3/contents/generations/tasks` with
`{"model", "content": [{"type": "text", ...}, {"type": "image_url", "image_url": {"url"},
"role": "first_frame"}, (the same with "role": "last_frame")], "ratio", "duration",
"resolution", "seed", "generate_audio", ...}` answers `{"id": "cgt-..."}`;
`GET .../tasks/{id}` reports `status` queued, running, succeeded, failed, cancelled or expired,
`content.video_url` (a presigned URL kept 24 h), `usage.completion_tokens`, the `duration` it
made and, on failure, `error: {code, message}`; `DELETE .../tasks/{id}` cancels a queued task
(or deletes a finished one). Errors are `{"error": {"code", "message", "param", "type"}}`.

Ark has no idempotency key and no metadata field: the generation id travels in the
`X-Client-Request-Id` tracing header only. Images are sent inline as base64 data URIs (Ark
accepts URLs or data URIs), so Ark never has to reach an address a user chose. The 2.0
series' references, edits and extensions are typed `content` items (`inputs.py`).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any, ClassVar

from vidrouter.domain.generation import JobData
from vidrouter.providers import base, by_reference, http
from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.images import load_image, to_data_uri
from vidrouter.providers.seedance import errors, inputs

log = logging.getLogger(__name__)

CREDENTIAL = "ARK_API_KEY"
DEFAULT_BASE_URL = "https://ark.ap-southeast.bytepluses.com"
TASKS_PATH = "/api/v3/contents/generations/tasks"
TASK_PATH = TASKS_PATH + "/{id}"
CLIENT_REQUEST_ID_HEADER = "X-Client-Request-Id"  # the SDK's tracing header, echoed back
SERVER_REQUEST_ID_HEADER = "x-request-id"  # unconfirmed: Ark also quotes it in error messages
# Ark expires a task that has not finished after this many seconds (documented range
# 3600-259200, default 172800). One hour is the floor, and our own deadline sits just past it.
EXPIRES_AFTER_SECONDS = 3600
# Route options passed through to the create body as they are (the controls are not here:
# `resolution`, `seed` and `generate_audio` come from the request's controls).
BODY_OPTIONS = ("camera_fixed", "service_tier", "watermark")


class SeedanceProvider(http.BearerAdapter):
    credential = CREDENTIAL
    name: ClassVar[str] = "seedance"
    # A 5 s clip takes roughly 30-90 s (Pro Fast and Mini faster, 2.0 at 1080p slower), more
    # while the account's queue is long. Ark itself expires the task after an hour (see
    # EXPIRES_AFTER_SECONDS); our deadline is the backstop five minutes later.
    poll_policy = base.PollPolicy.seconds(10, 5, 20, give_up=EXPIRES_AFTER_SECONDS + 300)

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        body = await self._create_body(request)
        client_request_id = _client_request_id(request.generation_id)
        response = await http.send(
            self._client,
            "POST",
            TASKS_PATH,
            json=body,
            headers={CLIENT_REQUEST_ID_HEADER: client_request_id},
            request_id_header=SERVER_REQUEST_ID_HEADER,
            refine=errors.refine,
        )
        task = http.json_object(response)
        task_id = task.get("id")
        if not isinstance(task_id, str) or not task_id:
            raise base.MalformedResponse("Ark answered the create without a task id")
        return base.ProviderJob(
            id=task_id,
            data={"model": request.model, "duration": body["duration"]},
            request_id=response.headers.get(SERVER_REQUEST_ID_HEADER) or client_request_id,
        )

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        task = await self._get(job)
        status = task.get("status")
        if status == "expired":
            return base.ProviderStatus(
                base.JobState.FAILED,
                error=base.ProviderTimeout(
                    f"Ark task {job.id} expired before it finished", provider_code="expired"
                ),
            )
        state = _STATES.get(status) if isinstance(status, str) else None
        if state is None:
            log.warning("seedance_unknown_status", extra={"job_id": job.id, "status": str(status)})
            return base.ProviderStatus(base.JobState.RUNNING)
        if state is base.JobState.FAILED:
            return base.ProviderStatus(
                base.JobState.FAILED, error=errors.job_failure(task.get("error"), job.id)
            )
        if state is base.JobState.SUCCEEDED:
            return _succeeded(task, job)
        return base.ProviderStatus(state)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        video = http.stored_url(job) or _video_url(await self._get(job))
        # content.video_url is a presigned object-storage URL: no credentials needed.
        return http.result_at(video, f"Ark task {job.id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        """Ark cancels only queued tasks; a running one finishes (and is billed) anyway."""
        await http.delete_tolerating(
            self._client,
            "DELETE",
            TASK_PATH.format(id=job.id),
            gone=(400, 404, 409),  # running, already gone, already finished
            request_id_header=SERVER_REQUEST_ID_HEADER,
            refine=errors.refine,
        )

    async def _create_body(self, request: base.ProviderRequest) -> dict[str, Any]:
        controls = request.controls
        typed = request.type in by_reference.TYPED
        if typed:
            content = inputs.typed_content(request)
        else:
            content = [{"type": "text", "text": request.prompt}]
        frames = (("first_frame", request.image_url), ("last_frame", controls.end_image_url))
        for role, url in () if typed else frames:
            if url is not None:
                data, mime = await load_image(url, allow_private=self._allow_private)
                content.append(
                    {
                        "type": "image_url",
                        "image_url": {"url": to_data_uri(data, mime)},
                        "role": role,
                    }
                )
        body: dict[str, Any] = {
            "model": request.model,
            "content": content,
            "ratio": request.aspect_ratio,
            "duration": inputs.duration(request) if typed else _seconds(request.duration),
            "watermark": False,
            "execution_expires_after": EXPIRES_AFTER_SECONDS,
        }
        for key in BODY_OPTIONS:
            if key in request.options:
                body[key] = request.options[key]
        if controls.resolution is not None:
            body["resolution"] = controls.resolution
        if controls.seed is not None:
            body["seed"] = controls.seed
        # Ark's silent models (1.0) take no `generate_audio`: their route does not list the
        # switch (catalog `supports`), and their `false` is left out of the body.
        audio = controls.generate_audio
        if audio or (audio is False and "generate_audio" in request.supports):
            body["generate_audio"] = audio
        if request.callback_url is not None:
            body["callback_url"] = request.callback_url
        return body

    async def _get(self, job: base.ProviderJob) -> dict[str, Any]:
        def lost(exc: base.ProviderError) -> base.ProviderError:
            # Cancelled tasks are deleted after 24 h; nothing else will bring it back.
            _, message = errors.parse(exc.response)
            text = f"Ark no longer knows task {job.id}: {message}"
            return http.reclassify(exc, base.JobFailed, text)

        return await http.get_job(
            self._client,
            TASK_PATH.format(id=job.id),
            lost=lost,
            request_id_header=SERVER_REQUEST_ID_HEADER,
            refine=errors.refine,
        )


_STATES = {
    "queued": base.JobState.QUEUED,
    "running": base.JobState.RUNNING,
    "succeeded": base.JobState.SUCCEEDED,
    "failed": base.JobState.FAILED,
    "cancelled": base.JobState.CANCELED,
}


def _seconds(duration: float) -> int:
    """Ark takes whole seconds; the catalog lists only whole values, so this only rounds."""
    return max(1, round(duration))


def _client_request_id(generation_id: str) -> str:
    """The SDK's shape (UTC timestamp + letters and digits), carrying our generation id."""
    stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    return stamp + "".join(c for c in generation_id.removeprefix("gen_") if c.isalnum())


def _succeeded(task: dict[str, Any], job: base.ProviderJob) -> base.ProviderStatus:
    video = _video_url(task)
    if video is None:
        raise base.MalformedResponse(f"Ark task {job.id} succeeded without a video_url")
    data: JobData = {**job.data, "video_url": video}
    usage = task.get("usage")
    tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        data["completion_tokens"] = tokens
    made = task.get("duration")
    if not isinstance(made, int | float) or isinstance(made, bool) or made <= 0:
        made = job.data.get("duration")
    billed = float(made) if isinstance(made, int | float) else None
    return base.ProviderStatus(
        base.JobState.SUCCEEDED, progress=100, billed_seconds=billed, data=data
    )


def _video_url(task: dict[str, Any]) -> str | None:
    return http.text_at(task, "content", "video_url")


FACTORY = ProviderFactory("seedance", (CREDENTIAL,), SeedanceProvider, DEFAULT_BASE_URL)
