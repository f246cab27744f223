"""Blobs as files under a directory on local disk (the embedded default)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
from pathlib import Path

from vidrouter.storage.base import BlobInfo


class LocalStorage:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def _path(self, key: str) -> Path:
        path = (self.root / key).resolve()
        if not path.is_relative_to(self.root) or path == self.root:
            raise ValueError(f"invalid blob key {key!r}")
        return path

    def local_path(self, key: str) -> Path | None:
        try:
            return self._path(key)
        except ValueError:
            return None

    async def put_file(self, key: str, source: Path) -> BlobInfo:
        return await asyncio.to_thread(self._put_file, key, source)

    def _put_file(self, key: str, source: Path) -> BlobInfo:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        shutil.copyfile(source, partial)
        with partial.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(partial, target)
        return self._info(key, target)

    async def stat(self, key: str) -> BlobInfo | None:
        path = self.local_path(key)
        if path is None:
            return None
        return await asyncio.to_thread(self._stat, key, path)

    def _stat(self, key: str, path: Path) -> BlobInfo | None:
        if not path.is_file():
            return None
        return self._info(key, path)

    @staticmethod
    def _info(key: str, path: Path) -> BlobInfo:
        st = path.stat()
        tag = hashlib.sha256(f"{key}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:32]
        return BlobInfo(key=key, size=st.st_size, etag=tag)

    async def delete(self, key: str) -> None:
        path = self.local_path(key)
        if path is not None:
            await asyncio.to_thread(path.unlink, True)
