"""Which errors mean "a dependency is down", as opposed to "a bug".

The drivers raise many kinds when the database is unreachable, restarting, out of
connections or on a full disk (asyncpg's connection errors, SQLite's "database or disk is
full", SQLAlchemy's pool timeouts, bare socket errors). They are told apart here, once, so
that the API answers them `503 service_unavailable` with `Retry-After`: a client can tell an
outage (wait and retry) from a bug (a 500).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exc as sa_exc

from vidrouter.domain.errors import StorageUnavailable, is_storage_error
from vidrouter.store.database import StoreError

RETRY_AFTER_SECONDS = 5
# The classes whose instances may be outages (the API's error handling looks at these).
OUTAGE_CANDIDATES: tuple[type[Exception], ...] = (
    sa_exc.SQLAlchemyError,
    OSError,
    StoreError,
    StorageUnavailable,
)

# asyncpg's classes by name: importing asyncpg here would tie the API to one driver.
_PG_OUTAGE_CLASSES = frozenset(
    {
        "PostgresConnectionError",
        "ConnectionDoesNotExistError",
        "ConnectionFailureError",
        "ConnectionRejectionError",
        "CannotConnectNowError",
        "TooManyConnectionsError",
        "AdminShutdownError",
        "CrashShutdownError",
        "OperatorInterventionError",
        "QueryCanceledError",
        "DiskFullError",
        "InsufficientResourcesError",
        "OutOfMemoryError",
        "ReadOnlySQLTransactionError",
        "InterfaceError",
        "InternalClientError",
    }
)


@dataclass(frozen=True)
class Outage:
    code: str  # service_unavailable | storage_unavailable
    message: str


def classify(exc: BaseException) -> Outage | None:
    """The outage `exc` stands for, or None when it is something else (a bug)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _one(current)
        if found is not None:
            return found
        current = current.__cause__ or current.__context__
    return None


def _one(exc: BaseException) -> Outage | None:
    if isinstance(exc, StorageUnavailable):
        return Outage("storage_unavailable", "the video storage is unavailable; try again shortly")
    if isinstance(
        exc,
        sa_exc.OperationalError
        | sa_exc.InterfaceError
        | sa_exc.DisconnectionError
        | sa_exc.TimeoutError
        | StoreError,
    ):
        return _database()
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return _database()
    if type(exc).__name__ in _PG_OUTAGE_CLASSES and type(exc).__module__.startswith("asyncpg"):
        return _database()
    if isinstance(exc, ConnectionError | TimeoutError) or is_storage_error(exc):
        return _database()
    if isinstance(exc, OSError) and type(exc) is OSError and exc.errno is None:
        return _database()  # asyncpg's "Multiple exceptions: [Errno 111] Connect call failed"
    return None


def _database() -> Outage:
    return Outage(
        "service_unavailable", "the service is temporarily unavailable; try again shortly"
    )
