"""What the client raises.

ClientError (a VidrouterError)
├── APIConnectionError       the server could not be reached (after the retries)
├── APIError                 a non-2xx answer; `.error` is the API's error object
│   ├── BadRequestError          400, 413
│   ├── AuthenticationError      401
│   ├── PermissionDeniedError    403
│   ├── NotFoundError            404
│   ├── ConflictError            409
│   ├── RateLimitError           429 (`.retry_after`)
│   └── ServerError              5xx (ServiceUnavailableError: 503, `.retry_after`)
├── GenerationFailedError    `generate()` ended `failed` or `canceled`; `.generation`
├── WaitTimeoutError         `wait()` gave up before a terminal status
└── WebhookVerificationError the signature, timestamp or body of a webhook is not valid
"""

from __future__ import annotations

from vidrouter.client.types import ErrorObject, Generation
from vidrouter.domain.errors import VidrouterError


class ClientError(VidrouterError):
    """Base of everything the client raises."""


class APIConnectionError(ClientError):
    pass


class APIError(ClientError):
    def __init__(
        self,
        status_code: int,
        error: ErrorObject,
        *,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status_code} {error.code}: {error.message}")
        self.status_code = status_code
        self.error = error
        self.request_id = request_id
        self.retry_after = retry_after

    @property
    def code(self) -> str:
        return self.error.code

    @property
    def message(self) -> str:
        return self.error.message


class BadRequestError(APIError):
    pass


class AuthenticationError(APIError):
    pass


class PermissionDeniedError(APIError):
    pass


class NotFoundError(APIError):
    pass


class ConflictError(APIError):
    pass


class RateLimitError(APIError):
    pass


class ServerError(APIError):
    pass


class ServiceUnavailableError(ServerError):
    pass


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: BadRequestError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_class(status_code: int) -> type[APIError]:
    if status_code in _BY_STATUS:
        return _BY_STATUS[status_code]
    return ServerError if status_code >= 500 else APIError


class GenerationFailedError(ClientError):
    def __init__(self, generation: Generation) -> None:
        error = generation.error
        detail = f"{error.code}: {error.message}" if error else generation.status
        super().__init__(f"generation {generation.id} {generation.status} ({detail})")
        self.generation = generation


class WaitTimeoutError(ClientError, TimeoutError):
    def __init__(self, generation: Generation, timeout: float) -> None:
        super().__init__(f"generation {generation.id} still {generation.status} after {timeout}s")
        self.generation = generation


class WebhookVerificationError(ClientError):
    pass
