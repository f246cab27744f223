"""PixVerse Platform API: the adapter (`adapter`), its error codes (`errors`) and its signed
webhooks (`callbacks`). Import what you need from those modules."""

from vidrouter.providers.pixverse.adapter import (
    FACTORY,
    PixverseProvider,
)

__all__ = ["FACTORY", "PixverseProvider"]
