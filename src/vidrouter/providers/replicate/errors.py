"""Replicate's RFC 7807 error body `{"title", "detail", "status"}` and a prediction's `error`.

Statuses (replicate.com/docs/reference/http): 401 the token, 402 no credit on the account,
404 a model it does not serve, 422 the input, 429 throttled ("Expected available in 2
seconds", with Retry-After), 5xx its own. A failed prediction carries an `E<number>` code in
its text (E005: flagged as sensitive). The table is in docs/providers/replicate.md.
"""

from __future__ import annotations

import re

from vidrouter.providers import base, http

_ERROR_CODE = re.compile(r"\b(E\d{3,4})\b")
_RESETS_IN = re.compile(r"~?(\d+(?:\.\d+)?)\s*s(?:econds?)?\b")
MODERATION = ("flagged as sensitive", "nsfw", "content policy", "moderation", "safety filter")
BAD_INPUT = ("input validation error", "invalid image", "could not load", "cannot identify")
NO_CREDIT = ("insufficient credit", "billing", "payment required")


def refine_for_model(model: str) -> http.Refine:
    """`refine` at a create: a 404 there means the route names a model Replicate lacks."""
    return lambda exc: refine(exc, model=model)


def refine(exc: base.ProviderError, *, model: str | None = None) -> base.ProviderError:
    """A finer error from Replicate's problem+json body where it says more than the status."""
    if exc.response is None:
        return exc
    body = http.error_json(exc.response)
    body = body if isinstance(body, dict) else {}
    title, detail = str(body.get("title") or ""), str(body.get("detail") or "")
    text = detail or title or f"HTTP {exc.status_code}"
    lowered = text.lower()
    exc.provider_code = title or str(exc.status_code)
    if exc.status_code == 402 or any(words in lowered for words in NO_CREDIT):
        return http.reclassify(
            exc, base.AccountRefused, f"Replicate refused for billing reasons: {text}"
        )
    if exc.status_code == 404 and model is not None:
        return http.reclassify(
            exc, base.AccountRefused, f"Replicate does not serve {model}: {text}"
        )
    if isinstance(exc, base.RateLimited):
        found = _RESETS_IN.search(detail)
        seconds = exc.retry_after
        if seconds is None and found:
            seconds = float(found.group(1))
        text = f"Replicate throttled the request: {text}"
        return http.reclassify(exc, base.RateLimited, text, retry_after=seconds)
    if exc.status_code in (400, 422) and any(word in lowered for word in MODERATION):
        return http.reclassify(exc, base.ContentRejected, f"Replicate refused the input: {text}")
    return exc


def job_failure(error: object, job_id: str) -> base.ProviderError:
    """A prediction that ended `failed`: its `error` text and the E-code in it, if any."""
    text = error.strip() if isinstance(error, str) and error.strip() else "no error message"
    match = _ERROR_CODE.search(text)
    code = match.group(1) if match else None
    lowered = text.lower()
    message = f"Replicate prediction {job_id} failed: {text[:500]}"
    if code == "E005" or any(word in lowered for word in MODERATION):
        return base.ContentRejected(message, provider_code=code or "content_policy")
    if any(word in lowered for word in BAD_INPUT):
        return base.InvalidInput(message, provider_code=code or "input_validation")
    # Replicate's or the model's own failure (E1000 unknown, E1001 out of memory, E6716
    # timeout starting, ...): a fresh prediction may well succeed.
    return base.JobFailed(message, retryable=True, provider_code=code or "failed")
