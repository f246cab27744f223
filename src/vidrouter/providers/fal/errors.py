"""fal's error bodies and what they mean for us.

Bodies are `{"detail": "..."}` or FastAPI validation `{"detail": [{loc, msg, type}]}`, with
the category in `error_type` or the `x-fal-error-type` header (fal.ai/docs, "Model errors"
and "Request errors"; the table is in docs/providers/fal.md). 401 the key, 402 or 403 "User
is locked. Reason: Exhausted balance" the account, 422 the input or a policy, 429 the rate
or the concurrency limit (retried). A failed run shows when its result is fetched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from vidrouter.providers import base, http

REQUEST_ID_HEADER = "x-fal-request-id"
ERROR_TYPE_HEADER = "x-fal-error-type"
# Error types that are the user's input.
INPUT_TYPES = {
    "image_too_small", "image_too_large", "image_load_error", "file_download_error",
    "face_detection_error", "file_too_large", "greater_than", "greater_than_equal",
    "less_than", "less_than_equal", "multiple_of", "sequence_too_short", "sequence_too_long",
    "one_of", "feature_not_supported", "invalid_archive", "archive_file_count_below_minimum",
    "archive_file_count_exceeds_maximum", "audio_duration_too_long", "audio_duration_too_short",
    "unsupported_audio_format", "unsupported_image_format", "unsupported_video_format",
    "video_duration_too_long", "video_duration_too_short", "literal_error", "missing",
}  # fmt: skip
MODERATION = ("content_policy", "moderation", "nsfw", "safety", "flagged")
BILLING = ("balance", "locked", "credit", "payment")


def body(response: httpx.Response) -> dict[str, Any]:
    found = http.error_json(response)
    if found is None:
        return {"detail": response.text[:300]}
    return found if isinstance(found, dict) else {"detail": found}


def fal_error(response: httpx.Response) -> bool:
    """An error the app or fal's queue wrote (not a proxy's page): it names the request."""
    return REQUEST_ID_HEADER in response.headers and "detail" in body(response)


def describe(found: Mapping[str, Any], status: Mapping[str, Any]) -> tuple[list[str], str]:
    """The error types and a readable message of a fal error body and status."""
    types: list[str] = []
    messages: list[str] = []
    detail = found.get("detail")
    for item in detail if isinstance(detail, list) else []:
        if isinstance(item, dict):
            types += [str(item["type"])] if item.get("type") else []
            messages += [str(item["msg"])] if item.get("msg") else []
    if isinstance(detail, str):
        messages.append(detail)
    for source in (found, status):
        kind = source.get("error_type")
        types += [str(kind)] if kind else []
    if isinstance(status.get("error"), str) and not messages:
        messages.append(str(status["error"]))
    return types, "; ".join(messages) or "no reason given"


def refine(exc: base.ProviderError) -> base.ProviderError:
    """A finer error than the status code alone, from fal's error body (at a submit)."""
    if exc.response is None or exc.retryable:
        return exc
    types, text = describe(body(exc.response), {})
    lowered = f"{' '.join(types)} {text}".lower()
    code = types[0] if types else str(exc.status_code)
    if exc.status_code == 402 or any(word in lowered for word in BILLING):
        text = f"fal refused the request for billing reasons: {text}"
        return http.reclassify(exc, base.AccountRefused, text, provider_code=code)
    if any(word in lowered for word in MODERATION):
        text = f"fal refused the prompt or image: {text}"
        return http.reclassify(exc, base.ContentRejected, text, provider_code=code)
    if exc.status_code == 404:
        return http.reclassify(
            exc, base.JobFailed, f"fal does not serve this app: {text}", provider_code=code
        )
    return exc


def job_failure(
    job_id: str,
    code: int,
    found: Mapping[str, Any],
    status: Mapping[str, Any],
    response: httpx.Response,
) -> base.ProviderError | None:
    """What a failed run means for us; None when it was cancelled."""
    types, text = describe(found, status)
    header = response.headers.get(ERROR_TYPE_HEADER)
    types += [header] if header else []
    kw: dict[str, Any] = {
        "provider_code": types[0] if types else str(code),
        "request_id": response.headers.get(REQUEST_ID_HEADER) or job_id,
        "status_code": code,
    }
    message = f"fal request {job_id} failed ({code}): {text}"
    lowered = f"{' '.join(types)} {text}".lower()
    if "client_cancelled" in types:
        return None
    if any(word in lowered for word in MODERATION):
        return base.ContentRejected(message, **kw)
    validation = code in (400, 422) and isinstance(found.get("detail"), list)
    if validation or any(t in INPUT_TYPES for t in types):
        return base.InvalidInput(message, **kw)
    if code == 404:
        return base.JobFailed(f"fal no longer has request {job_id}", retryable=True, **kw)
    # fal's own failure (runner errors, timeouts, partner outages): a fresh submit may work.
    return base.JobFailed(message, retryable=code >= 500 or code in (400, 408, 499), **kw)
