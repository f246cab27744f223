"""DashScope's error body `{"request_id", "code", "message"}` and what each code means for us.

Codes from the Model Studio error-code page (alibabacloud.com/help/en/model-studio/error-code;
the table with our decision per code is in docs/providers/wan.md). The code decides, not the
status: a 429 `Throttling.RateQuota` is a rate limit, a 429 `Throttling.AllocationQuota` or
`PrepaidBillOverdue` an account that no retry will fix, a 400 `Arrearage` the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vidrouter.providers import base, http

CONTENT = ("DataInspectionFailed", "DataInspection", "IPInfringementSuspect")
ACCOUNT = (
    "InvalidApiKey",
    "AccessDenied",  # and .Unpurchased
    "Arrearage",
    "AllocationQuota.FreeTierOnly",
    "Throttling.AllocationQuota",  # the free or allocated quota is used up
    "PrepaidBillOverdue",
    "PostpaidBillOverdue",
    "CommodityNotPurchased",
    "Model.AccessDenied",
    "Workspace.AccessDenied",
    "ModelNotFound",  # the route names a model this region does not serve
    "WorkSpaceNotFound",
    "ModelNotOpen",
)
RATE = ("Throttling",)  # Throttling, Throttling.RateQuota, Throttling.BurstRate
INPUT = ("InvalidParameter", "InvalidFile", "InvalidURL", "InvalidImage", "BadRequest")


def matches(code: str, prefixes: tuple[str, ...]) -> bool:
    return any(code == p or code.startswith(p + ".") for p in prefixes)


def refine(exc: base.ProviderError) -> base.ProviderError:
    """The class DashScope's `code` stands for, keeping its code and request id."""
    body = http.error_json(exc.response)
    if not isinstance(body, dict):
        return exc
    code = str(body.get("code") or "")
    request_id = body.get("request_id")
    exc.provider_code = code or exc.provider_code
    exc.request_id = request_id if isinstance(request_id, str) and request_id else exc.request_id
    if matches(code, CONTENT):
        return http.reclassify(exc, base.ContentRejected)
    if matches(code, ACCOUNT):  # before RATE: Throttling.AllocationQuota is no rate limit
        return (
            exc
            if isinstance(exc, base.AccountRefused)
            else http.reclassify(exc, base.AccountRefused)
        )
    if matches(code, RATE) and not isinstance(exc, base.RateLimited):
        return http.reclassify(exc, base.RateLimited)
    if matches(code, INPUT) and exc.status_code is not None and exc.status_code < 500:
        return http.reclassify(exc, base.InvalidInput)
    return exc


def job_failure(output: Mapping[str, Any], request_id: str | None) -> base.ProviderError:
    """A task that ended FAILED: `output.code` and `output.message`."""
    code = str(output.get("code") or "")
    message = f"Wan task failed: {code or 'no code'}: {output.get('message') or ''}".rstrip(": ")
    kw: dict[str, Any] = {"provider_code": code or None, "request_id": request_id}
    if matches(code, CONTENT):
        return base.ContentRejected(message, **kw)
    if matches(code, INPUT):
        return base.InvalidInput(message, **kw)
    if matches(code, ACCOUNT):
        return base.AccountRefused(message, **kw)
    retryable = code.startswith(("InternalError", "SystemError", "Throttling")) or not code
    return base.JobFailed(message, retryable=retryable, **kw)
