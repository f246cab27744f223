"""Kling (Kuaishou): the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.kling.adapter import (
    FACTORY,
    KlingProvider,
    TokenSource,
    encode_jwt,
)

__all__ = ["FACTORY", "KlingProvider", "TokenSource", "encode_jwt"]
