"""The fal.ai queue API (host): the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.fal.adapter import (
    FACTORY,
    FalProvider,
    published,
)

__all__ = ["FACTORY", "FalProvider", "published"]
