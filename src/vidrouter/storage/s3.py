"""Blobs in an S3-compatible object store (AWS S3, Cloudflare R2, MinIO, GCS's S3 API).

Built on obstore (Python bindings of the Rust `object_store` crate): async without a thread
per call, multipart uploads streamed from the file in fixed-size parts (a video is never
held in memory whole), ranged reads streamed as they arrive, and presigned URLs.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import obstore
from obstore.exceptions import BaseError, NotFoundError
from obstore.store import S3Store

from vidrouter.storage.base import BlobInfo, StorageUnavailable

log = logging.getLogger(__name__)

PART_BYTES = 8 * 1024 * 1024
# Parts in flight at once: the most an upload holds in memory is this times PART_BYTES.
UPLOAD_CONCURRENCY = 4
_READ_CHUNK = 256 * 1024
# What obstore raises when the store fails (its own classes, and OS errors from the file).
_ERRORS = (BaseError, OSError)


def parse_s3_url(url: str) -> tuple[str, str]:
    """`s3://BUCKET[/PREFIX]` -> (bucket, prefix without slashes at either end)."""
    parts = urlsplit(url)
    if parts.scheme != "s3" or not parts.netloc:
        raise ValueError(f"not an s3://BUCKET[/PREFIX] URL: {url!r}")
    return parts.netloc, parts.path.strip("/")


class S3Storage:
    def __init__(
        self,
        url: str,
        env: Callable[[str], str | None],
        *,
        request_timeout: float = 30.0,
        max_retries: int = 2,
    ) -> None:
        bucket, prefix = parse_s3_url(url)
        self.bucket = bucket
        self.prefix = prefix
        config: dict[str, Any] = {}
        for name, field in (
            ("AWS_ENDPOINT_URL", "endpoint"),
            ("AWS_ACCESS_KEY_ID", "access_key_id"),
            ("AWS_SECRET_ACCESS_KEY", "secret_access_key"),
            ("AWS_SESSION_TOKEN", "token"),
            ("AWS_REGION", "region"),
        ):
            value = env(name)
            if value:
                config[field] = value
        if "region" not in config and env("AWS_DEFAULT_REGION"):
            config["region"] = env("AWS_DEFAULT_REGION")
        endpoint = str(config.get("endpoint", ""))
        self._store = S3Store(
            bucket,
            prefix=prefix or None,
            config=config,  # type: ignore[arg-type]
            client_options={
                "allow_http": endpoint.startswith("http://"),
                "timeout": timedelta(seconds=request_timeout),
                "connect_timeout": timedelta(seconds=5),
            },
            # A store that is down must surface quickly: the generation waits and retries
            # with our own backoff, and a reader gets a 503 instead of hanging.
            retry_config={
                "max_retries": max_retries,
                "retry_timeout": timedelta(seconds=request_timeout),
                "backoff": {
                    "init_backoff": timedelta(milliseconds=100),
                    "max_backoff": timedelta(seconds=2),
                    "base": 2,
                },
            },
        )

    def describe(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}".rstrip("/")

    def local_path(self, key: str) -> Path | None:
        return None

    async def put_file(self, key: str, source: Path) -> BlobInfo:
        try:
            result = await obstore.put_async(
                self._store,
                key,
                source,
                chunk_size=PART_BYTES,
                max_concurrency=UPLOAD_CONCURRENCY,
                attributes={"Content-Type": _content_type(key)},
            )
            size = (await asyncio.to_thread(source.stat)).st_size
        except _ERRORS as exc:
            raise StorageUnavailable(f"object storage refused the upload: {exc}") from exc
        return BlobInfo(key=key, size=size, etag=_etag(result.get("e_tag")))

    async def stat(self, key: str) -> BlobInfo | None:
        try:
            meta = await obstore.head_async(self._store, key)
        except (NotFoundError, FileNotFoundError):
            return None
        except _ERRORS as exc:
            raise StorageUnavailable(f"object storage unreachable: {exc}") from exc
        return BlobInfo(key=key, size=int(meta["size"]), etag=_etag(meta.get("e_tag")))

    async def read(self, key: str, start: int, end: int) -> AsyncIterator[bytes]:
        if end <= start:
            return
        try:
            result = await obstore.get_async(self._store, key, options={"range": (start, end)})
            async for chunk in result.stream(min_chunk_size=_READ_CHUNK):
                yield bytes(chunk)
        except (NotFoundError, FileNotFoundError):
            raise
        except _ERRORS as exc:
            raise StorageUnavailable(f"object storage unreachable: {exc}") from exc

    async def presigned_url(self, key: str, expires_in: timedelta) -> str | None:
        try:
            return await obstore.sign_async(self._store, "GET", key, expires_in)
        except _ERRORS as exc:
            raise StorageUnavailable(f"object storage cannot sign: {exc}") from exc

    async def delete(self, key: str) -> None:
        try:
            await obstore.delete_async(self._store, key)
        except (NotFoundError, FileNotFoundError):
            return
        except _ERRORS as exc:
            raise StorageUnavailable(f"object storage unreachable: {exc}") from exc

    async def check(self) -> None:
        key = f".probe/{uuid.uuid4().hex}"
        try:
            await obstore.put_async(self._store, key, b"probe")
            await obstore.delete_async(self._store, key)
        except _ERRORS as exc:
            raise StorageUnavailable(f"object storage {self.describe()}: {exc}") from exc

    async def aclose(self) -> None:
        return None


def _etag(raw: object) -> str:
    return str(raw or "").strip('"').replace('"', "")


def _content_type(key: str) -> str:
    ext = key.rsplit(".", 1)[-1].lower()
    return {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg"}.get(ext, "video/mp4")
