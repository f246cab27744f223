"""Outages of our own dependencies: the database unreachable (then back), the data disk full,
the video storage full or down. The service answers 503 + Retry-After (never a 500), says
in /readyz which dependency is down, keeps accepted work waiting (never blaming a provider)
and resumes by itself."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.databases import (
    PG_AVAILABLE,
    PG_HOST,
    PG_PORT,
    PG_SKIP_REASON,
    PG_USER,
    fresh_pg_database,
)
from tests.support.harness import Harness, running, test_settings
from tests.support.scaleout import can_mount, fill, s3_server, small_disk
from tests.support.servers import free_port

needs_root = pytest.mark.skipif(not can_mount(), reason="needs root to mount a small tmpfs")


class TcpProxy:
    """The database as clients reach it: stopping the proxy is the database going away
    (refused connections, open ones cut), starting it again is the database back."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}


def assert_unavailable(response: httpx.Response, code: str = "service_unavailable") -> None:
    assert response.status_code == 503, (response.status_code, response.text[:300])
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("service_unavailable_error", code), error
    assert int(response.headers["retry-after"]) >= 1


async def _ready(app: Harness) -> tuple[int, dict[str, Any]]:
    r = await app.client.get("/readyz")
    return r.status_code, r.json()


async def _is_ready(app: Harness) -> bool:
    return (await _ready(app))[0] == 200


async def _until(predicate: Any, timeout: float = 60.0, every: float = 0.2) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        assert loop.time() < deadline, "condition not reached"
        await asyncio.sleep(every)


@pytest.fixture
async def pg_behind_proxy() -> AsyncIterator[tuple[str, TcpProxy]]:
    if not PG_AVAILABLE:
        pytest.skip(PG_SKIP_REASON)
    async with fresh_pg_database() as name:
        proxy = TcpProxy(PG_HOST, PG_PORT)
        await proxy.start()
        try:
            yield f"postgresql+asyncpg://{PG_USER}@127.0.0.1:{proxy.port}/{name}", proxy
        finally:
            await proxy.stop()


@pytest.mark.postgres
async def test_database_unreachable_is_503_everywhere_then_work_resumes(
    tmp_path: Path, pg_behind_proxy: tuple[str, TcpProxy]
) -> None:
    url, proxy = pg_behind_proxy
    settings = test_settings(tmp_path / "data", url, key_cache_seconds=0, poll_cache_seconds=0)
    async with running(settings) as app:
        key = await app.new_key()
        auth = app.auth(key)
        first = await app.create(key, model="local-preview", prompt="before", duration=1)
        assert first.status_code == 202
        gen_id = first.json()["id"]
        await app.wait_for(key, gen_id)

        await proxy.stop()
        body = {"model": "local-preview", "prompt": "during", "duration": 1}
        assert_unavailable(await app.client.post("/v1/generations", json=body, headers=auth))
        for path in (
            f"/v1/generations/{gen_id}",
            "/v1/generations",
            "/v1/models",
            "/v1/models/local-preview",
            "/v1/usage",
            "/v1/videos",
            f"/v1/videos/{gen_id}",
        ):
            assert_unavailable(await app.client.get(path, headers=auth))
        assert_unavailable(await app.client.post(f"/v1/generations/{gen_id}/cancel", headers=auth))
        status, ready = await _ready(app)
        assert status == 503 and ready["database"] is False and "database" in ready["problems"]
        assert ready["storage"] is True

        await proxy.start()  # the database is back: nothing to restart on our side

        async def accepted() -> str | None:
            r = await app.client.post("/v1/generations", json=body, headers=auth)
            return str(r.json()["id"]) if r.status_code == 202 else None

        later = await _until(accepted)
        assert (await app.wait_for(key, later))["status"] == "completed"
        assert (await _ready(app))[0] == 200


