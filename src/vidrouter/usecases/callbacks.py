"""A provider told us a job moved: with a valid token (and, where the provider signs its
callbacks, a valid signature), the generation is polled now. A provider whose webhooks are
registered once per account (PixVerse) names its own job instead: its signature alone counts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from vidrouter.domain.clock import Clock
from vidrouter.engine.callbacks import CALLBACK_PATH, CallbackTokens
from vidrouter.providers.base import CallbackDelivery
from vidrouter.store.generations import GenerationStore

__all__ = ["CALLBACK_PATH", "CallbackDelivery", "ProviderCallbacks"]


def _no_adapter(provider: str) -> object | None:
    return None


class ProviderCallbacks:
    def __init__(
        self,
        tokens: Callable[[], CallbackTokens],
        store: GenerationStore,
        clock: Clock,
        wake: Callable[[], None],
        adapter: Callable[[str], object | None] = _no_adapter,
    ) -> None:
        # `tokens` is asked each time: the secret is read from the database at startup.
        self._tokens = tokens
        self._store = store
        self._clock = clock
        self._wake = wake
        # The adapter of a provider whose credentials are set (None otherwise).
        self._adapter = adapter

    async def poke(
        self, generation_id: str, token: str, delivery: CallbackDelivery | None = None
    ) -> bool:
        """False when the token is not this generation's, or the delivery does not carry the
        signature its provider signs with. Nothing in the callback's body is trusted: a forged
        or replayed callback can only make a generation be polled."""
        tokens = self._tokens()
        if len(token) > 100 or not tokens.verify(generation_id, token):
            return False
        if delivery is not None and not await self._genuine(generation_id, delivery, tokens):
            return False
        if await self._store.poke(generation_id, now=self._clock()):
            self._wake()
        return True

    async def _genuine(
        self, generation_id: str, delivery: CallbackDelivery, tokens: CallbackTokens
    ) -> bool:
        """Whether the provider of the generation's current route, if it signs its
        callbacks, signed this one (for the URL we gave it)."""
        generation = await self._store.get(generation_id)
        if generation is None or not generation.route:
            return True  # nothing to poll anyway: the poke is a no-op
        adapter = self._adapter(generation.route.partition(":")[0])
        check = getattr(adapter, "callback_is_genuine", None)
        if not callable(check):
            return True
        url = tokens.url_for(generation_id) or delivery.url
        return bool(check(replace(delivery, url=url)))

    async def signed(self, provider: str, delivery: CallbackDelivery) -> bool:
        """A provider's account-wide webhook: False unless its adapter finds the delivery
        genuine (`webhook_job(delivery, now=)` answers the job it names). A genuine one makes
        the generation waiting on that job be polled now; the body says nothing more to us."""
        job_of = getattr(self._adapter(provider), "webhook_job", None)
        if not callable(job_of):
            return False
        now = self._clock()
        job_id = job_of(delivery, now=now.timestamp())
        if not isinstance(job_id, str) or not job_id:
            return False
        if await self._store.poke_job(provider, job_id, now=now):
            self._wake()
        return True
