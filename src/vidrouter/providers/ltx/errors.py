"""LTX's error envelope `{"type": "error", "error": {"type": ..., "message": ...}}` and what
each documented `error.type` means for us.

Types from LTX's own OpenAPI document (response codes) and its errors page (docs.ltx.io/errors,
as transcribed 2026-07-19); the table with our decision per type is in docs/providers/ltx.md.
The type decides, not the status: `insufficient_funds_error` (402) is the account's, never a
retry; both 429 types (`rate_limit_error`, `concurrency_limit_error`) are retried here, after
`Retry-After`. A failed job carries the same `error` object (its `type` and `message`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vidrouter.providers import base, http

# Each documented error type -> the class we act on (None: the HTTP status decides).
CLASSES: Mapping[str, type[base.ProviderError]] = {
    "invalid_request_error": base.InvalidInput,  # 400: parameters, model/size/fps/duration
    "authentication_error": base.AccountRefused,  # 401: key missing or invalid
    "insufficient_funds_error": base.AccountRefused,  # 402: no credits left
    "not_found_error": base.InvalidInput,  # 404: unknown job (a poll turns it into a lost job)
    "content_filtered_error": base.ContentRejected,  # 422: safety filters
    "rate_limit_error": base.RateLimited,  # 429 with Retry-After
    "concurrency_limit_error": base.RateLimited,  # 429: 2 concurrent generations by default
    "api_error": base.ProviderUnavailable,  # 500
    "service_unavailable": base.ProviderUnavailable,  # 503
    "overloaded_error": base.ProviderUnavailable,  # 529
}
# A 504 (the v1 gateway's timeout; its body is undocumented) is decided by its status.
# A job that failed with one of these may well succeed when made again.
RETRYABLE_JOB_TYPES = frozenset(
    {
        "api_error",
        "service_unavailable",
        "overloaded_error",
        "rate_limit_error",
        "concurrency_limit_error",
    }
)


def error_of(body: object) -> tuple[str, str]:
    """(`error.type`, `error.message`) of an envelope or of a failed job's `error`."""
    if not isinstance(body, dict):
        return "", ""
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    assert isinstance(inner, dict)
    kind, message = inner.get("type"), inner.get("message")
    return (kind if isinstance(kind, str) else ""), (message if isinstance(message, str) else "")


def refine(exc: base.ProviderError) -> base.ProviderError:
    """The class LTX's `error.type` stands for, keeping its type as the provider code."""
    kind, message = error_of(http.error_json(exc.response))
    if not kind:
        return exc
    exc.provider_code = kind
    cls = CLASSES.get(kind)
    if cls is None or type(exc) is cls:
        return exc
    return http.reclassify(exc, cls, f"LTX answered {exc.status_code} {kind}: {message}")


def job_failure(error: object, job_id: str) -> base.ProviderError:
    """A job that ended `failed`: its `error.type` decides (moderation, bad input, or LTX's
    own failure, which a fresh submit may not repeat)."""
    kind, message = error_of(error)
    text = f"LTX job {job_id} failed: {kind or 'no type'}: {message or 'no message'}"
    kw: dict[str, Any] = {"provider_code": kind or None}
    cls = CLASSES.get(kind)
    if cls in (base.ContentRejected, base.InvalidInput, base.AccountRefused):
        assert cls is not None
        return cls(text, **kw)
    return base.JobFailed(text, retryable=not kind or kind in RETRYABLE_JOB_TYPES, **kw)
