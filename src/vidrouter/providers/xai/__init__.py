"""xAI Grok Imagine: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.xai.adapter import (
    FACTORY,
    XaiProvider,
)

__all__ = ["FACTORY", "XaiProvider"]
