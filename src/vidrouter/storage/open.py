"""Which blob store a process uses: `VIDROUTER_STORAGE_URL`, `file://...` or `s3://...`."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from vidrouter.settings import Settings
from vidrouter.storage.base import BlobStorage
from vidrouter.storage.local import LocalStorage


def open_storage(settings: Settings, data_dir: Path) -> BlobStorage:
    url = settings.storage_url
    if not url:
        return LocalStorage(data_dir / "blobs")
    scheme = urlsplit(url).scheme
    if scheme == "file":
        path = unquote(urlsplit(url).path)
        if not path:
            raise ValueError("VIDROUTER_STORAGE_URL file:// needs a path, e.g. file:///srv/videos")
        return LocalStorage(Path(path))
    if scheme == "s3":
        from vidrouter.storage.s3 import S3Storage  # obstore is loaded only when used

        return S3Storage(url, settings.env)
    raise ValueError(f"VIDROUTER_STORAGE_URL must be file://... or s3://..., not {scheme!r}")
