"""Which network addresses a user-supplied URL may reach.

Only globally routable unicast addresses are allowed: loopback, private, link-local, CGNAT,
multicast, reserved, unspecified and cloud metadata addresses are refused, also when written
as IPv4-mapped or NAT64 IPv6, or in the decimal / octal / hex forms that resolvers accept.
"""

from __future__ import annotations

import ipaddress
import socket

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# IPv6 ranges that carry an IPv4 address and are never a public destination of ours:
# deprecated IPv4-compatible (::a.b.c.d), SIIT (::ffff:0:a.b.c.d), local-use NAT64 (RFC 8215).
_NEVER = tuple(ipaddress.ip_network(n) for n in ("::/96", "::ffff:0:0:0/96", "64:ff9b:1::/48"))
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")  # 2002:AABB:CCDD::/48 routes to a.b.c.d


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a host name denotes by itself, in any form a resolver would accept."""
    text = host.strip("[]")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if text and all(c in "0123456789abcdefxABCDEFX." for c in text):
        try:
            # inet_aton takes "2130706433", "0177.0.0.1", "0x7f.1": what getaddrinfo accepts too.
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def is_public(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return is_public(address.ipv4_mapped)
        if address in _NAT64:
            return is_public(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        if any(address in network for network in _NEVER):
            return False
        if address in _SIX_TO_FOUR:
            embedded = ipaddress.IPv4Address((int(address) >> 80) & 0xFFFFFFFF)
            if not is_public(embedded):
                return False
    return address.is_global and not address.is_multicast


def forbidden_host_reason(host: str) -> str | None:
    """Why a URL's host must not be contacted, when that is decidable without DNS."""
    name = _normalise(host)
    if name == "localhost" or name.endswith(".localhost"):
        return "a loopback host"
    address = parse_ip_literal(name)
    if address is not None and not is_public(address):
        return "a private, loopback, link-local or reserved address"
    return None


def _normalise(host: str) -> str:
    """The host as a resolver sees it: IDNA maps fullwidth letters and ideographic full
    stops (U+FF4C..., U+3002) onto ASCII, so they cannot disguise "localhost" or an IP."""
    name = host.lower().rstrip(".")
    try:
        return name.encode("idna").decode("ascii").lower().rstrip(".")
    except UnicodeError:
        return name
