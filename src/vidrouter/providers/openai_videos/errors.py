"""The OpenAI error body `{"error": {message, type, param, code}}` and what it means for us.

OpenAI's 429 is two things (developers.openai.com, "Error codes"): `rate_limit_exceeded` is
a rate limit, `insufficient_quota` an account out of credit that no retry fixes. Resellers of
the format use the same body. The table is in docs/providers/openai_videos.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vidrouter.providers import base, http

ACCOUNT_CODES = frozenset(
    {
        "insufficient_quota",
        "billing_hard_limit_reached",
        "account_deactivated",
        "invalid_api_key",
        "unsupported_country_region_territory",
    }
)
MODERATION_CODES = frozenset(
    {"moderation_blocked", "content_policy_violation", "content_filter", "safety_violation"}
)
_MODERATION_WORDS = ("moderation", "content policy", "safety system", "content_policy")
_RETRYABLE_JOB_CODES = frozenset({"internal_error", "server_error", "timeout", "overloaded"})


def parse(body: object) -> tuple[str | None, str | None, str | None, str | None]:
    """(code, type, param, message) of an error body."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, None, None, None
    code, kind, param, message = (
        http.text_at(error, k) for k in ("code", "type", "param", "message")
    )
    return code, kind, param, message


def refine(exc: base.ProviderError, *, lost_job: bool = False) -> base.ProviderError:
    """The class the error body's `code` stands for; the status's guess otherwise."""
    response = exc.response
    if response is None:
        return exc
    code, kind, param, message = parse(http.error_json(response))
    if message is None:
        message = " ".join(response.text.split())[:300]
    status = response.status_code
    text = f"{response.request.method} {response.request.url.path} answered {status}: {message}"
    kw: dict[str, Any] = {"provider_code": code or kind}
    if is_moderation(code, kind, message):
        return http.reclassify(exc, base.ContentRejected, message or text, **kw)
    if status == 402 or code in ACCOUNT_CODES or kind in ACCOUNT_CODES:
        return http.reclassify(
            exc, base.AccountRefused, text, **kw
        )  # billing: our account, not the user's
    if status in (404, 410) and lost_job:
        return http.reclassify(
            exc, base.JobFailed, f"the upstream no longer knows this video ({text})", **kw
        )
    if status in (404, 405) or param == "model" or code == "model_not_found":
        text = f"the route's upstream or model is misconfigured: {text}"
        return http.reclassify(exc, base.AccountRefused, text, **kw)
    return http.reclassify(exc, type(exc), text, **kw)


def job_failure(video: Mapping[str, Any]) -> base.ProviderError:
    """A video that ended `failed` (or `expired`): its `error: {code, message}`."""
    found = video.get("error")
    error: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    code = http.text_at(error, "code") or ("expired" if video.get("status") == "expired" else None)
    message = http.text_at(error, "message") or "the upstream reported that the video failed"
    if is_moderation(code, None, message):
        return base.ContentRejected(message, provider_code=code)
    if code and (code.startswith("invalid") or "image" in code):
        return base.InvalidInput(message, provider_code=code)
    return base.JobFailed(message, retryable=code in _RETRYABLE_JOB_CODES, provider_code=code)


def is_moderation(code: str | None, kind: str | None, message: str) -> bool:
    if code in MODERATION_CODES or kind in MODERATION_CODES:
        return True
    return any(word in message.lower() for word in _MODERATION_WORDS)
