"""xAI Grok Imagine video over xAI's REST API (`api.x.ai`, `XAI_API_KEY`).

    create  POST /v1/videos/generations | /v1/videos/edits | /v1/videos/extensions
            (inputs.py) -> 200 {"request_id"}
    poll    GET  /v1/videos/{request_id} -> 200 in every state: `pending` (`progress`),
            `done` (`video.url`, `video.duration`, `video.respect_moderation`,
            `usage.cost_in_usd_ticks`), `failed` (`error.code`, `error.message`), `expired`
    errors  {"code", "error"} with the HTTP status (errors.py)

The official SDK (xai-sdk) speaks gRPC; this REST shape is xAI's documented JSON as the
gateways' adapters send it (Vercel AI SDK `xai-video-model.ts`, LiteLLM
`XAIVideoConfig`; sources in docs/providers/xai.md). xAI has no cancel, no idempotency key
and no callbacks: the job is polled, and a cancel only stops our polling.

Types (inputs.py): text, first frame (`image`) and reference images (`reference_images`)
on `/v1/videos/generations`; video-to-video on `POST /v1/videos/edits`; video-extend on
`POST /v1/videos/extensions` (the seconds added; xAI answers with the whole video). All
three are polled at the same `GET /v1/videos/{request_id}`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, ClassVar

from vidrouter.domain.generation import JobData
from vidrouter.providers import base, http
from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.xai import errors, inputs

log = logging.getLogger(__name__)

CREDENTIAL = "XAI_API_KEY"
DEFAULT_BASE_URL = "https://api.x.ai"
VIDEO_PATH = "/v1/videos/{request_id}"
TICKS_PER_USD = 10_000_000_000  # usage.cost_in_usd_ticks: 1 tick = 1e-10 USD (xai-sdk cost.py)


class XaiProvider(http.BearerAdapter):
    credential = CREDENTIAL
    name: ClassVar[str] = "xai"
    # "Typically up to several minutes" (docs.x.ai); the SDK gives up after 10 minutes by
    # default. Requests age out at xAI (`expired`), so our bound is 30 minutes.
    poll_policy = base.PollPolicy.seconds(10, 5, 15, give_up=30 * 60)

    async def submit(self, request: base.ProviderRequest) -> base.ProviderJob:
        operation, body = await inputs.operation_body(request, allow_private=self._allow_private)
        response = await http.send(
            self._client, "POST", inputs.OPERATIONS[operation], json=body, refine=errors.refine
        )
        request_id = http.json_object(response).get("request_id")
        if not isinstance(request_id, str) or not request_id:
            raise base.MalformedResponse("xAI answered the create without a request_id")
        data: JobData = {"model": request.model, "operation": operation}
        if operation == inputs.EXTENSION:
            data["added_seconds"] = body["duration"]
        return base.ProviderJob(id=request_id, data=data, request_id=request_id)

    async def poll(self, job: base.ProviderJob) -> base.ProviderStatus:
        answer = await http.get_job(
            self._client,
            VIDEO_PATH.format(request_id=job.id),
            lost=lambda exc: http.reclassify(
                exc, base.JobFailed, f"xAI no longer knows video request {job.id}"
            ),
            refine=errors.refine,
        )
        status = answer.get("status")
        video = answer.get("video")
        if status is None and isinstance(video, dict) and video.get("url"):
            status = "done"  # older answers carry the video without a status (Vercel AI SDK)
        if status == "pending":
            progress = answer.get("progress")
            shown = progress if isinstance(progress, int) and 0 <= progress <= 100 else None
            return base.ProviderStatus(base.JobState.RUNNING, progress=shown)
        if status == "done":
            return _done(job, answer)
        if status == "failed":
            return base.ProviderStatus(
                base.JobState.FAILED, error=errors.job_failure(answer, job.id)
            )
        if status == "expired":
            return base.ProviderStatus(base.JobState.FAILED, error=errors.expired(job.id))
        # Vocabulary we do not know: keep polling (bounded by max_wait) and say so.
        log.warning("xai_unknown_status", extra={"job_id": job.id, "status": str(status)})
        return base.ProviderStatus(base.JobState.RUNNING)

    async def fetch_result(self, job: base.ProviderJob) -> base.ResultRef:
        # A plain HTTPS URL on vidgen.x.ai, valid 24 hours: no credentials go with it.
        return http.result_at(http.stored_url(job), f"xAI video request {job.id}")

    async def cancel(self, job: base.ProviderJob) -> None:
        """xAI documents no cancel for video requests: the request runs to its end."""


def _done(job: base.ProviderJob, answer: Mapping[str, Any]) -> base.ProviderStatus:
    video = answer.get("video")
    video = video if isinstance(video, dict) else {}
    url = video.get("url")
    if video.get("respect_moderation") is False or not isinstance(url, str) or not url:
        return base.ProviderStatus(base.JobState.FAILED, error=errors.moderated(job.id))
    seconds = video.get("duration")
    billed = float(seconds) if isinstance(seconds, int | float) and seconds > 0 else None
    added = job.data.get("added_seconds")
    if isinstance(added, int | float) and added > 0:
        # An extension answers with the whole video; what it adds is what we bill (xAI's
        # own charge for it stays on the job as `cost_usd`).
        billed = float(added)
    data = {**job.data, "video_url": url}
    usage = answer.get("usage")
    ticks = usage.get("cost_in_usd_ticks") if isinstance(usage, dict) else None
    if isinstance(ticks, int) and not isinstance(ticks, bool) and ticks >= 0:
        data["cost_usd"] = ticks / TICKS_PER_USD  # xAI's own charge, for the operator
    return base.ProviderStatus(
        base.JobState.SUCCEEDED, progress=100, billed_seconds=billed, data=data
    )


FACTORY = ProviderFactory("xai", (CREDENTIAL,), XaiProvider, DEFAULT_BASE_URL)

__all__ = ["FACTORY", "XaiProvider"]
