"""The error hierarchy shared by every package.

VidrouterError
├── RequestError            a client's request is wrong or not allowed (becomes a 4xx)
│   ├── InvalidRequest      400 invalid_request_error, names the `param`
│   ├── NotFound            404 not_found_error
│   ├── Conflict            409 conflict_error
│   └── Unavailable         503 service_unavailable_error
├── StorageUnavailable      our blob storage is full or unreachable (work waits; never a
│                           provider's fault)
└── (ProviderError, StoreError ... live in their own packages)
"""

from __future__ import annotations

import errno

# The errors of a disk that cannot take more (full, over quota, read-only, failing): our
# storage's fault, not the provider's, and worth waiting out rather than failing the work.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EIO})


class VidrouterError(Exception):
    """Base of every error vidrouter raises on purpose."""


class RequestError(VidrouterError):
    status_code = 400
    error_type = "invalid_request_error"

    def __init__(self, message: str, *, code: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param


class InvalidRequest(RequestError):
    status_code = 400
    error_type = "invalid_request_error"


class NotFound(RequestError):
    status_code = 404
    error_type = "not_found_error"


class Conflict(RequestError):
    status_code = 409
    error_type = "conflict_error"


class Unavailable(RequestError):
    status_code = 503
    error_type = "service_unavailable_error"

    def __init__(
        self, message: str, *, code: str, param: str | None = None, retry_after: int = 30
    ) -> None:
        super().__init__(message, code=code, param=param)
        self.retry_after = retry_after


class StorageUnavailable(VidrouterError):
    """The blob store cannot take or give data now (full, unreachable, refusing): the work
    waits and tries again; it is never blamed on a provider."""


def is_storage_error(exc: BaseException) -> bool:
    """Whether an OS error means our disk cannot take more (as opposed to a bug)."""
    return isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS
