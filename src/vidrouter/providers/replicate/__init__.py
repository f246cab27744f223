"""Replicate (host): the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.replicate.adapter import (
    FACTORY,
    ReplicateProvider,
    describe,
    published,
    route_input,
    verify_webhook,
)

__all__ = ["FACTORY", "ReplicateProvider", "describe", "published", "route_input", "verify_webhook"]
