"""The OpenRouter video API (host): the adapter (`adapter`), its error codes (`errors`), what
it publishes about its models (`catalog`) and its signed callbacks (`callbacks`). Import what
you need from those modules; the package itself only names the factory."""

from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.openrouter.adapter import CREDENTIAL, DEFAULT_BASE_URL, NAME
from vidrouter.providers.openrouter.adapter import OpenRouterProvider as _Provider
from vidrouter.providers.openrouter.catalog import published as _published

FACTORY = ProviderFactory(
    NAME, (CREDENTIAL,), _Provider, DEFAULT_BASE_URL, catalog_reader=_published
)
