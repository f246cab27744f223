"""GET and POST to URLs that users chose (image URLs, webhooks), through the guard.

Each call opens its own guarded client (`guard.guarded_client`): the host is resolved once,
every address checked, the connection pinned to a checked one. `post_with` sends over a
long-lived guarded client instead (the webhook sender's): its pool keeps connections alive
per origin, each one made to an address checked when it was opened, so a reused connection
still goes only where the guard allowed; a body it does not drain within a small cap closes
the connection rather than leaving it for reuse. Redirects are never followed
(a 3xx is returned as it is), `timeout` bounds the whole exchange, not only each read, so a
server that drips a byte a second cannot hold us, and a body is read up to `max_bytes` and
no further. Bodies are taken uncompressed only: a decompressor could turn a small response
into an unbounded one before any cap sees it.

Errors: `ForbiddenAddress` (never sent), `OutboundTimeout`, `ResponseTooLarge` and
`OutboundFailed` (connection, TLS or protocol failure), all `guard.OutboundError`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import httpx

from vidrouter.net.guard import ForbiddenAddress, OutboundError, Resolver, guarded_client

__all__ = [
    "OutboundFailed",
    "OutboundTimeout",
    "ResponseTooLarge",
    "guarded_download",
    "guarded_get",
    "guarded_post",
    "post_with",
]

# Bytes of a POST's answer read so that its connection can be kept alive; past that the
# connection is closed (a receiver may answer with anything).
_DRAIN_BYTES = 64 * 1024


class OutboundTimeout(OutboundError):
    """No complete answer within the time allowed."""


class ResponseTooLarge(OutboundError):
    """The body is larger than the caller accepts; reading stopped at the cap."""


class OutboundFailed(OutboundError):
    """The connection, TLS or HTTP exchange failed."""


async def guarded_get(
    url: str,
    *,
    allow_private: bool,
    max_bytes: int,
    timeout: float,  # noqa: ASYNC109 (also sets the per-read limits)
    headers: Mapping[str, str] | None = None,
    resolver: Resolver | None = None,
) -> tuple[int, str | None, bytes]:
    """`(status, content type, body)` of a GET; the body of any status, at most `max_bytes`."""
    sent = {"accept-encoding": "identity", **(headers or {})}
    async with (
        _guarded(url, allow_private=allow_private, timeout=timeout, resolver=resolver) as client,
        client.stream("GET", url, headers=sent) as response,
    ):
        body = await _read_capped(response, max_bytes)
        return response.status_code, response.headers.get("content-type"), body


async def guarded_download(
    url: str,
    target: Path,
    *,
    allow_private: bool,
    max_bytes: int,
    timeout: float,  # noqa: ASYNC109 (also sets the per-read limits)
    resolver: Resolver | None = None,
) -> tuple[int, str | None]:
    """`(status, content type)` of a GET whose body (of a 200; at most `max_bytes`) is
    written to `target` as it arrives: memory stays flat whatever the size."""
    sent = {"accept-encoding": "identity"}
    async with (
        _guarded(url, allow_private=allow_private, timeout=timeout, resolver=resolver) as client,
        client.stream("GET", url, headers=sent) as response,
    ):
        if response.status_code == 200:
            _check_declared(response, max_bytes)
            handle = await asyncio.to_thread(target.open, "wb")
            try:
                size = 0
                async for chunk in response.aiter_raw():
                    size += len(chunk)
                    if size > max_bytes:
                        raise ResponseTooLarge(f"the response is larger than {max_bytes} bytes")
                    await asyncio.to_thread(handle.write, chunk)
            finally:
                await asyncio.to_thread(handle.close)
        return response.status_code, response.headers.get("content-type")


async def guarded_post(
    url: str,
    *,
    content: bytes,
    headers: Mapping[str, str],
    allow_private: bool,
    timeout: float,  # noqa: ASYNC109 (also sets the per-read limits)
    resolver: Resolver | None = None,
) -> int:
    """The status of a POST over a client of its own (`post_with` on a one-request client)."""
    async with _guarded(url, allow_private=allow_private, timeout=timeout, resolver=resolver) as c:
        return await post_with(c, url, content=content, headers=headers, timeout=timeout)


async def post_with(
    client: httpx.AsyncClient,
    url: str,
    *,
    content: bytes,
    headers: Mapping[str, str],
    timeout: float,  # noqa: ASYNC109 (the whole exchange)
) -> int:
    """The status of a POST over `client`, a long-lived `guard.guarded_client` whose pool
    keeps connections alive. Same errors and deadline as `guarded_post`."""
    if not url.lower().startswith(("http://", "https://")):
        raise ForbiddenAddress("not an absolute http(s) URL")
    async with (
        _outbound(timeout),
        client.stream("POST", url, content=content, headers=dict(headers)) as response,
    ):
        size = 0
        async for chunk in response.aiter_raw():
            size += len(chunk)
            if size > _DRAIN_BYTES:
                break  # closed undrained: the pool drops the connection
        return response.status_code


@contextlib.asynccontextmanager
async def _outbound(timeout: float) -> AsyncIterator[None]:  # noqa: ASYNC109
    """The whole exchange under a deadline, its failures as OutboundErrors."""
    try:
        async with asyncio.timeout(timeout):
            yield
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise OutboundTimeout(f"no complete answer within {timeout:g} s") from exc
    except httpx.InvalidURL as exc:
        raise ForbiddenAddress(f"not a valid http(s) URL: {exc}") from exc
    except httpx.HTTPError as exc:
        raise OutboundFailed(f"{type(exc).__name__}: {exc}") from exc


@contextlib.asynccontextmanager
async def _guarded(
    url: str,
    *,
    allow_private: bool,
    timeout: float,  # noqa: ASYNC109 (also sets the per-read limits)
    resolver: Resolver | None,
) -> AsyncIterator[httpx.AsyncClient]:
    """A one-request guarded client under a deadline, with its failures as OutboundErrors."""
    if not url.lower().startswith(("http://", "https://")):
        raise ForbiddenAddress("not an absolute http(s) URL")
    async with (
        _outbound(timeout),
        guarded_client(allow_private=allow_private, timeout=timeout, resolver=resolver) as c,
    ):
        yield c


def _check_declared(response: httpx.Response, max_bytes: int) -> None:
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise OutboundFailed(f"the response is compressed ({encoding}); identity was asked for")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLarge(f"the response is {declared} bytes; at most {max_bytes} accepted")


async def _read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    _check_declared(response, max_bytes)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():
        size += len(chunk)
        if size > max_bytes:
            raise ResponseTooLarge(f"the response is larger than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
