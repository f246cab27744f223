"""What the client raises.

ClientError (a VidrouterError)
├── APIConnectionError       the server could not be reached (after the retries)
│   └── APITimeoutError          a call took longer than the client's `timeout`, whole
├── UnexpectedResponseError  a response that is not what the API sends (a proxy's HTML page,
│                            another shape, an unknown status); `.response`
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
├── BatchWaitTimeoutError    `wait_batch()` gave up before the batch ended; `.batch`
└── WebhookVerificationError the signature, timestamp or body of a webhook is not valid
"""

from __future__ import annotations

import httpx

from vidrouter.client.types import Batch, ErrorObject, Generation
from vidrouter.domain.errors import VidrouterError


class ClientError(VidrouterError):
    """Base of everything the client raises."""


class APIConnectionError(ClientError):
    pass


class APITimeoutError(APIConnectionError, TimeoutError):
    """The call (connecting, sending, the answer's headers and its whole body) took longer
    than the client's `timeout`; a server that drips its answer cannot hold a call longer."""


class UnexpectedResponseError(ClientError):
    """The server answered, but not as the API answers: `.response` is what came back."""

    def __init__(self, message: str, response: httpx.Response) -> None:
        super().__init__(message)
        self.response = response
        self.status_code = response.status_code
        self.request_id = response.headers.get("x-request-id")


class APIError(ClientError):
    def __init__(
        self,
        status_code: int,
        error: ErrorObject,
        *,
        request_id: str | None = None,
        retry_after: float | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(f"{status_code} {error.code}: {error.message}")
        self.response = response
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


class BatchWaitTimeoutError(ClientError, TimeoutError):
    def __init__(self, batch: Batch, timeout: float) -> None:
        super().__init__(f"batch {batch.id} still {batch.status} after {timeout}s")
        self.batch = batch


class WebhookVerificationError(ClientError):
    pass
