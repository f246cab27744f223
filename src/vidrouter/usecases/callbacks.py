"""A provider told us a job moved: with a valid token, the generation is polled now."""

from __future__ import annotations

from collections.abc import Callable

from vidrouter.domain.clock import Clock
from vidrouter.engine.callbacks import CALLBACK_PATH, CallbackTokens
from vidrouter.store.generations import GenerationStore

__all__ = ["CALLBACK_PATH", "ProviderCallbacks"]


class ProviderCallbacks:
    def __init__(
        self,
        tokens: Callable[[], CallbackTokens],
        store: GenerationStore,
        clock: Clock,
        wake: Callable[[], None],
    ) -> None:
        # `tokens` is asked each time: the secret is read from the database at startup.
        self._tokens = tokens
        self._store = store
        self._clock = clock
        self._wake = wake

    async def poke(self, generation_id: str, token: str) -> bool:
        """False when the token is not this generation's. Nothing in the callback's body is
        trusted: a forged or replayed callback can only make a generation be polled."""
        if len(token) > 100 or not self._tokens().verify(generation_id, token):
            return False
        if await self._store.poke(generation_id, now=self._clock()):
            self._wake()
        return True
