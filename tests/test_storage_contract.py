"""One storage contract, run against the local backend and against S3 over HTTP (moto).

Also: what each backend does when it cannot take more (a full disk, a store that is down):
StorageUnavailable, never a bare OS error, and no half-written blob left behind.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from tests.support.scaleout import S3Server, can_mount, fill, s3_server, small_disk
from vidrouter.storage.base import BlobInfo, BlobStorage, StorageUnavailable, read_all
from vidrouter.storage.local import LocalStorage
from vidrouter.storage.s3 import PART_BYTES, S3Storage
from vidrouter.storage.small_cache import SmallBlob, SmallBlobCache


@pytest.fixture(scope="module")
def moto() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def _s3(moto: S3Server, prefix: str = "") -> S3Storage:
    bucket = moto.new_bucket()
    env = moto.env()
    return S3Storage(f"s3://{bucket}/{prefix}", env.get)


@pytest.fixture(params=["local", "s3"])
async def storage(
    request: pytest.FixtureRequest, tmp_path: Path, moto: S3Server
) -> AsyncIterator[BlobStorage]:
    backend: BlobStorage
    if request.param == "local":
        backend = LocalStorage(tmp_path / "blobs")
    else:
        backend = _s3(moto, "some/prefix")
    yield backend
    await backend.aclose()


def _file(tmp_path: Path, size: int) -> tuple[Path, bytes]:
    data = os.urandom(size)
    path = tmp_path / f"source-{size}.bin"
    path.write_bytes(data)
    return path, data


async def _read(storage: BlobStorage, key: str, start: int, end: int) -> bytes:
    return b"".join([chunk async for chunk in storage.read(key, start, end)])


async def test_put_stat_read_ranges_delete(storage: BlobStorage, tmp_path: Path) -> None:
    # Larger than one multipart part, so the S3 upload is a real multipart upload.
    source, data = _file(tmp_path, PART_BYTES + 123_457)
    info = await storage.put_file("videos/gen_a.mp4", source)
    assert source.exists()  # the caller's file is left in place
    assert info.size == len(data) and info.etag
    stat = await storage.stat("videos/gen_a.mp4")
    assert stat is not None and (stat.size, stat.etag) == (len(data), info.etag)
    assert await _read(storage, "videos/gen_a.mp4", 0, len(data)) == data
    assert await _read(storage, "videos/gen_a.mp4", 100, 200) == data[100:200]
    assert await _read(storage, "videos/gen_a.mp4", len(data) - 7, len(data)) == data[-7:]
    assert await storage.stat("videos/missing.mp4") is None
    await storage.delete("videos/gen_a.mp4")
    assert await storage.stat("videos/gen_a.mp4") is None
    await storage.delete("videos/gen_a.mp4")  # deleting twice is fine


async def test_overwrite_changes_the_etag(storage: BlobStorage, tmp_path: Path) -> None:
    first, _ = _file(tmp_path, 1000)
    second, data = _file(tmp_path, 2000)
    a = await storage.put_file("inputs/gen_b.png", first)
    b = await storage.put_file("inputs/gen_b.png", second)
    assert a.etag != b.etag
    assert await read_all(storage, "inputs/gen_b.png") == data


async def test_check_passes_on_a_working_store(storage: BlobStorage) -> None:
    await storage.check()


async def test_presigned_urls_where_the_store_has_them(
    storage: BlobStorage, tmp_path: Path
) -> None:
    source, data = _file(tmp_path, 5000)
    await storage.put_file("videos/gen_c.mp4", source)
    url = await storage.presigned_url("videos/gen_c.mp4", timedelta(minutes=5))
    if isinstance(storage, LocalStorage):
        assert url is None  # local disk is served by the content host itself
        assert storage.local_path("videos/gen_c.mp4") is not None
        return
    assert url is not None
    async with httpx.AsyncClient() as client:
        response = await client.get(url)  # no credentials: the signature is the capability
    assert response.status_code == 200 and response.content == data
    assert storage.local_path("videos/gen_c.mp4") is None


async def test_s3_down_is_storage_unavailable(tmp_path: Path) -> None:
    with s3_server() as server:
        storage = _s3(server)
        source, _ = _file(tmp_path, 1000)
        await storage.put_file("videos/gen_d.mp4", source)
        server.stop()
        with pytest.raises(StorageUnavailable):
            await storage.put_file("videos/gen_e.mp4", source)
        with pytest.raises(StorageUnavailable):
            await storage.stat("videos/gen_d.mp4")
        with pytest.raises(StorageUnavailable):
            await storage.check()


@pytest.mark.skipif(not can_mount(), reason="needs root to mount a small tmpfs (a disk that fills)")
async def test_local_disk_full_is_storage_unavailable_and_leaves_nothing(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", size_kib=2048) as disk:
        storage = LocalStorage(disk / "blobs")
        await storage.check()
        source, _ = _file(tmp_path, 64_000)
        filler = fill(disk)
        with pytest.raises(StorageUnavailable):
            await storage.put_file("videos/gen_f.mp4", source)
        with pytest.raises(StorageUnavailable):
            await storage.check()
        leftovers = [p for p in disk.rglob("*") if p.is_file() and p != filler]
        assert leftovers == []  # no partial video stays on a full disk
        filler.unlink()
        await storage.check()
        info = await storage.put_file("videos/gen_f.mp4", source)
        assert info.size == 64_000


async def test_local_small_blobs_are_kept_in_memory_until_deleted_or_replaced(
    tmp_path: Path,
) -> None:
    storage = LocalStorage(tmp_path / "blobs", cache_bytes=1 << 20)
    source, data = _file(tmp_path, 3000)
    await storage.put_file("videos/a.mp4", source)
    assert storage.cached_small("videos/a.mp4") is None  # nothing read yet
    read = await storage.small_blob("videos/a.mp4", 1 << 20)
    assert read is not None and read.data == data
    assert storage.cached_small("videos/a.mp4") == read

    other, new_data = _file(tmp_path, 2000)
    await storage.put_file("videos/a.mp4", other)  # a replacement is never served stale
    assert storage.cached_small("videos/a.mp4") is None
    again = await storage.small_blob("videos/a.mp4", 1 << 20)
    assert again is not None and again.data == new_data and again.info != read.info

    await storage.delete("videos/a.mp4")
    assert storage.cached_small("videos/a.mp4") is None
    assert await storage.small_blob("videos/a.mp4", 1 << 20) is None
    # Larger than asked: not read, not kept.
    big, _ = _file(tmp_path, 5000)
    await storage.put_file("videos/b.mp4", big)
    assert await storage.small_blob("videos/b.mp4", 4096) is None
    assert storage.cached_small("videos/b.mp4") is None


def test_the_small_blob_cache_is_bounded_and_looks_again_after_a_while() -> None:
    now = [0.0]
    cache = SmallBlobCache(8000, recheck_seconds=1.0, monotonic=lambda: now[0])

    def blob(key: str, size: int) -> SmallBlob:
        return SmallBlob(BlobInfo(key=key, size=size, etag=key), b"x" * size, 0.0)

    for n in range(8):
        cache.put(blob(f"k{n}", 1000))
    assert cache.size_bytes == 8000
    assert cache.get("k0") is not None  # used: the least recently used is now k1
    cache.put(blob("k8", 1000))
    assert cache.size_bytes == 8000
    assert cache.get("k1") is None and cache.get("k0") is not None
    cache.put(blob("huge", 1001))  # over an eighth of the cache: never kept
    assert cache.get("huge") is None and cache.size_bytes == 8000
    # Another process may delete the file: after recheck_seconds the caller looks again.
    now[0] = 1.5
    assert cache.get("k0") is None
