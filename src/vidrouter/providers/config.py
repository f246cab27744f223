"""What an adapter is built from, and how the registry builds it.

Every adapter has one constructor, `Adapter(config: AdapterConfig)`: where its provider is,
how to read its credentials, and the few options adapters really use. Only this module reads
`Settings` for the adapters (no adapter sees every setting), so a test builds an adapter from
a config it writes by hand.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.generation import JsonScalar
from vidrouter.providers.base import Provider, ProviderContext, PublishedModel


def _no_credentials(name: str) -> str | None:
    return None


def _no_pool() -> Executor:
    raise RuntimeError("this adapter was built without a render pool")


@dataclass(frozen=True)
class AdapterConfig:
    base_url: str
    # A credential by its conventional variable name (`ARK_API_KEY`, ...); None when unset.
    credential: Callable[[str], str | None] = _no_credentials
    # User-supplied image URLs may reach private addresses: the operator's statement (the
    # `allow_private_webhook_urls` setting) that such addresses are reachable on purpose.
    allow_private_images: bool = False
    base_urls: Mapping[str, str] = field(default_factory=dict)  # a provider's other hosts
    public_url: str | None = None  # how we name ourselves to hosts that ask (OpenRouter)
    catalog: Path | None = None  # the catalog file, for hosts that read route options
    work_dir: Path = Path(".")  # scratch space for adapters that make files here
    render_pool: Callable[[], Executor] = _no_pool  # CPU work off the event loop
    clock: Callable[[], float] = time.time
    transport: httpx.AsyncBaseTransport | None = None  # a test's stand-in for the network

    def route_options(self, provider: str) -> dict[str, Mapping[str, JsonScalar]]:
        """The options of the catalog's routes to `provider`, by provider model name."""
        options: dict[str, Mapping[str, JsonScalar]] = {}
        for model in load_catalog(self.catalog).models:
            for route in model.routes:
                if route.provider == provider:
                    options.setdefault(route.provider_model, route.options)
        return options

    def key(self, name: str) -> str:
        """A credential, or "" (the provider then refuses us, and that is an AccountRefused)."""
        return self.credential(name) or ""


CatalogReader = Callable[[AdapterConfig, Sequence[str]], Awaitable[list[PublishedModel]]]


@dataclass(frozen=True)
class ProviderFactory:
    """One adapter as the registry knows it: its name (the catalog's `provider`), the
    credentials that must be set for its routes to be used, and how to build it."""

    name: str
    credentials: tuple[str, ...]  # environment variables that must all be set
    adapter: Callable[[AdapterConfig], Provider]
    default_base_url: str = ""
    base_url_name: str = ""  # VIDROUTER_<NAME>_BASE_URL overrides the URL; "" means `name`
    other_base_urls: Mapping[str, str] = field(default_factory=dict)  # name -> default
    # Hosts that publish their catalog over an API: the models (of `wanted`, the provider
    # model names our catalog routes to) as the host describes them now.
    catalog_reader: CatalogReader | None = None

    def config(self, context: ProviderContext) -> AdapterConfig:
        settings = context.settings
        return AdapterConfig(
            base_url=settings.provider_base_url(
                self.base_url_name or self.name, self.default_base_url
            ),
            credential=settings.env,
            allow_private_images=settings.allow_private_webhook_urls,
            base_urls={
                name: settings.provider_base_url(name, default)
                for name, default in self.other_base_urls.items()
            },
            public_url=settings.public_url,
            catalog=settings.catalog,
            work_dir=context.work_dir,
            render_pool=context.render_pool,
        )

    def build(self, context: ProviderContext) -> Provider:
        return self.adapter(self.config(context))

    @property
    def published(
        self,
    ) -> Callable[[ProviderContext, Sequence[str]], Awaitable[list[PublishedModel]]] | None:
        """`catalog_reader` for a context (what `vidrouter catalog check` calls), if any."""
        reader = self.catalog_reader
        if reader is None:
            return None
        return lambda context, wanted: reader(self.config(context), wanted)
