"""Provider adapters: the `Provider` protocol and the values and errors it speaks (`base`),
how an adapter is built (`config`), one package per provider, and the registry of them
(`registry.Providers`, which imports every provider package)."""

from vidrouter.providers.base import (
    AccountRefused,
    ContentRejected,
    InvalidInput,
    JobFailed,
    JobState,
    MalformedResponse,
    PollPolicy,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderJob,
    ProviderRequest,
    ProviderStatus,
    ProviderTimeout,
    ProviderUnavailable,
    PublishedModel,
    RateLimited,
    ResultRef,
)
from vidrouter.providers.config import AdapterConfig, ProviderFactory

__all__ = [
    "AccountRefused",
    "AdapterConfig",
    "ContentRejected",
    "InvalidInput",
    "JobFailed",
    "JobState",
    "MalformedResponse",
    "PollPolicy",
    "Provider",
    "ProviderContext",
    "ProviderError",
    "ProviderFactory",
    "ProviderJob",
    "ProviderRequest",
    "ProviderStatus",
    "ProviderTimeout",
    "ProviderUnavailable",
    "PublishedModel",
    "RateLimited",
    "ResultRef",
]
