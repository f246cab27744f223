"""HTTP for adapters: one client per provider, and httpx's outcomes turned into our errors.

Adapters call `send()`; it returns a 2xx response or raises the `ProviderError` subclass
the engine acts on. An adapter that knows its provider's error body better (a moderation
code inside a 400, say) catches `ProviderError`, reads `.response`, and raises a finer one.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from typing import Any

import httpx

from vidrouter.providers.base import (
    AuthFailed,
    InvalidInput,
    MalformedResponse,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
)

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)


def new_client(base_url: str, headers: Mapping[str, str] | None = None) -> httpx.AsyncClient:
    """The one client of a provider: explicit timeouts and limits, no proxies from the env."""
    return httpx.AsyncClient(
        base_url=base_url,
        headers=dict(headers or {}),
        timeout=DEFAULT_TIMEOUT,
        limits=httpx.Limits(max_connections=50, max_keepalive_connections=10),
        follow_redirects=False,
        trust_env=False,
    )


async def send(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    request_id_header: str | None = None,
    **kwargs: Any,
) -> httpx.Response:
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.TimeoutException as exc:
        raise ProviderTimeout(f"{method} {url} timed out") from exc
    except httpx.TransportError as exc:
        raise ProviderUnavailable(f"{method} {url} failed: {type(exc).__name__}") from exc
    if response.is_success:
        return response
    raise error_for(response, request_id_header=request_id_header)


def error_for(response: httpx.Response, *, request_id_header: str | None = None) -> ProviderError:
    """The error class a non-2xx response stands for (before any provider-specific refinement)."""
    status = response.status_code
    request_id = response.headers.get(request_id_header) if request_id_header else None
    message = f"{response.request.method} {response.request.url.path} answered {status}: " + (
        _excerpt(response)
    )
    kw: dict[str, Any] = {"status_code": status, "request_id": request_id}
    error: ProviderError
    if status == 429:
        error = RateLimited(message, retry_after=retry_after(response.headers), **kw)
    elif status in (401, 403):
        error = AuthFailed(message, **kw)
    elif status == 408:
        error = ProviderTimeout(message, **kw)
    elif status >= 500:
        error = ProviderUnavailable(message, **kw)
    else:
        error = InvalidInput(message, **kw)
    error.response = response
    return error


def json_of(response: httpx.Response) -> Any:
    """The JSON body, or MalformedResponse (retryable: a garbled answer may not repeat)."""
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedResponse(
            f"{response.request.method} {response.request.url.path}: body is not JSON",
            status_code=response.status_code,
        ) from exc


def json_object(response: httpx.Response) -> dict[str, Any]:
    body = json_of(response)
    if not isinstance(body, dict):
        raise MalformedResponse(
            f"{response.request.method} {response.request.url.path}: expected a JSON object"
        )
    return body


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date), if any."""
    value = headers.get("retry-after")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _excerpt(response: httpx.Response, limit: int = 300) -> str:
    try:
        text = response.text
    except UnicodeDecodeError:
        return "<binary body>"
    text = " ".join(text.split())
    return text[:limit] + ("…" if len(text) > limit else "")
