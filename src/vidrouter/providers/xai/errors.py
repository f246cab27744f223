"""xAI's error answers and failed jobs, and what each means for us.

xAI's REST errors come as `{"code": "<gRPC status in words>", "error": "<message>"}` with
the HTTP status (docs.x.ai "Debugging errors"; the shape xAI's other REST APIs send), or in
the OpenAI shape `{"error": {"message", "type", "code"}}` that the Vercel AI SDK's xAI
provider reads: both are read (which one video answers with is unconfirmed). Its status
codes alone mislead in three places, so the words decide there:
- a **429 or 403** whose message says the team "has either used all available credits or
  reached its monthly spending limit" is the account's, not a rate limit: no retry here;
- a **400** "Incorrect API key provided" is a refused key, not a bad request;
- a **400** from input moderation is the user's content, not a malformed request.
A 404 at create means the route names a model this account cannot use (the operator's to
fix: the next route). The table is in docs/providers/xai.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vidrouter.providers import base, http

NO_CREDITS = ("used all available credits", "spending limit", "purchase more credits")
BAD_KEY = ("incorrect api key", "invalid api key", "api key provided")
MODERATION = ("moderation", "content policy", "violat", "not permitted", "safety")

CREDITS = "credits_exhausted"
INVALID_KEY = "invalid_api_key"
MODEL_NOT_FOUND = "model_not_found"


def message(body: object, fallback: str = "") -> str:
    """The `error` text of an xAI error body (a string, or an object with a message)."""
    if isinstance(body, dict):
        found = body.get("error")
        if isinstance(found, dict):
            found = found.get("message")
        if isinstance(found, str) and found:
            return found
    return fallback


def _code(body: object) -> str | None:
    """The body's `code` (top level, or inside an OpenAI-shaped `error` object)."""
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    code = body.get("code", error.get("code") if isinstance(error, dict) else None)
    return (
        str(code) if isinstance(code, str | int) and not isinstance(code, bool) and code else None
    )


def refine(exc: base.ProviderError) -> base.ProviderError:
    """The class xAI's answer stands for: its words where its status misleads."""
    body = http.error_json(exc.response)
    text = message(body, exc.message)
    lowered = text.lower()
    code = _code(body)
    exc.provider_code = code or exc.provider_code
    if any(words in lowered for words in NO_CREDITS):
        return http.reclassify(
            exc, base.AccountRefused, f"xAI refused our account: {text}", provider_code=CREDITS
        )
    if exc.status_code == 400 and any(words in lowered for words in BAD_KEY):
        return http.reclassify(
            exc, base.AccountRefused, f"xAI refused the key: {text}", provider_code=INVALID_KEY
        )
    if exc.status_code == 400 and any(words in lowered for words in MODERATION):
        return http.reclassify(exc, base.ContentRejected, f"xAI refused the prompt: {text}")
    if exc.status_code == 404:
        return http.reclassify(
            exc,
            base.AccountRefused,
            f"xAI does not serve this model to our account: {text}",
            provider_code=MODEL_NOT_FOUND,
        )
    return exc


def job_failure(answer: Mapping[str, Any], request_id: str) -> base.ProviderError:
    """A request that ended `failed`: `error.code` and `error.message`. xAI documents only
    `internal_error`; a moderation word in the message is the content's, anything else xAI's
    own failure, which a fresh request may well get past."""
    error = answer.get("error")
    details = error if isinstance(error, dict) else {}
    code = str(details.get("code") or "") or None
    text = str(details.get("message") or "no reason given")
    said = f"xAI video request {request_id} failed: {code or 'no code'}: {text}"
    if any(words in text.lower() for words in MODERATION):
        return base.ContentRejected(said, provider_code=code, request_id=request_id)
    return base.JobFailed(said, retryable=True, provider_code=code, request_id=request_id)


def moderated(request_id: str) -> base.ContentRejected:
    """A `done` request whose video did not pass xAI's moderation: no URL (still billed,
    resellers report)."""
    return base.ContentRejected(
        f"xAI video request {request_id} did not respect moderation rules: no video",
        provider_code="respect_moderation",
        request_id=request_id,
    )


def expired(request_id: str) -> base.JobFailed:
    """A request that aged out at xAI before it was done: a fresh one may succeed."""
    return base.JobFailed(
        f"xAI video request {request_id} expired before it finished",
        retryable=True,
        provider_code="expired",
        request_id=request_id,
    )
