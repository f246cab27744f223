"""Replicate (host): the adapter (`adapter`), its error codes (`errors`), what it publishes
about its models (`catalog`) and its signed webhooks (`callbacks`)."""

from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.replicate.adapter import (
    DEFAULT_BASE_URL,
    NAME,
    TOKEN_ENV,
    ReplicateProvider,
    route_input,
)
from vidrouter.providers.replicate.callbacks import verify_webhook
from vidrouter.providers.replicate.catalog import describe, published

FACTORY = ProviderFactory(
    NAME, (TOKEN_ENV,), ReplicateProvider, DEFAULT_BASE_URL, catalog_reader=published
)

__all__ = ["FACTORY", "ReplicateProvider", "describe", "published", "route_input", "verify_webhook"]