@needs_root
async def test_data_disk_full_on_sqlite_is_never_a_500(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", size_kib=16384) as disk:
        async with running(test_settings(disk / "data", key_cache_seconds=0)) as app:
            key = await app.new_key()
            auth = app.auth(key)
            body = {"model": "local-preview", "prompt": "full", "duration": 1}
            filler = fill(disk)
            for _ in range(3):
                r = await app.client.post("/v1/generations", json=body, headers=auth)
                assert_unavailable(r)
            models = await app.client.get("/v1/models", headers=auth)
            assert models.status_code in (200, 503), models.text
            if models.status_code == 503:
                assert_unavailable(models)
            status, ready = await _ready(app)
            assert status == 503 and ready["storage"] is False and ready["database"] is False
            filler.unlink()
            assert await _until(lambda: _is_ready(app))
            r = await app.create(key, **body)
            assert r.status_code == 202, r.text
            assert (await app.wait_for(key, r.json()["id"]))["status"] == "completed"


@needs_root
async def test_storage_full_waits_then_stores_or_fails_as_storage_unavailable(
    tmp_path: Path, database_url: str
) -> None:
    with small_disk(tmp_path / "videos", size_kib=4096) as disk:
        settings = test_settings(
            tmp_path / "data",
            database_url,
            storage_url=f"file://{disk}",
            generation_deadline_seconds=20,
        )
        async with running(settings) as app:
            key = await app.new_key()
            filler = fill(disk)

            async def storage_failed(gen_id: str) -> bool:
                g = (await app.get(key, gen_id)).json()
                return any(a["outcome"] == "storage_failed" for a in g["attempts"])

            # One waits out its whole deadline: it fails as our storage's fault.
            doomed = await app.create(key, model="local-preview", prompt="waits", duration=1)
            await _until(lambda: storage_failed(doomed.json()["id"]))
            status, ready = await _ready(app)
            assert status == 503 and ready["storage"] is False and ready["database"] is True
            assert "storage" in ready["problems"]
            failed = await app.wait_for(key, doomed.json()["id"], timeout=60)
            assert failed["status"] == "failed", failed
            assert failed["error"]["code"] == "storage_unavailable", failed
            # It failed when its deadline ran out, not at the first failed write (a loaded
            # machine may get there before this test looks, so the times say it).
            waited = _instant(failed["completed_at"]) - _instant(failed["created_at"])
            assert waited >= 19.0, failed

            # Another waits, and is stored by itself once there is room again.
            waiting = await app.create(key, model="local-preview", prompt="waits", duration=1)
            await _until(lambda: storage_failed(waiting.json()["id"]))
            filler.unlink()
            done = await app.wait_for(key, waiting.json()["id"], timeout=60)
            assert done["status"] == "completed", done
            assert await _until(lambda: _is_ready(app))


async def test_object_storage_down_waits_and_serves_503_then_resumes(tmp_path: Path) -> None:
    with s3_server() as s3:
        bucket = s3.new_bucket()
        settings = test_settings(tmp_path / "data", storage_url=f"s3://{bucket}", environ=s3.env())
        async with running(settings) as app:
            key = await app.new_key()
            before = await app.create(key, model="local-preview", prompt="stored", duration=1)
            video_url = (await app.wait_for(key, before.json()["id"]))["video_url"]
            assert (await app.client.get(video_url)).status_code == 200

            s3.stop()
            assert_unavailable(await app.client.get(video_url), code="storage_unavailable")
            status, ready = await _ready(app)
            assert status == 503 and ready["storage"] is False and ready["database"] is True
            during = await app.create(key, model="local-preview", prompt="waits", duration=1)
            assert during.status_code == 202

            async def storage_failed() -> bool:
                g = (await app.get(key, during.json()["id"])).json()
                return any(a["outcome"] == "storage_failed" for a in g["attempts"])

            await _until(storage_failed)
            assert (await app.get(key, during.json()["id"])).json()["status"] == "in_progress"

            s3.start()  # back (moto keeps nothing: the operator's bucket is made again)
            s3.create_bucket(bucket)
            done = await app.wait_for(key, during.json()["id"], timeout=60)
            assert done["status"] == "completed", done
            assert (await app.client.get(done["video_url"])).status_code == 200
            assert (await _ready(app))[0] == 200


def _instant(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
