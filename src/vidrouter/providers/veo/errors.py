"""The Gemini API's error body (google.rpc.Status) and what each status means for us.

Body: `{"error": {"code", "message", "status", "details": [ErrorInfo, QuotaFailure,
RetryInfo, ...]}}` (ai.google.dev/gemini-api/docs/troubleshooting; the table with our
decision is in docs/providers/veo.md). A 429 RESOURCE_EXHAUSTED is a per-minute rate limit
unless its QuotaFailure names a per-day quota: that one is used up until tomorrow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from vidrouter.providers import base, http

# google.rpc.Code numbers, for operation errors that carry only the number.
_GRPC_STATUS = {
    1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED",
    5: "NOT_FOUND", 7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION",
    10: "ABORTED", 11: "OUT_OF_RANGE", 13: "INTERNAL", 14: "UNAVAILABLE", 16: "UNAUTHENTICATED",
}  # fmt: skip
# Our key or account: FAILED_PRECONDITION is how the API says "enable billing" or "not
# available in your region".
ACCOUNT = {"UNAUTHENTICATED", "PERMISSION_DENIED", "FAILED_PRECONDITION"}
USER = {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE"}
TRANSIENT = {
    "UNKNOWN",
    "DEADLINE_EXCEEDED",
    "RESOURCE_EXHAUSTED",
    "ABORTED",
    "INTERNAL",
    "UNAVAILABLE",
}
SAFETY = re.compile(
    r"safety|responsible ai|\brai\b|usage guidelines|polic(y|ies)|sensitive|prohibited|blocked",
    re.IGNORECASE,
)


def refine(exc: base.ProviderError, *, submitting: bool = False) -> base.ProviderError:
    """The error a Google error body stands for, beyond what its HTTP status says."""
    body = http.error_json(exc.response)
    if isinstance(body, list) and len(body) == 1:  # some Google front ends wrap it in a list
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    if exc.response is None or not isinstance(error, dict):
        return exc
    status = str(error.get("status") or "")
    reason = _detail(error, "ErrorInfo", "reason")
    text = f"Gemini API {exc.status_code} {status}: {error.get('message', '')}".strip()
    kw: dict[str, Any] = {"provider_code": reason or status or None}
    if reason == "API_KEY_INVALID" or status in ACCOUNT:
        return http.reclassify(exc, base.AccountRefused, text, **kw)
    if exc.status_code == 404:  # at submit the model is not served here: the route's fault
        if submitting:
            return http.reclassify(exc, base.ProviderUnavailable, text, **kw)
        return http.reclassify(exc, base.JobFailed, text, **kw)
    if exc.status_code == 429:
        if _daily_quota(error):
            return http.reclassify(exc, base.AccountRefused, text, **kw)
        delay = http.retry_after(exc.response.headers)
        return http.reclassify(
            exc,
            base.RateLimited,
            text,
            retry_after=_retry_delay(error) if delay is None else delay,
            **kw,
        )
    if isinstance(exc, base.InvalidInput) and SAFETY.search(text):
        return http.reclassify(exc, base.ContentRejected, text, **kw)
    return http.reclassify(exc, type(exc), text, **kw)


def job_failure(error: Mapping[str, Any]) -> base.ProviderError:
    """A failed operation's google.rpc.Status as our error."""
    code = error.get("code")
    status = error.get("status")
    if not isinstance(status, str):
        status = _GRPC_STATUS.get(code, "UNKNOWN") if isinstance(code, int) else "UNKNOWN"
    message = f"Veo operation failed ({status}): {error.get('message', '')}"
    if SAFETY.search(str(error.get("message", ""))):
        return base.ContentRejected(message, provider_code=status)
    if status in USER:
        return base.InvalidInput(message, provider_code=status)
    return base.JobFailed(message, retryable=status in TRANSIENT, provider_code=status)


def empty_result_error(result: Mapping[str, Any]) -> base.ProviderError:
    """A finished operation without a video: Google's safety filters, or nothing at all."""
    reasons = result.get("raiMediaFilteredReasons")
    reasons = [str(r) for r in reasons] if isinstance(reasons, list) else []
    count = result.get("raiMediaFilteredCount")
    if reasons or (isinstance(count, int) and count > 0):
        text = " ".join(reasons) or "the video was filtered by Google's safety filters"
        return base.ContentRejected(text, provider_code="RAI_MEDIA_FILTERED")
    return base.JobFailed("Veo finished without a video", provider_code="NO_GENERATED_SAMPLES")


def _details(error: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    details = error.get("details")
    return [
        d
        for d in (details if isinstance(details, list) else [])
        if isinstance(d, dict) and str(d.get("@type", "")).endswith(kind)
    ]


def _detail(error: Mapping[str, Any], kind: str, key: str) -> str | None:
    for detail in _details(error, kind):
        value = detail.get(key)
        return str(value) if value else None
    return None


def _daily_quota(error: Mapping[str, Any]) -> bool:
    """A QuotaFailure naming a per-day quota (e.g. "...PerDayPerProjectPerModel-FreeTier")."""
    for failure in _details(error, "QuotaFailure"):
        violations = failure.get("violations")
        for violation in violations if isinstance(violations, list) else []:
            if isinstance(violation, dict) and "PerDay" in str(violation.get("quotaId", "")):
                return True
    return False


def _retry_delay(error: Mapping[str, Any]) -> float | None:
    """Seconds from a google.rpc.RetryInfo detail ("retryDelay": "38s"), if any."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)s\s*", _detail(error, "RetryInfo", "retryDelay") or "")
    return float(found.group(1)) if found else None
