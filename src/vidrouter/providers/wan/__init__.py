"""Alibaba Wan on DashScope: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.wan.adapter import (
    FACTORY,
    WanProvider,
)

__all__ = ["FACTORY", "WanProvider"]
