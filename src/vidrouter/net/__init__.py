"""Outbound requests that a user controls (webhooks, image URLs) and the guard they pass."""

from vidrouter.net.fetch import OutboundFailed, guarded_get, post_with
from vidrouter.net.guard import ForbiddenAddress, OutboundError, check_url, guarded_client

__all__ = [
    "ForbiddenAddress",
    "OutboundError",
    "OutboundFailed",
    "check_url",
    "guarded_client",
    "guarded_get",
    "post_with",
]
