"""The guard in front of every outbound request whose address a user chose.

The host is resolved and every address it resolves to must be public (see
`domain.addresses`); otherwise nothing is sent.
"""

from __future__ import annotations

import asyncio
import socket
from urllib.parse import urlsplit

from vidrouter.domain.addresses import forbidden_host_reason, is_public, parse_ip_literal
from vidrouter.domain.errors import VidrouterError


class ForbiddenAddress(VidrouterError):
    """The URL leads to an address we never contact on a user's behalf."""


async def check_url(url: str, *, allow_private: bool) -> None:
    parts = urlsplit(url)
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        raise ForbiddenAddress("not an absolute http(s) URL")
    if allow_private:
        return
    reason = forbidden_host_reason(host)
    if reason is not None:
        raise ForbiddenAddress(f"the host is {reason}")
    if parse_ip_literal(host) is not None:
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ForbiddenAddress(f"the host does not resolve: {exc}") from exc
    for *_rest, sockaddr in infos:
        address = parse_ip_literal(str(sockaddr[0]))
        if address is None or not is_public(address):
            raise ForbiddenAddress("the host resolves to a private, loopback or reserved address")
