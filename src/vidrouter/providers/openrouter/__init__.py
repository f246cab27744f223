"""The OpenRouter video API (host): the adapter (`adapter`), its error codes (`errors`), what
it publishes about its models (`catalog`) and its signed callbacks (`callbacks`)."""

from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.openrouter.adapter import (
    CREDENTIAL,
    DEFAULT_BASE_URL,
    NAME,
    OpenRouterProvider,
    status_of,
)
from vidrouter.providers.openrouter.callbacks import sign_callback, verify_callback
from vidrouter.providers.openrouter.catalog import price_per_second, published, published_from
from vidrouter.providers.openrouter.errors import refine

FACTORY = ProviderFactory(
    NAME, (CREDENTIAL,), OpenRouterProvider, DEFAULT_BASE_URL, catalog_reader=published
)

__all__ = [
    "FACTORY",
    "OpenRouterProvider",
    "price_per_second",
    "published",
    "published_from",
    "refine",
    "sign_callback",
    "status_of",
    "verify_callback",
]
