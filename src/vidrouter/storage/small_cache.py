"""Small blobs of the local store kept in memory, so a hot small video is sent without a
trip to a thread.

A stored video never changes (its key is its generation's), so an entry can only go stale
by a delete or a replacement: the store's own `delete` and `put_file` forget the key at
once, and an entry is looked at again on disk (by the caller, in a thread) when it is older
than `recheck_seconds`, which bounds how long a delete made by another process on the same
disk goes unnoticed. Bounded in bytes, least recently used first out.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from vidrouter.storage.base import BlobInfo

DEFAULT_RECHECK_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class SmallBlob:
    info: BlobInfo
    data: bytes
    mtime: float


class SmallBlobCache:
    def __init__(
        self,
        max_bytes: int,
        *,
        recheck_seconds: float = DEFAULT_RECHECK_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_bytes = max_bytes
        # One blob may take at most an eighth of the cache: a few big files cannot push
        # out all the small hot ones.
        self.max_item_bytes = max_bytes // 8
        self._recheck = recheck_seconds
        self._monotonic = monotonic
        self._entries: OrderedDict[str, tuple[SmallBlob, float]] = OrderedDict()
        self._bytes = 0

    def get(self, key: str) -> SmallBlob | None:
        """The cached blob, or None: absent, or due to be looked at again on disk."""
        found = self._entries.get(key)
        if found is None:
            return None
        blob, checked = found
        if self._monotonic() - checked > self._recheck:
            return None
        self._entries.move_to_end(key)
        return blob

    def put(self, blob: SmallBlob) -> None:
        size = len(blob.data)
        if size > self.max_item_bytes:
            return
        key = blob.info.key
        self.forget(key)
        self._entries[key] = (blob, self._monotonic())
        self._bytes += size
        while self._bytes > self.max_bytes:
            _, (old, _) = self._entries.popitem(last=False)
            self._bytes -= len(old.data)

    def forget(self, key: str) -> None:
        found = self._entries.pop(key, None)
        if found is not None:
            self._bytes -= len(found[0].data)

    @property
    def size_bytes(self) -> int:
        return self._bytes
