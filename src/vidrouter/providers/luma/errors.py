"""Luma's error body `{"detail": "..." | [{loc, msg, type}]}` and its `failure_reason`s.

Luma publishes no error codes (docs.lumalabs.ai/docs/api, "Errors"): its status and words
decide. "Insufficient credits" comes as a 400 (or 402) and is the account's, not the
request's; 429 is the rate or the concurrent-generation limit (retried). The table is in
docs/providers/luma.md.
"""

from __future__ import annotations

import httpx

from vidrouter.providers import base, http

# "failed to moderate image" is what an image URL Luma could not fetch or read produces;
# "Advanced moderation failed" is a moderation verdict.
IMAGE_PROBLEMS = ("fetch", "download", "decode", "url", "invalid", "unsupported", "format")
MODERATION = ("moderation", "not allowed", "nsfw", "inappropriate", "safety", "policy")
NO_CREDITS = ("credit", "balance", "insufficient funds")


def detail(response: httpx.Response) -> str:
    body = http.error_json(response)
    found = body.get("detail") if isinstance(body, dict) else None
    if isinstance(found, str):
        return found
    if isinstance(found, list):  # request validation errors: a list of {loc, msg, type}
        return "; ".join(str(item.get("msg", item)) for item in found if isinstance(item, dict))
    return str(body)[:300] if body is not None else response.text[:300]


def refine(exc: base.ProviderError) -> base.ProviderError:
    """A finer error from Luma's body where it says more than the status."""
    if exc.response is None or exc.retryable:
        return exc
    text = detail(exc.response)
    lowered = text.lower()
    if exc.status_code == 402 or any(word in lowered for word in NO_CREDITS):
        message = f"Luma refused the request for billing reasons: {text}"
        return http.reclassify(
            exc, base.AccountRefused, message, provider_code="insufficient_credits"
        )
    if exc.status_code in (400, 403, 422) and any(word in lowered for word in MODERATION):
        return http.reclassify(
            exc, base.ContentRejected, f"Luma refused the prompt or image: {text}"
        )
    return exc


def job_failure(reason: object, job_id: str) -> base.ProviderError:
    """A generation that ended `failed`: Luma says why only in words (`failure_reason`)."""
    text = reason if isinstance(reason, str) and reason else "no reason given"
    lowered = text.lower()
    message = f"Luma generation {job_id} failed: {text}"
    code = text[:200]
    if "failed to moderate image" in lowered or (
        "image" in lowered and any(word in lowered for word in IMAGE_PROBLEMS)
    ):
        return base.InvalidInput(message, provider_code=code)
    if any(word in lowered for word in MODERATION):
        return base.ContentRejected(message, provider_code=code)
    # Luma's own failure: a fresh submit may well succeed.
    return base.JobFailed(message, retryable=True, provider_code=code)
