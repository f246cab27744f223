"""The storage interface every blob backend implements."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Protocol

from vidrouter.domain.errors import StorageUnavailable, is_storage_error

__all__ = [
    "BlobInfo",
    "BlobStorage",
    "StorageUnavailable",
    "copy_to_file",
    "is_storage_error",
    "read_all",
]


@dataclass(frozen=True)
class BlobInfo:
    key: str
    size: int
    etag: str


class BlobStorage(Protocol):
    async def put_file(self, key: str, source: Path) -> BlobInfo:
        """Store a local file under `key`, streamed (the source file is left in place).
        Raises StorageUnavailable when the store cannot take it now."""
        ...

    async def stat(self, key: str) -> BlobInfo | None: ...

    def read(self, key: str, start: int, end: int) -> AsyncIterator[bytes]:
        """The bytes `start` to `end` (exclusive) of the blob, in chunks."""
        ...

    def local_path(self, key: str) -> Path | None:
        """Where the blob lies on this machine's disk, for backends that keep it there."""
        ...

    async def presigned_url(self, key: str, expires_in: timedelta) -> str | None:
        """A URL of the store itself that serves the blob without credentials for
        `expires_in`; None when the backend has no such thing (local disk)."""
        ...

    async def delete(self, key: str) -> None: ...

    async def check(self) -> None:
        """Raise StorageUnavailable unless a small blob can be written, read and removed."""
        ...

    async def aclose(self) -> None: ...


async def read_all(storage: BlobStorage, key: str) -> bytes:
    """A small blob (an input image) whole; never a video."""
    info = await storage.stat(key)
    if info is None:
        raise FileNotFoundError(key)
    return b"".join([chunk async for chunk in storage.read(key, 0, info.size)])


async def copy_to_file(storage: BlobStorage, key: str, path: Path) -> None:
    """A blob written to a file on this machine, chunk by chunk (memory stays flat)."""
    info = await storage.stat(key)
    if info is None:
        raise FileNotFoundError(key)
    handle = await asyncio.to_thread(path.open, "wb")
    try:
        async for chunk in storage.read(key, 0, info.size):
            await asyncio.to_thread(handle.write, chunk)
    finally:
        await asyncio.to_thread(handle.close)
