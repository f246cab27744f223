"""MiniMax's `base_resp.status_code`, and what each documented code means for us.

MiniMax reports errors, a rate limit and an empty balance alike, as HTTP 200 with a non-zero
`base_resp.status_code` (platform.minimax.io/docs/api-reference/errorcode; the table is in
docs/providers/minimax.md), so the code decides, never the status.
"""

from __future__ import annotations

from typing import Any

import httpx

from vidrouter.providers import base, http

REQUEST_ID_HEADER = "Trace-Id"  # what MiniMax's own MCP server quotes in its errors

RATE_LIMITED = {1002, 1039}  # RPM limit, TPM limit
SERVER_SIDE = {1000, 1013, 1024, 1033}
TIMED_OUT = {1001}
# Our account: a bad or missing key, real-name verification missing, no balance (1008), plan
# quota or model not on the plan, the plan's 5-hour usage window (2056), the connection limit
# MiniMax raises only on request (1041).
ACCOUNT = {1004, 2049, 2038, 1008, 1028, 1030, 2061, 2056, 1041}
MODERATED = {1026, 1027}  # sensitive input; sensitive output
BAD_PARAMS = {2013, 1042}  # invalid parameters; too many invisible characters


def base_resp(answer: dict[str, Any]) -> tuple[int, str]:
    found = answer.get("base_resp")
    if not isinstance(found, dict):
        return 0, ""  # some answers omit it on success
    code = found.get("status_code", 0)
    message = found.get("status_msg")
    if isinstance(code, bool) or not isinstance(code, int):
        raise base.MalformedResponse(f"base_resp.status_code is not a number: {code!r}")
    return code, message if isinstance(message, str) else ""


def for_code(code: int, message: str, response: httpx.Response | None) -> base.ProviderError:
    """The error a non-zero base_resp.status_code stands for (on any request)."""
    text = f"MiniMax answered {code}: {message or 'no message'}"
    kw: dict[str, Any] = {
        "provider_code": str(code),
        "request_id": response.headers.get(REQUEST_ID_HEADER) if response is not None else None,
        "status_code": response.status_code if response is not None else None,
    }
    error: base.ProviderError
    if code in RATE_LIMITED:
        # MiniMax sends 1002 in a 200 or in a 429; a Retry-After beside it is honoured.
        wait = http.retry_after(response.headers) if response is not None else None
        error = base.RateLimited(text, retry_after=wait, **kw)
    elif code in SERVER_SIDE:
        error = base.ProviderUnavailable(text, **kw)
    elif code in TIMED_OUT:
        error = base.ProviderTimeout(text, **kw)
    elif code in ACCOUNT:
        error = base.AccountRefused(text, **kw)
    elif code in MODERATED:
        error = base.ContentRejected(text, **kw)
    elif code in BAD_PARAMS:
        error = base.InvalidInput(text, **kw)
    else:
        error = base.JobFailed(text, retryable=False, **kw)
    error.response = response
    return error


def job_failure(code: int, message: str, response: httpx.Response) -> base.ProviderError:
    """Why a task ended in `Fail`: its base_resp code when it gives one."""
    if code == 0:
        return base.JobFailed(
            f"MiniMax reported the task failed: {message or 'no reason given'}",
            retryable=True,
            request_id=response.headers.get(REQUEST_ID_HEADER),
        )
    error = for_code(code, message, response)
    if error.retryable and not isinstance(error, base.JobFailed):
        # A server-side failure of this one task: worth another try elsewhere, not a retry.
        return base.JobFailed(error.message, retryable=True, provider_code=error.provider_code)
    return error


def refine(exc: base.ProviderError) -> base.ProviderError:
    """A non-2xx answer: its base_resp code decides when it carries one."""
    body = http.error_json(exc.response)
    found = body.get("base_resp") if isinstance(body, dict) else None
    code = found.get("status_code") if isinstance(found, dict) else None
    if not isinstance(code, int) or isinstance(code, bool) or code == 0:
        return exc
    assert isinstance(found, dict)
    return for_code(code, str(found.get("status_msg") or ""), exc.response)
