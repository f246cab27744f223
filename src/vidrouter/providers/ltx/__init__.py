"""Lightricks LTX (LTX API): the adapter (`adapter`) and its error types (`errors`)."""

from vidrouter.providers.ltx.adapter import (
    FACTORY,
    LtxProvider,
)

__all__ = ["FACTORY", "LtxProvider"]
