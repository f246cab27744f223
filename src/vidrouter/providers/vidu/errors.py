"""Vidu's error body `{"code": <HTTP status>, "reason": "<code>", "message", "metadata":
{"trace_id"}}` and what each documented `reason` means for us.

Codes from platform.vidu.com/docs/error-code (the same table on platform.vidu.cn; the table
with our decision per code is in docs/providers/vidu.md). The reason decides, not the status:
most of Vidu's refusals are a 400 — a bad field, a moderated prompt, **no credits left**, a
request still being processed — and only the reason tells them apart.
"""

from __future__ import annotations

from vidrouter.providers import base, http

CONTENT = ("TaskPromptPolicyViolation", "AuditSubmitIllegal", "CreationPolicyViolation")
ACCOUNT = ("CreditInsufficient", "Unauthorized", "Forbidden", "ModelUnavailable")
AGAIN = ("OperationInProcess", "Canceled", "InternalServiceFailure")  # retried on the route
RATE = ("QuotaExceeded", "TooManyRequests", "SystemThrottling")
INPUT = (
    "BadRequest", "FieldLacking", "FieldUnwanted", "FieldItemCountOutOfRange", "FieldInvalid",
    "PageSizeOutOfRange", "ImageFormatInvalid", "ImageDownloadFailure",
    "ImageCheckBodyJointsFailed", "ImageCheckFaceFailed", "ImageObjectsUndetected",
    "TaskNotFound", "CreationNotFound", "NotFound", "Conflict",
)  # fmt: skip
USER_CANCELLED = "UserCancelled"


def reason_of(exc: base.ProviderError) -> tuple[str, str]:
    """(reason, message) of Vidu's error body, or ("", "") when it has none."""
    body = http.error_json(exc.response)
    if not isinstance(body, dict):
        return "", ""
    metadata = body.get("metadata")
    trace = metadata.get("trace_id") if isinstance(metadata, dict) else None
    if isinstance(trace, str) and trace:
        exc.request_id = trace
    return str(body.get("reason") or ""), str(body.get("message") or "")


def refine(exc: base.ProviderError) -> base.ProviderError:
    """The class Vidu's `reason` stands for, keeping it as the provider code."""
    reason, text = reason_of(exc)
    if not reason:
        return exc
    exc.provider_code = reason
    said = f"Vidu answered {exc.status_code} {reason}: {text}".rstrip(": ")
    if reason in CONTENT:
        return http.reclassify(exc, base.ContentRejected, said)
    if reason in ACCOUNT:
        return http.reclassify(exc, base.AccountRefused, said)
    if reason in RATE:
        return exc if isinstance(exc, base.RateLimited) else http.reclassify(exc, base.RateLimited)
    if reason in AGAIN:
        return http.reclassify(exc, base.ProviderUnavailable, said)
    if reason in INPUT and not isinstance(exc, base.InvalidInput):
        return http.reclassify(exc, base.InvalidInput, said)
    return exc


def job_failure(err_code: str, task_id: str) -> base.ProviderError:
    """A task that ended `failed`: its `err_code` (`UserCancelled` is handled as a cancel)."""
    said = f"Vidu task {task_id} failed: {err_code or 'no err_code'}"
    code = err_code or None
    if err_code in CONTENT:
        return base.ContentRejected(said, provider_code=code, request_id=task_id)
    if err_code in ACCOUNT:
        return base.AccountRefused(said, provider_code=code, request_id=task_id)
    if err_code in INPUT:
        return base.InvalidInput(said, provider_code=code, request_id=task_id)
    # Vidu's own failure (InternalServiceFailure, an unknown code): a fresh task may succeed.
    return base.JobFailed(said, retryable=True, provider_code=code, request_id=task_id)
