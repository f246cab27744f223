"""HTTP for adapters: one client per provider, and httpx's outcomes turned into our errors.

Adapters call `send()`; it returns a 2xx response or raises the `ProviderError` subclass
the engine acts on. The status code gives the first guess; the provider's `errors.refine`,
passed as `refine=`, reads the error body and its documented code and returns a finer error
(an account refusal behind a 429, a moderation code inside a 400, ...).
"""

from __future__ import annotations

import email.utils
import functools
import json
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, ClassVar, TypeVar

import httpx

from vidrouter.providers.base import (
    AccountRefused,
    InvalidInput,
    JobFailed,
    JobState,
    MalformedResponse,
    ProviderError,
    ProviderJob,
    ProviderStatus,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    ResultRef,
)
from vidrouter.providers.config import AdapterConfig

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)

Refine = Callable[[ProviderError], ProviderError]
E = TypeVar("E", bound=ProviderError)
A = TypeVar("A")
Poll = Callable[[A, ProviderJob], Coroutine[Any, Any, ProviderStatus]]


def new_client(
    base_url: str,
    headers: Mapping[str, str] | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> httpx.AsyncClient:
    """The one client of a provider: explicit timeouts and limits, no proxies from the env."""
    return httpx.AsyncClient(
        base_url=base_url,
        headers=dict(headers or {}),
        timeout=DEFAULT_TIMEOUT,
        limits=httpx.Limits(max_connections=50, max_keepalive_connections=10),
        follow_redirects=False,
        trust_env=False,
        transport=transport,
    )


def bearer(token: str, **extra: str) -> dict[str, str]:
    """The headers most providers take: a bearer token, and JSON answers."""
    return {"Authorization": f"Bearer {token}", "Accept": "application/json", **extra}


def client_for(config: AdapterConfig, headers: Mapping[str, str]) -> httpx.AsyncClient:
    """An adapter's client for its config's base URL (and a test's transport, if any)."""
    return new_client(config.base_url, headers, transport=config.transport)


class BearerAdapter:
    """The start every adapter of one JSON API with a bearer key shares: its HTTP client
    (closed by `aclose`) and whether it may fetch images from private addresses."""

    credential: ClassVar[str]  # the environment variable holding the key

    def __init__(self, config: AdapterConfig) -> None:
        self._client = client_for(config, bearer(config.key(self.credential)))
        self._allow_private = config.allow_private_images

    async def aclose(self) -> None:
        await self._client.aclose()


async def send(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    request_id_header: str | None = None,
    refine: Refine | None = None,
    **kwargs: Any,
) -> httpx.Response:
    """A 2xx response, or the error it stands for (made finer by `refine`, if given)."""
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.TimeoutException as exc:
        raise ProviderTimeout(f"{method} {url} timed out") from exc
    except httpx.TransportError as exc:
        raise ProviderUnavailable(f"{method} {url} failed: {type(exc).__name__}") from exc
    if response.is_success:
        return response
    error = error_for(response, request_id_header=request_id_header)
    if refine is not None:
        refined = refine(error)
        if refined is not error:
            raise refined from error
    raise error


def reclassify(exc: ProviderError, cls: type[E], message: str | None = None, **kw: Any) -> E:
    """`exc` as another class: same status, request id, provider code and response, unless
    `kw` says otherwise."""
    values: dict[str, Any] = {
        "provider_code": exc.provider_code,
        "request_id": exc.request_id,
        "status_code": exc.status_code,
    }
    values.update(kw)
    if issubclass(cls, RateLimited) and "retry_after" not in values:
        values["retry_after"] = exc.retry_after if isinstance(exc, RateLimited) else None
    error = cls(message if message is not None else exc.message, **values)
    error.response = exc.response
    return error


def error_json(response: httpx.Response | None) -> Any:
    """The JSON of an error answer, or None when it has none (an HTML page, an empty body)."""
    if response is None:
        return None
    try:
        return response.json()
    except (ValueError, UnicodeDecodeError):
        return None


async def delete_tolerating(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    gone: tuple[int, ...] = (404,),
    **kwargs: Any,
) -> httpx.Response | None:
    """Cancel or delete a job; an answer in `gone` (it no longer exists, it already ended)
    is no error: the job is not running either way."""
    try:
        return await send(client, method, url, **kwargs)
    except ProviderError as exc:
        if exc.status_code in gone:
            return None
        raise


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
    elif status in (401, 402, 403):  # our key or our account, whatever the request was
        error = AccountRefused(message, **kw)
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


async def get_job(
    client: httpx.AsyncClient,
    path: str,
    *,
    lost: Callable[[ProviderError], ProviderError],
    **kwargs: Any,
) -> dict[str, Any]:
    """GET a job's JSON object. A 404 there means the provider no longer has the job:
    `lost` turns it into what that is for this provider (a failed job, usually)."""
    try:
        response = await send(client, "GET", path, **kwargs)
    except ProviderError as exc:
        if exc.status_code != 404:
            raise
        raise lost(exc) from exc
    return json_object(response)


def text_at(answer: Mapping[str, Any], *path: str) -> str | None:
    """The string at `path` down nested JSON objects (`"result", "video_url"`); None where
    an object on the way, or the string itself, is missing, empty or of another type."""
    value: object = answer
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value if isinstance(value, str) and value else None


def lost_is_failed(poll: Poll[A]) -> Poll[A]:
    """An adapter's `poll` that answers FAILED, with the error, where it would raise
    `JobFailed` (its GET of a job the provider no longer has): a failed job, which the engine
    makes again (bounded), rather than an error of the call."""

    @functools.wraps(poll)
    async def polled(adapter: A, job: ProviderJob) -> ProviderStatus:
        try:
            return await poll(adapter, job)
        except JobFailed as lost:
            return ProviderStatus(JobState.FAILED, error=lost)

    return polled


def stored_url(job: ProviderJob, key: str = "video_url") -> str | None:
    """The result URL a poll kept in the job's data, if it did."""
    return text_at(job.data, key)


def succeeded(job: ProviderJob, video: str, seconds_key: str = "duration") -> ProviderStatus:
    """A finished job: its video URL kept in the job's data (`stored_url` reads it back), the
    seconds billed being those the submit kept under `seconds_key`."""
    seconds = job.data.get(seconds_key)
    return ProviderStatus(
        JobState.SUCCEEDED,
        progress=100,
        billed_seconds=float(seconds) if isinstance(seconds, int | float) else None,
        data={**job.data, "video_url": video},
    )


def result_at(url: object, what: str, headers: Mapping[str, str] | None = None) -> ResultRef:
    """Where a finished job's video is: an http(s) URL, or MalformedResponse saying `what`
    has none (a provider that reports success without a video is answering wrongly)."""
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        raise MalformedResponse(f"{what} has no downloadable video")
    return ResultRef(url=url, headers=dict(headers or {}))


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
