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


# The API's error type of each status (docs/api.md): one table for the API's answers and
# for the errors below, which carry a status and so a type.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "budget_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    409: "conflict_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    429: "rate_limit_error",
    503: "service_unavailable_error",
}


class VidrouterError(Exception):
    """Base of every error vidrouter raises on purpose."""


class RequestError(VidrouterError):
    status_code = 400

    def __init__(self, message: str, *, code: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param

    @property
    def error_type(self) -> str:
        return ERROR_TYPES.get(self.status_code, "api_error")


class InvalidRequest(RequestError):
    status_code = 400


class NotFound(RequestError):
    status_code = 404

    @classmethod
    def for_id(cls, kind: str, value: str, *, param: str | None = None) -> NotFound:
        """No `kind` (generation, video, ...) of the account's with this id: whether another
        account has one is never said."""
        return cls(
            f"no {kind} with id {value[:64]!r}",
            code=f"{kind}_not_found",
            param=f"{kind}_id" if param is None else param,
        )


class Conflict(RequestError):
    status_code = 409


class Unavailable(RequestError):
    status_code = 503

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
