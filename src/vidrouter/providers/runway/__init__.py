"""Runway: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.runway.adapter import (
    FACTORY,
    RunwayProvider,
)

__all__ = ["FACTORY", "RunwayProvider"]
