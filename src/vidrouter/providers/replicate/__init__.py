"""Replicate (host): the adapter (`adapter`), its error codes (`errors`), what it publishes
about its models (`catalog`) and its signed webhooks (`callbacks`). Import what you need from
those modules; the package itself only names the factory."""

from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.replicate import adapter, catalog

FACTORY = ProviderFactory(
    adapter.NAME,
    (adapter.TOKEN_ENV,),
    adapter.ReplicateProvider,
    adapter.DEFAULT_BASE_URL,
    catalog_reader=catalog.published,
)
