"""A Python client of the vidrouter API (docs/client.md).

from vidrouter.client import Client

with Client("vr_...", base_url="http://127.0.0.1:8000") as client:
    video = client.generate("local-preview", "a red fox in the snow")
    client.download(video.id, "fox.mp4")
"""

from vidrouter.client._async import AsyncClient
from vidrouter.client._shell import DEFAULT_BASE_URL
from vidrouter.client._sync import Client
from vidrouter.client.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    BatchWaitTimeoutError,
    ClientError,
    ConflictError,
    GenerationFailedError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnexpectedResponseError,
    WaitTimeoutError,
    WebhookVerificationError,
)
from vidrouter.client.retry import RetryPolicy
from vidrouter.client.types import (
    TERMINAL,
    Attempt,
    Batch,
    BatchPage,
    BatchResult,
    Character,
    Cost,
    ErrorObject,
    Generation,
    GenerationError,
    GenerationPage,
    Model,
    ModelList,
    Pricing,
    Status,
    Usage,
    UsageItem,
    UsageTotal,
    WebhookEvent,
)
from vidrouter.client.webhooks import verify_webhook

__all__ = [
    "DEFAULT_BASE_URL",
    "TERMINAL",
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AsyncClient",
    "Attempt",
    "AuthenticationError",
    "BadRequestError",
    "Batch",
    "BatchPage",
    "BatchResult",
    "BatchWaitTimeoutError",
    "Character",
    "Client",
    "ClientError",
    "ConflictError",
    "Cost",
    "ErrorObject",
    "Generation",
    "GenerationError",
    "GenerationFailedError",
    "GenerationPage",
    "Model",
    "ModelList",
    "NotFoundError",
    "PermissionDeniedError",
    "Pricing",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailableError",
    "Status",
    "UnexpectedResponseError",
    "Usage",
    "UsageItem",
    "UsageTotal",
    "WaitTimeoutError",
    "WebhookEvent",
    "WebhookVerificationError",
    "verify_webhook",
]
