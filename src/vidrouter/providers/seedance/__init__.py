"""ByteDance Seedance on BytePlus ModelArk: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.seedance.adapter import (
    FACTORY,
    SeedanceProvider,
)

__all__ = ["FACTORY", "SeedanceProvider"]
