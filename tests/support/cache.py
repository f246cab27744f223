"""The cache of identical requests under test: an operator's models on the local renderer
(480p, half a second: one render makes a source; misses are canceled at once), the checks
of a hit and a miss at the HTTP boundary, and a host whose files a test can change."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.support.harness import Harness, running, test_settings
from tests.support.servers import serve_app
from vidrouter.store.keys import NewKey

MODEL = """
[[models]]
id = "{id}"
name = "{id}"
description = "The local renderer behind a model taking every control and input."
provider = "Example Co"
type = "text-to-video"
capabilities = ["text-to-video", "image-to-video", "reference-to-video", "video-to-video",
  "video-extend"]
max_references = {{ image = 3, video = 1, audio = 1 }}
max_source_seconds = 60
max_duration = 8
min_duration = 0.5
default_duration = 0.5
aspect_ratios = ["16:9", "9:16"]
resolutions = ["480p", "720p"]
audio = false
supports = ["negative_prompt", "seed", "end_image_url", "enhance_prompt"]

  [[models.routes]]
  provider = "local"
  model = "title-card"
  receives_media = ["file"]
  price_per_second = 0.1
"""
# Two models on the same renderer: the same request to either is not the same request.
CATALOG = MODEL.format(id="cache-clip") + MODEL.format(id="cache-other")

BODY: dict[str, Any] = {
    "model": "cache-clip",
    "prompt": "a lighthouse at dusk",
    "duration": 1,
    "aspect_ratio": "16:9",
    "resolution": "480p",
    "seed": 7,
}


@contextlib.asynccontextmanager
async def serving(
    tmp_path: Path, database_url: str | None = None, **overrides: Any
) -> AsyncIterator[Harness]:
    catalog = _catalog(tmp_path)
    settings = test_settings(tmp_path / "data", database_url, catalog=catalog, **overrides)
    async with running(settings) as app:
        yield app


def _catalog(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    catalog = root / "catalog.toml"
    catalog.write_text(CATALOG)
    return catalog


async def keyed_source(app: Harness) -> tuple[NewKey, dict[str, Any]]:
    """A new key, and the finished generation of BODY it asked for."""
    key = await app.new_key()
    return key, await app.generate(key, **BODY)


async def made(app: Harness, key: NewKey, **body: Any) -> dict[str, Any]:
    r = await app.create(key, **body)
    assert r.status_code == 202, r.text
    return dict(r.json())


async def assert_hit(
    app: Harness, key: NewKey, source: dict[str, Any], **body: Any
) -> dict[str, Any]:
    hit = await made(app, key, **body, cache=True)
    assert hit["status"] == "completed", hit
    assert hit["cached_from"] == source["id"] and hit["id"] != source["id"]
    assert hit["cost"] == {"amount": 0.0, "currency": "USD"}
    assert hit["video_url"] and hit["completed_at"]
    return hit


async def assert_miss(app: Harness, key: NewKey, **body: Any) -> None:
    miss = await made(app, key, **body, cache=True)
    assert miss["status"] in ("queued", "in_progress"), miss
    assert miss["cached_from"] is None
    await app.client.post(f"/v1/generations/{miss['id']}/cancel", headers=app.auth(key))


async def assert_forgotten_after_ttl(tmp_path: Path, **body: Any) -> None:
    """The request is answered from the cache until the TTL passed, then made again."""
    async with serving(tmp_path, cache_ttl_seconds=1.5) as app:
        key = await app.new_key()
        source = await app.generate(key, **body)
        await assert_hit(app, key, source, **body)
        await asyncio.sleep(1.6)
        await assert_miss(app, key, **body)


async def video(app: Harness, url: str) -> httpx.Response:
    """A video of ours by its `video_url` (the content host of the app under test)."""
    return await app.client.get(url.replace("http://127.0.0.1:8000", ""))


@contextlib.asynccontextmanager
async def media_host(files: dict[str, bytes]) -> AsyncIterator[str]:
    """Serves `/<name>` from `files` as it is at each request (a test changes a file's
    content under the same URL by assigning to it); an unknown name is a 404."""

    async def serve(request: Request) -> Response:
        data = files.get(request.path_params["name"])
        if data is None:
            return Response(b"gone", status_code=404)
        return Response(data, media_type="application/octet-stream")

    async with serve_app(Starlette(routes=[Route("/{name}", serve)])) as url:
        yield url


def mp4_head(tag: bytes) -> bytes:
    """A file that starts like an MP4 (what a video reference is checked for), `tag` making
    its content differ."""
    return b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isommp41" + tag


def wav(tag: bytes) -> bytes:
    """A file that starts like a WAV (what an audio reference is checked for)."""
    return b"RIFF\x24\x00\x00\x00WAVEfmt " + tag
