"""The OpenRouter video API (host): the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.openrouter.adapter import (
    FACTORY,
    OpenRouterProvider,
    price_per_second,
    published_from,
    sign_callback,
    status_of,
    verify_callback,
)
from vidrouter.providers.openrouter.errors import refine

__all__ = [
    "FACTORY",
    "OpenRouterProvider",
    "price_per_second",
    "published_from",
    "refine",
    "sign_callback",
    "status_of",
    "verify_callback",
]
