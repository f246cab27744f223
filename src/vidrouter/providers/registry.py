"""Which providers exist, which are usable with the credentials at hand, and their instances."""

from __future__ import annotations

import functools

from vidrouter.domain.catalog import Route
from vidrouter.providers import (
    fal,
    kling,
    local,
    ltx,
    luma,
    minimax,
    openai_videos,
    openrouter,
    pixverse,
    replicate,
    runway,
    seedance,
    veo,
    vidu,
    wan,
    xai,
)
from vidrouter.providers.base import Provider, ProviderContext
from vidrouter.providers.config import ProviderFactory

# Every provider package exports `FACTORY`; its name is the catalog's `provider`. Adding a
# provider is one line here (and one in the import above): a package that is missing or
# broken fails the import loudly instead of leaving its routes silently unusable.
_FACTORIES: tuple[ProviderFactory, ...] = (
    local.FACTORY,
    veo.FACTORY,
    runway.FACTORY,
    luma.FACTORY,
    openai_videos.FACTORY,
    kling.FACTORY,
    minimax.FACTORY,
    seedance.FACTORY,
    wan.FACTORY,
    xai.FACTORY,
    vidu.FACTORY,
    replicate.FACTORY,
    fal.FACTORY,
    openrouter.FACTORY,
    ltx.FACTORY,
    pixverse.FACTORY,
)


@functools.cache
def factories() -> dict[str, ProviderFactory]:
    """Every provider's factory, by name."""
    return {factory.name: factory for factory in _FACTORIES}


class Providers:
    """The provider instances of one process, built on first use and closed together."""

    def __init__(self, context: ProviderContext) -> None:
        self._context = context
        self._instances: dict[str, Provider] = {}

    def configured(self, provider: str) -> bool:
        factory = factories().get(provider)
        if factory is None:
            return False
        return all(self._context.settings.env(name) for name in factory.credentials)

    def route_configured(self, route: Route) -> bool:
        """Routes of a generic upstream name their own credential variable in the catalog."""
        credential = route.options.get("api_key_env")
        if isinstance(credential, str) and not self._context.settings.env(credential):
            return False
        return self.configured(route.provider)

    def usable(self, route: Route) -> bool:
        return self.route_configured(route)

    def get(self, provider: str) -> Provider:
        instance = self._instances.get(provider)
        if instance is None:
            factory = factories().get(provider)
            if factory is None:
                raise KeyError(f"no provider adapter named {provider!r}")
            instance = factory.build(self._context)
            self._instances[provider] = instance
        return instance

    async def aclose(self) -> None:
        for instance in self._instances.values():
            await instance.aclose()
        self._instances.clear()
