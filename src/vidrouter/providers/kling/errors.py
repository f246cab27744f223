"""Kling's envelope `{code, message, request_id, data}` and what each documented code means.

Kling's code says more than its HTTP status: 1102 (no units left) comes with HTTP 429 like a
rate limit, and no retry fixes it. Codes from kling.ai/document-api (commonInfo, "Error
codes"); the table with our decision per code is in docs/providers/kling.md.
"""

from __future__ import annotations

from typing import Any

import httpx

from vidrouter.providers import base, http

TOKEN_CODES = {str(code) for code in (1000, 1001, 1002, 1003, 1004)}  # the JWT was refused
# 1000-1002 the key; 1100 account exception, 1101 arrears, 1102 no units, 1103 no access to
# the model; 1304 the IP allow-list.
ACCOUNT = {1000, 1001, 1002, 1100, 1101, 1102, 1103, 1304}
# Words in task_status_msg that mean moderation, a bad input image, or a transient fault.
_MODERATION_WORDS = ("risk control", "content", "sensitive", "security", "policy", "violat")
_IMAGE_WORDS = ("image", "picture", "resolution", "aspect ratio")
_TRANSIENT_WORDS = ("timeout", "timed out", "internal", "system error", "busy", "retry")


def for_code(code: int, body: dict[str, Any], response: httpx.Response) -> base.ProviderError:
    message = f"Kling {code}: {body.get('message') or 'no message'}"
    kw: dict[str, Any] = {
        "provider_code": str(code),
        "request_id": http.text_at(body, "request_id"),
        "status_code": response.status_code,
    }
    error: base.ProviderError
    if code in (1003, 1004):  # token not yet valid / expired: a fresh one may pass
        error = base.ProviderUnavailable(message, **kw)
    elif code in ACCOUNT:
        error = base.AccountRefused(message, **kw)
    elif 1200 <= code < 1300:
        error = base.InvalidInput(message, **kw)
    elif code in (1300, 1301):
        error = base.ContentRejected(message, **kw)
    elif code in (1302, 1303):  # the submit rate; the resource pack's concurrency
        error = base.RateLimited(message, retry_after=http.retry_after(response.headers), **kw)
    elif code == 5002:
        error = base.ProviderTimeout(message, **kw)
    elif code >= 5000:
        error = base.ProviderUnavailable(message, **kw)
    else:  # an undocumented code: trust the HTTP status
        error = http.error_for(response)
        error.provider_code, error.request_id = kw["provider_code"], kw["request_id"]
    error.response = response
    return error


def refine(exc: base.ProviderError) -> base.ProviderError:
    """A finer error from Kling's envelope; the HTTP status alone when there is none."""
    body = http.error_json(exc.response)
    if exc.response is None or not isinstance(body, dict) or not isinstance(body.get("code"), int):
        return exc
    return for_code(body["code"], body, exc.response)


def job_failure(message: str, request_id: str | None) -> base.ProviderError:
    """A task that ended `failed`: Kling says why only in words (`task_status_msg`)."""
    lowered = message.lower()
    detail = f"Kling task failed: {message}"
    kw: dict[str, Any] = {"provider_code": "task_failed", "request_id": request_id}
    if any(word in lowered for word in _MODERATION_WORDS):
        return base.ContentRejected(detail, **kw)
    if any(word in lowered for word in _IMAGE_WORDS):
        return base.InvalidInput(detail, **kw)
    return base.JobFailed(detail, retryable=any(w in lowered for w in _TRANSIENT_WORDS), **kw)
