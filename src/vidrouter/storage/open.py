"""Which blob store a process uses: `VIDROUTER_STORAGE_URL`, `file://...` or `s3://...`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlsplit

from vidrouter.storage.base import BlobStorage
from vidrouter.storage.local import LocalStorage


def open_storage(
    url: str | None,
    data_dir: Path,
    env: Callable[[str], str | None],
    *,
    cache_bytes: int = 0,
) -> BlobStorage:
    """The store named by `url` (None: the data dir's blobs/); `env` reads the AWS_*
    variables of the environment the settings came from; `cache_bytes` of small local
    blobs are kept in memory for the content host."""
    if not url:
        return LocalStorage(data_dir / "blobs", cache_bytes=cache_bytes)
    scheme = urlsplit(url).scheme
    if scheme == "file":
        path = unquote(urlsplit(url).path)
        if not path:
            raise ValueError("VIDROUTER_STORAGE_URL file:// needs a path, e.g. file:///srv/videos")
        return LocalStorage(Path(path), cache_bytes=cache_bytes)
    if scheme == "s3":
        from vidrouter.storage.s3 import S3Storage  # obstore is loaded only when used

        return S3Storage(url, env)
    raise ValueError(f"VIDROUTER_STORAGE_URL must be file://... or s3://..., not {scheme!r}")
