"""DashScope's error body `{"request_id", "code", "message"}` and what each code means for us.

Codes from the Model Studio error-code page (alibabacloud.com/help/en/model-studio/error-code;
the table with our decision per code is in docs/providers/wan.md). The code decides, not the
status: a 429 `Throttling.RateQuota` is a rate limit, a 429 `Throttling.AllocationQuota` or
`PrepaidBillOverdue` an account that no retry will fix, a 400 `Arrearage` the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    JobFailed,
    ProviderError,
    RateLimited,
)
from vidrouter.providers.http import error_json, reclassify

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


def refine(exc: ProviderError) -> ProviderError:
    """The class DashScope's `code` stands for, keeping its code and request id."""
    body = error_json(exc.response)
    if not isinstance(body, dict):
        return exc
    code = str(body.get("code") or "")
    request_id = body.get("request_id")
    exc.provider_code = code or exc.provider_code
    exc.request_id = request_id if isinstance(request_id, str) and request_id else exc.request_id
    if matches(code, CONTENT):
        return reclassify(exc, ContentRejected)
    if matches(code, ACCOUNT):  # before RATE: Throttling.AllocationQuota is no rate limit
        return exc if isinstance(exc, AccountRefused) else reclassify(exc, AccountRefused)
    if matches(code, RATE) and not isinstance(exc, RateLimited):
        return reclassify(exc, RateLimited)
    if matches(code, INPUT) and exc.status_code is not None and exc.status_code < 500:
        return reclassify(exc, InvalidInput)
    return exc


def task_error(output: Mapping[str, Any], request_id: str | None) -> ProviderError:
    """A task that ended FAILED: `output.code` and `output.message`."""
    code = str(output.get("code") or "")
    message = f"Wan task failed: {code or 'no code'}: {output.get('message') or ''}".rstrip(": ")
    kw: dict[str, Any] = {"provider_code": code or None, "request_id": request_id}
    if matches(code, CONTENT):
        return ContentRejected(message, **kw)
    if matches(code, INPUT):
        return InvalidInput(message, **kw)
    if matches(code, ACCOUNT):
        return AccountRefused(message, **kw)
    retryable = code.startswith(("InternalError", "SystemError", "Throttling")) or not code
    return JobFailed(message, retryable=retryable, **kw)
