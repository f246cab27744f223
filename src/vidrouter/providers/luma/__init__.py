"""Luma Dream Machine: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.luma.adapter import (
    FACTORY,
    LumaProvider,
)

__all__ = ["FACTORY", "LumaProvider"]
