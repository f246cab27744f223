"""Which providers exist, which are usable with the credentials at hand, and their instances."""

from __future__ import annotations

import functools
import importlib

from vidrouter.domain.catalog import Route
from vidrouter.providers.base import Provider, ProviderContext
from vidrouter.providers.config import ProviderFactory

# Each adapter module or package exposes `FACTORY: ProviderFactory`; its name is the
# catalog's `provider`.
ADAPTER_MODULES = (
    "local",
    "veo",
    "runway",
    "luma",
    "openai_videos",
    "kling",
    "minimax",
    "seedance",
    "wan",
    "replicate",
    "fal",
    "openrouter",
)


def _discover() -> dict[str, ProviderFactory]:
    factories: dict[str, ProviderFactory] = {}
    for module_name in ADAPTER_MODULES:
        try:
            module = importlib.import_module(f"vidrouter.providers.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"vidrouter.providers.{module_name}":
                raise
            continue  # not built yet
        factory = module.FACTORY
        factories[factory.name] = factory
    return factories


@functools.cache
def factories() -> dict[str, ProviderFactory]:
    """Every adapter that is present, by name (imported on first use)."""
    return _discover()


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
