"""PixVerse's envelope `{"ErrCode", "ErrMsg", "Resp"}` and what each code means for us.

PixVerse answers errors, a full account and a busy system alike, as HTTP 200 with a non-zero
`ErrCode`, so the code decides, never the status. The numbers below are from PixVerse's
"Error codes" page as recalled in /work/shared/providers/pixverse.md (the page itself could not
be read: unconfirmed), plus 10001-10005, which PixVerse's own MCP client (pixverse-mcp 0.2.2,
`client/base.py`) treats as authentication errors. Where a code is unknown, the documented
messages of "Common errors and Solutions" decide. The table is in docs/providers/pixverse.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from vidrouter.providers import base, http

INPUT = {400011, 400013, 400017, 400018, 400032, 500030, 500031, 500032, 500033, 500041, 500042}
INPUT |= {500070, 500071, 500008}  # template not activated / no such resolution; unknown id
ACCOUNT = {400012, 500020, 500043, 500060, 500090, 10001, 10002, 10003, 10004, 10005}
RATE_LIMITED = {500044}  # concurrent generation limit reached
BUSY = {500069}  # system busy
MODERATED = {500054, 500063}  # output / input moderation
NOT_FOUND = 500008

# The documented messages, for codes we do not know (lowercase substrings).
MESSAGES: tuple[tuple[str, type[base.ProviderError]], ...] = (
    ("invalid api-key", base.AccountRefused),
    ("concurrent generations", base.RateLimited),
    ("credit", base.AccountRefused),
    ("balance", base.AccountRefused),
    ("moderation", base.ContentRejected),
    ("invalid parameter", base.InvalidInput),
    ("invalid binding", base.InvalidInput),
    ("unsupported image format", base.InvalidInput),
    ("image upload error", base.InvalidInput),
)


def envelope(answer: Mapping[str, Any]) -> tuple[int, str]:
    """(`ErrCode`, `ErrMsg`) of an answer; MalformedResponse when the code is no number."""
    code = answer.get("ErrCode", 0)
    if isinstance(code, bool) or not isinstance(code, int):
        raise base.MalformedResponse(f"PixVerse's ErrCode is not a number: {code!r}")
    message = answer.get("ErrMsg")
    return code, message if isinstance(message, str) else ""


def for_code(code: int, message: str, response: httpx.Response | None) -> base.ProviderError:
    """The error a non-zero `ErrCode` stands for, on any call."""
    text = f"PixVerse answered {code}: {message or 'no message'}"
    kw: dict[str, Any] = {
        "provider_code": str(code),
        "status_code": response.status_code if response is not None else None,
    }
    cls = _class_of(code, message)
    error: base.ProviderError
    if cls is base.RateLimited:
        wait = http.retry_after(response.headers) if response is not None else None
        error = base.RateLimited(text, retry_after=wait, **kw)
    elif cls is base.JobFailed:
        error = base.JobFailed(text, retryable=False, **kw)
    else:
        error = cls(text, **kw)
    error.response = response
    return error


def _class_of(code: int, message: str) -> type[base.ProviderError]:
    table: tuple[tuple[set[int], type[base.ProviderError]], ...] = (
        (ACCOUNT, base.AccountRefused),
        (RATE_LIMITED, base.RateLimited),
        (BUSY, base.ProviderUnavailable),
        (MODERATED, base.ContentRejected),
        (INPUT, base.InvalidInput),
    )
    for codes, cls in table:
        if code in codes:
            return cls
    lowered = message.lower()
    for words, cls in MESSAGES:
        if words in lowered:
            return cls
    return base.JobFailed  # undocumented: fail this generation, do not retry blindly


def refine(exc: base.ProviderError) -> base.ProviderError:
    """A non-2xx answer (a proxy's, or PixVerse's own): its ErrCode decides when it has one."""
    body = http.error_json(exc.response)
    if not isinstance(body, dict):
        return exc
    try:
        code, message = envelope(body)
    except base.MalformedResponse:
        return exc
    if code == 0:
        return exc
    return for_code(code, message, exc.response)


def job_failure(status: int, job_id: str) -> base.ProviderError:
    """A video that ended with status 7 (moderation), 8 (generation failed) or 6 (deleted,
    per PixVerse's MCP client)."""
    if status == 7:
        return base.ContentRejected(
            f"PixVerse video {job_id} failed content moderation", provider_code="status_7"
        )
    what = "was deleted" if status == 6 else "failed"
    # PixVerse's own failure (credits are reportedly not charged): worth one more try.
    return base.JobFailed(
        f"PixVerse video {job_id} {what}", retryable=True, provider_code=f"status_{status}"
    )
