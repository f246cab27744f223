"""Blobs as files under a directory on local disk (the embedded default)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import stat
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

from vidrouter.storage.base import BlobInfo, StorageUnavailable, is_storage_error
from vidrouter.storage.small_cache import SmallBlob, SmallBlobCache

_CHUNK = 256 * 1024


class LocalStorage:
    def __init__(self, root: Path, *, cache_bytes: int = 0) -> None:
        """`cache_bytes`: how much of small blobs to keep in memory (0: none)."""
        self.root = root.resolve()
        self._cache = SmallBlobCache(cache_bytes) if cache_bytes > 0 else None
        # Bumped by every delete and replacement: a read that began before one is not cached.
        self._changes = 0

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
        self._changed(key)
        try:
            return await asyncio.to_thread(self._put_file, key, source)
        except OSError as exc:
            if is_storage_error(exc):
                raise StorageUnavailable(f"local storage cannot take the video: {exc}") from exc
            raise
        finally:
            self._changed(key)

    def _put_file(self, key: str, source: Path) -> BlobInfo:
        target = self._path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{uuid.uuid4().hex[:8]}.part")
        try:
            shutil.copyfile(source, partial)
            with partial.open("rb") as handle:
                os.fsync(handle.fileno())
            os.replace(partial, target)
        except BaseException:
            partial.unlink(missing_ok=True)  # a full disk must not keep half a video
            raise
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
        return BlobInfo(key=key, size=st.st_size, etag=_etag(key, st))

    def cached_small(self, key: str) -> SmallBlob | None:
        """A small blob from memory (no I/O), or None: read it with `small_blob`."""
        return self._cache.get(key) if self._cache is not None else None

    async def small_blob(self, key: str, limit: int) -> SmallBlob | None:
        """A blob of at most `limit` bytes whole, with its info and mtime, in one trip to a
        thread (kept in memory for `cached_small`); None when absent or larger."""
        changes = self._changes
        found = await asyncio.to_thread(self.small, key, limit)
        if self._cache is not None:
            if found is None:
                self._cache.forget(key)
            elif changes == self._changes:
                self._cache.put(found)
        return found

    def small(self, key: str, limit: int) -> SmallBlob | None:
        """Blocking: see `small_blob`."""
        path = self.local_path(key)
        if path is None:
            return None
        try:
            with path.open("rb") as handle:
                st = os.fstat(handle.fileno())
                if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
                    return None
                data = handle.read(limit + 1)
        except OSError:
            return None
        if len(data) != st.st_size:
            return None  # changed while read: the routed way copes
        return SmallBlob(BlobInfo(key=key, size=st.st_size, etag=_etag(key, st)), data, st.st_mtime)

    async def read(self, key: str, start: int, end: int) -> AsyncIterator[bytes]:
        path = self._path(key)
        handle = await asyncio.to_thread(path.open, "rb")
        try:
            await asyncio.to_thread(handle.seek, start)
            remaining = end - start
            while remaining > 0:
                chunk = await asyncio.to_thread(handle.read, min(_CHUNK, remaining))
                if not chunk:
                    break
                remaining -= len(chunk)
                yield chunk
        finally:
            await asyncio.to_thread(handle.close)

    async def presigned_url(self, key: str, expires_in: timedelta) -> str | None:
        return None

    async def delete(self, key: str) -> None:
        path = self.local_path(key)
        if path is not None:
            self._changed(key)
            try:
                await asyncio.to_thread(path.unlink, True)
            finally:
                self._changed(key)  # a read racing the unlink must not be cached either

    def _changed(self, key: str) -> None:
        self._changes += 1
        if self._cache is not None:
            self._cache.forget(key)

    async def check(self) -> None:
        try:
            await asyncio.to_thread(self._probe)
        except OSError as exc:
            raise StorageUnavailable(
                f"local storage at {self.root} is not writable: {exc}"
            ) from exc

    def _probe(self) -> None:
        # A real write and fsync: a full disk refuses it, where statvfs would still say the
        # reserved blocks a root process may use are free.
        self.root.mkdir(parents=True, exist_ok=True)
        probe = self.root / f".probe-{uuid.uuid4().hex[:8]}"
        try:
            with probe.open("wb") as handle:
                handle.write(b"\0" * 4096)
                handle.flush()
                os.fsync(handle.fileno())
        finally:
            probe.unlink(missing_ok=True)

    async def aclose(self) -> None:
        return None


def _etag(key: str, st: os.stat_result) -> str:
    return hashlib.sha256(f"{key}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:32]
