"""OpenRouter's error body `{"error": {code, message, metadata}}` and what it means for us.

The HTTP status is `error.code` (openrouter.ai/docs/api_reference/errors-and-debugging): 402
is no credit on the account or the key, 401 the key, 403 a moderation block (with
`metadata.reasons`) or a key not allowed; 429 and 503 are retried. The table is in
docs/providers/openrouter.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import httpx

from vidrouter.providers import base, http

REQUEST_ID_HEADERS = ("x-request-id", "cf-ray")  # neither is documented by OpenRouter
MODERATION = re.compile(
    r"moderation|flagged|content.policy|safety|prohibited|sensitive|nsfw|violat"
)
_IMAGE_WORDS = ("image", "frame")
_BAD_INPUT_WORDS = ("invalid", "unsupported", "decode", "could not be", "too large", "dimension")


def request_id(response: httpx.Response) -> str | None:
    return next((response.headers[h] for h in REQUEST_ID_HEADERS if h in response.headers), None)


def parse(response: httpx.Response) -> tuple[str, dict[str, Any]]:
    """(error.message, error.metadata) of an error answer."""
    body = http.error_json(response)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return " ".join(response.text.split())[:300], {}
    message, metadata = error.get("message"), error.get("metadata")
    return (message if isinstance(message, str) else ""), (
        metadata if isinstance(metadata, dict) else {}
    )


def refine(exc: base.ProviderError, *, lost_job: bool = False) -> base.ProviderError:
    response = exc.response
    if response is None:
        return exc
    status = response.status_code
    message, metadata = parse(response)
    reasons = metadata.get("reasons")
    flagged = isinstance(reasons, list) or "flagged_input" in metadata
    code = ",".join(str(r) for r in reasons) if isinstance(reasons, list) and reasons else None
    kw: dict[str, Any] = {
        "provider_code": code or str(status),
        "request_id": request_id(response) or exc.request_id,
    }
    text = f"{response.request.method} {response.request.url.path} answered {status}: {message}"
    if status in (400, 403) and (flagged or MODERATION.search(message.lower())):
        return http.reclassify(exc, base.ContentRejected, f"OpenRouter: {message}", **kw)
    if status in (401, 402, 403):  # our key, our credits: not the user's request
        return http.reclassify(exc, base.AccountRefused, text, **kw)
    if status in (404, 410) and lost_job:
        text = f"OpenRouter no longer knows this job ({text})"
        return http.reclassify(exc, base.JobFailed, text, retryable=True, **kw)
    if status in (404, 405):
        text = f"the route's base URL or model is misconfigured: {text}"
        return http.reclassify(exc, base.AccountRefused, text, **kw)
    if status == 499:
        return http.reclassify(exc, base.ProviderUnavailable, text, **kw)
    return http.reclassify(exc, type(exc), text, **kw)


def job_failure(video: Mapping[str, Any]) -> base.ProviderError:
    """A failed or expired job: the user's input (moderation, a bad image) or OpenRouter's."""
    status = str(video.get("status"))
    found = video.get("error")
    message = found if isinstance(found, str) and found else f"the video job {status}"
    lowered = message.lower()
    if status == "expired":
        return base.JobFailed(f"OpenRouter: {message}", retryable=True, provider_code="expired")
    if MODERATION.search(lowered):
        return base.ContentRejected(f"OpenRouter: {message}", provider_code=status)
    if any(w in lowered for w in _IMAGE_WORDS) and any(w in lowered for w in _BAD_INPUT_WORDS):
        return base.InvalidInput(f"OpenRouter: {message}", provider_code=status)
    return base.JobFailed(f"OpenRouter: {message}", retryable=True, provider_code=status)
