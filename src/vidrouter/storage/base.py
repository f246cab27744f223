"""The storage interface every blob backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class BlobInfo:
    key: str
    size: int
    etag: str


class BlobStorage(Protocol):
    async def put_file(self, key: str, source: Path) -> BlobInfo:
        """Store a local file under `key` (the source file is left in place)."""
        ...

    async def stat(self, key: str) -> BlobInfo | None: ...

    def local_path(self, key: str) -> Path | None:
        """Where the blob lies on this machine's disk, for backends that keep it there."""
        ...

    async def delete(self, key: str) -> None: ...
