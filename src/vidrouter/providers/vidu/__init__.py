"""Vidu (Shengshu): the adapter (`adapter`), its error codes (`errors`) and the check of its
signed callbacks (`callbacks`)."""

from vidrouter.providers.vidu.adapter import (
    FACTORY,
    ViduProvider,
)
from vidrouter.providers.vidu.callbacks import verify_callback

__all__ = ["FACTORY", "ViduProvider", "verify_callback"]
