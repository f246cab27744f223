"""The fal.ai queue API (host): the adapter (`adapter`), its error types (`errors`) and what
fal publishes about its apps (`catalog`)."""

from vidrouter.providers.config import ProviderFactory
from vidrouter.providers.fal.adapter import CREDENTIAL, DEFAULT_BASE_URL, FalProvider
from vidrouter.providers.fal.catalog import DEFAULT_API_BASE_URL, published

FACTORY = ProviderFactory(
    "fal",
    (CREDENTIAL,),
    FalProvider,
    DEFAULT_BASE_URL,
    other_base_urls={"fal_api": DEFAULT_API_BASE_URL},
    catalog_reader=published,
)

__all__ = ["FACTORY", "FalProvider", "published"]
