"""ModelArk's error body, and what each of its documented codes means for us.

Body: `{"error": {"code", "message", "param", "type"}}`; messages end "Request id: <id>".
Codes: docs.byteplus.com/docs/ModelArk/1299023 (see docs/providers/seedance.md for the table).
A 429 is a rate limit only when its code says so: `ModelQuotaExhausted` (Free Tokens Only
mode), `QuotaExceeded` and `SetLimitExceeded` come with 429 too and no retry helps them.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from vidrouter.providers import base, http

# The operator's account: key, activation, arrears, quotas and spending limits.
ACCOUNT = (
    "AuthenticationError",
    "AccessDenied",
    "AccountOverdueError",
    "ModelNotOpen",
    "ModelQuotaExhausted",
    "QuotaExceeded",
    "SetLimitExceeded",
    "InvalidEndpointOrModel.NotFound",  # the route names a model this key cannot use
)
RATE = ("RateLimitExceeded", "ServerOverloaded")  # .EndpointRPMExceeded, .EndpointTPMExceeded
# SensitiveContentDetected(.*), Input/Output{Text,Image,Video,Audio}SensitiveContentDetected(.*),
# and the Content Security "...RiskDetection" family.
MODERATION = ("SensitiveContentDetected", "RiskDetection")
BAD_INPUT = ("InvalidParameter", "MissingParameter", "InvalidImage", "InvalidArgument")
TRANSIENT = ("InternalServiceError", "InternalError", "ServerOverloaded", "ServiceUnavailable")
_REQUEST_ID = re.compile(r"request id:\s*([0-9A-Za-z_-]+)", re.IGNORECASE)


def parse(response: httpx.Response | None) -> tuple[str | None, str]:
    """(error.code, error.message) of an Ark error answer."""
    body = http.error_json(response)
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, (response.text[:300] if response is not None else "")
    code, message = error.get("code"), error.get("message")
    return (code if isinstance(code, str) and code else None), str(message or "")[:1000]


def quoted_request_id(message: str) -> str | None:
    found = _REQUEST_ID.search(message)
    return found.group(1) if found else None


def refine(exc: base.ProviderError) -> base.ProviderError:
    """The class Ark's `error.code` stands for; the status code's guess when it says nothing."""
    if exc.response is None:
        return exc
    code, message = parse(exc.response)
    exc.provider_code = code or exc.provider_code
    exc.request_id = exc.request_id or quoted_request_id(message)
    text = f"Ark answered {exc.status_code} {code or ''}: {message}".replace("  ", " ")
    if code and any(marker in code for marker in MODERATION):
        return http.reclassify(exc, base.ContentRejected, text)
    if code and code.startswith(ACCOUNT):
        return http.reclassify(exc, base.AccountRefused, text)
    if code and code.startswith("InvalidEndpoint.ClosedEndpoint"):
        return http.reclassify(
            exc, base.ProviderUnavailable, text
        )  # "closed or temporarily unavailable"
    if code and code.startswith(RATE):
        return http.reclassify(exc, base.RateLimited, text)
    if code and code.startswith(BAD_INPUT):
        return http.reclassify(exc, base.InvalidInput, text)
    if exc.status_code in (402, 404):  # billing, or a model not activated for this key
        return http.reclassify(exc, base.AccountRefused, text)
    return exc


def job_failure(error: object, job_id: str) -> base.ProviderError:
    """Why a task ended `failed`: its `error: {code, message}`."""
    code = message = None
    if isinstance(error, dict):
        code = error.get("code") if isinstance(error.get("code"), str) else None
        message = error.get("message") if isinstance(error.get("message"), str) else None
    text = f"Ark task {job_id} failed: {code or 'no code'}: {message or 'no message'}"
    kw: dict[str, Any] = {"provider_code": code, "request_id": quoted_request_id(message or "")}
    if code and any(marker in code for marker in MODERATION):
        return base.ContentRejected(text, **kw)
    if code and code.startswith(BAD_INPUT):
        return base.InvalidInput(text, **kw)
    if code and code.startswith(ACCOUNT):
        return base.AccountRefused(text, **kw)
    return base.JobFailed(text, retryable=bool(code) and str(code).startswith(TRANSIENT), **kw)
