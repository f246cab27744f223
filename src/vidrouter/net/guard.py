"""The guard in front of every outbound request whose address a user chose.

A host is resolved once and every address it resolves to must be public (`domain.addresses`,
plus the IPv6 forms below that embed an IPv4 address); the connection then goes to one of
those checked addresses. The name is never resolved a second time, so a DNS answer that
changes between "check" and "connect" (DNS rebinding) has nothing to change.

How: httpcore hands the URL's host to its network backend's `connect_tcp`. `GuardedBackend`
is that backend: it resolves, checks and connects to the checked IP itself. Everything above
the socket still sees the host name, so the `Host` header is the URL's and TLS sends SNI for,
and verifies the certificate against, the name. `GuardedTransport` is an httpx transport over
an httpcore pool using that backend, and `guarded_client` an `httpx.AsyncClient` on it that
follows no redirects and ignores proxy environment variables (a proxy would do its own DNS).
`allow_private=True` skips the address check only; the pinning stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import ssl
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Sequence,
)
from urllib.parse import urlsplit

import httpcore
import httpx

from vidrouter.domain.addresses import IPAddress, forbidden_host_reason, is_public, parse_ip_literal
from vidrouter.domain.errors import VidrouterError

__all__ = [
    "ForbiddenAddress",
    "GuardedBackend",
    "GuardedTransport",
    "OutboundError",
    "Resolver",
    "allowed_address",
    "check_url",
    "checked_addresses",
    "guarded_client",
    "resolve_host",
]

Resolver = Callable[[str, int], Awaitable[Sequence[IPAddress]]]
"""`(host, port) -> addresses`, in the order to try them; raises OSError when it fails."""


class OutboundError(VidrouterError):
    """A request to a user's URL was not made or did not complete."""


class ForbiddenAddress(OutboundError):
    """The URL leads to an address we never contact on a user's behalf."""


def allowed_address(address: IPAddress) -> bool:
    """Whether we may connect to `address` on a user's behalf."""
    return is_public(address)


async def resolve_host(host: str, port: int) -> list[IPAddress]:
    """The system resolver's addresses for `host`, in its order. Tests replace this module
    attribute (or pass a `resolver`) to play DNS."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[IPAddress] = []
    for *_rest, sockaddr in infos:
        address = parse_ip_literal(str(sockaddr[0]))
        if address is None:
            raise ForbiddenAddress("the host resolves to something that is not an IP address")
        if address not in found:
            found.append(address)
    return found


async def checked_addresses(
    host: str, port: int, *, allow_private: bool, resolver: Resolver | None = None
) -> list[IPAddress]:
    """Resolve `host` once; its addresses, all of them allowed unless `allow_private`."""
    if not allow_private:
        reason = forbidden_host_reason(host)
        if reason is not None:
            raise ForbiddenAddress(f"the host is {reason}")
    literal = parse_ip_literal(host.rstrip("."))
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = list(await (resolver or resolve_host)(host, port))
        except OSError as exc:
            raise ForbiddenAddress(f"the host does not resolve: {exc}") from exc
        if not addresses:
            raise ForbiddenAddress("the host does not resolve")
    if not allow_private and not all(allowed_address(a) for a in addresses):
        # Never name the address: the answer of a user's DNS name is nobody else's business.
        what = "is" if literal is not None else "resolves to"
        raise ForbiddenAddress(f"the host {what} a private, loopback or reserved address")
    return addresses


async def check_url(url: str, *, allow_private: bool, resolver: Resolver | None = None) -> None:
    """Refuse a URL whose host is, or resolves to, an address that is not public.

    This only looks: a client that connects afterwards resolves the name again. To send,
    use `guarded_client` or `vidrouter.net.fetch`, which connect to the checked address."""
    parts = urlsplit(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise ForbiddenAddress("not a valid URL") from exc
    if parts.scheme not in ("http", "https") or not host:
        raise ForbiddenAddress("not an absolute http(s) URL")
    if allow_private:
        return
    port = port or (443 if parts.scheme == "https" else 80)
    await checked_addresses(host, port, allow_private=False, resolver=resolver)


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Connects to the checked addresses of the host httpcore asks for, never to the name."""

    def __init__(
        self,
        *,
        allow_private: bool,
        resolver: Resolver | None = None,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self._allow_private = allow_private
        self._resolver = resolver
        self._inner = inner if inner is not None else httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                addresses = await checked_addresses(
                    host, port, allow_private=self._allow_private, resolver=self._resolver
                )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from exc
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:  # each one checked above; fall through them in order
            try:
                return await self._inner.connect_tcp(
                    str(address),
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise ForbiddenAddress("unix sockets are never used for a user's URL")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


# httpcore's errors as httpx's of the same name, most specific first (what httpx's own
# transport does).
_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = tuple(
    (getattr(httpcore, name), getattr(httpx, name))
    for name in (
        "ConnectTimeout",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "TimeoutException",
        "ConnectError",
        "ReadError",
        "WriteError",
        "NetworkError",
        "UnsupportedProtocol",
        "LocalProtocolError",
        "RemoteProtocolError",
        "ProtocolError",
    )
)
_CORE_ERRORS = tuple(core for core, _ in _ERRORS)


@contextlib.contextmanager
def _as_httpx_errors() -> Iterator[None]:
    try:
        yield
    except _CORE_ERRORS as exc:
        mapped = next(to for core, to in _ERRORS if isinstance(exc, core))
        raise mapped(str(exc)) from exc


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, stream: AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors():
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            with _as_httpx_errors():
                await close()


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    """One verifying context for all guarded clients: building one costs milliseconds."""
    return httpx.create_ssl_context()


class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport whose connections go only to checked, pinned addresses."""

    def __init__(
        self, backend: GuardedBackend, *, verify: ssl.SSLContext | None, max_connections: int
    ) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=verify if verify is not None else _default_ssl_context(),
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            http1=True,
            http2=False,
            network_backend=backend,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors():
            response = await self._pool.handle_async_request(core_request)
        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response.stream),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


def guarded_client(
    *,
    allow_private: bool,
    timeout: float,
    resolver: Resolver | None = None,
    verify: ssl.SSLContext | None = None,
    max_connections: int = 16,
    backend: httpcore.AsyncNetworkBackend | None = None,
) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for users' URLs: guarded, pinned, no redirects, no proxies.

    `timeout` bounds each connect/read/write; a bound on the whole exchange is the caller's
    (see `vidrouter.net.fetch`). `verify` and `backend` are for tests."""
    guarded = GuardedBackend(allow_private=allow_private, resolver=resolver, inner=backend)
    transport = GuardedTransport(guarded, verify=verify, max_connections=max_connections)
    # No proxies, ever: a proxy resolves the name itself, after our check. httpx 0.28 skips
    # environment proxies when given a transport; trust_env=False also keeps it that way
    # for other versions, and keeps .netrc credentials off users' URLs.
    return httpx.AsyncClient(
        transport=transport,
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
    )
