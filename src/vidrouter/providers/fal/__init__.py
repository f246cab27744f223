"""The fal.ai queue API (host): the adapter (`adapter`), its error types (`errors`) and what
fal publishes about its apps (`catalog`)."""

from vidrouter.providers.fal.adapter import FACTORY, FalProvider

__all__ = ["FACTORY", "FalProvider"]
