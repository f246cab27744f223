"""MiniMax Hailuo: the adapter (`adapter`) and its error codes (`errors`)."""

from vidrouter.providers.minimax.adapter import (
    FACTORY,
    MinimaxProvider,
)

__all__ = ["FACTORY", "MinimaxProvider"]
