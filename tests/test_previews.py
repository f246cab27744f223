"""Each stored video's poster and sprite sheet, on local disk and on S3 (moto over HTTP):
OpenAI's `download_content(variant="thumbnail" | "spritesheet")` through the official SDK,
the signed `thumbnail_url` fetched without a key, both images decoded (Pillow) to check
their format and size, made again on request when missing (a video stored before previews
existed, or a process killed between storing the video and its previews), and gone with
the video on delete."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import httpx
import numpy as np
import openai
import pytest
from PIL import Image

from tests.support.harness import test_settings
from tests.support.scaleout import S3Server, s3_server
from tests.support.servers import serve_app
from vidrouter.composition import Composition, create_app
from vidrouter.domain.media import preview_key
from vidrouter.storage.local import LocalStorage
from vidrouter.storage.preview_images import COLUMNS, ROWS, TILE_SIDE, render_previews
from vidrouter.storage.previews import Previews
from vidrouter.store.keys import NewKey

pytestmark = pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")


@pytest.fixture(scope="module")
def moto() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@dataclass
class Served:
    service: Composition
    http: httpx.AsyncClient
    sdk: openai.AsyncOpenAI
    key: NewKey
    bucket: str | None
    moto: S3Server | None

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key.plaintext}"}

    def stored(self) -> list[str]:
        """The blob keys in the store (S3: the bucket's; local: the files under the root)."""
        if self.bucket is not None:
            assert self.moto is not None
            return sorted(self.moto.object_keys(self.bucket))
        root = self.service.storage.local_path("videos")
        assert root is not None
        return sorted(f"videos/{p.name}" for p in root.glob("*")) if root.exists() else []

    async def completed(self, **body: object) -> dict[str, object]:
        created = await self.http.post(
            "/v1/generations",
            json={"model": "local-preview", "prompt": "p", "duration": 0.5, **body},
            headers=self.auth(),
        )
        assert created.status_code == 202, created.text
        for _ in range(600):
            got = (
                await self.http.get(f"/v1/generations/{created.json()['id']}", headers=self.auth())
            ).json()
            if got["status"] in ("completed", "failed", "canceled"):
                assert got["status"] == "completed", got
                return dict(got)
            await asyncio.sleep(0.1)
        raise AssertionError("the generation did not finish")


@contextlib.asynccontextmanager
async def _served(
    tmp_path: Path, moto: S3Server | None, store: str, *, workers: bool = True
) -> AsyncIterator[Served]:
    overrides: dict[str, Any] = {}
    bucket = None
    if store == "s3":
        assert moto is not None
        bucket = moto.new_bucket()
        overrides = {"storage_url": f"s3://{bucket}", "environ": moto.env()}
    settings = test_settings(tmp_path / "data", **overrides)
    service = Composition(settings)
    await service.open()
    if workers:
        service.start_workers()
    try:
        app = create_app(settings, composition=service)
        async with serve_app(app) as url, httpx.AsyncClient(base_url=url) as http:
            key = await service.keys.create("previews")
            sdk = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=key.plaintext, max_retries=0)
            try:
                yield Served(service, http, sdk, key, bucket, moto)
            finally:
                await sdk.close()
    finally:
        await service.close(grace=5)


@pytest.fixture(params=["local", "s3"])
async def served(
    request: pytest.FixtureRequest, tmp_path: Path, moto: S3Server
) -> AsyncIterator[Served]:
    async with _served(tmp_path, moto, request.param) as s:
        yield s


def _path(url: str) -> str:
    """The signed URL on this test's server (the public URL is the default one)."""
    return httpx.URL(url).raw_path.decode()


def _image(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()  # decodes the whole image: a truncated one fails here
    return image


def _tile(width: int, height: int) -> tuple[int, int]:
    scale = min(1.0, TILE_SIDE / max(width, height))
    return round(width * scale) // 2 * 2, round(height * scale) // 2 * 2


async def test_poster_and_sprite_sheet_through_the_sdk_and_the_signed_url(served: Served) -> None:
    done = await served.completed(aspect_ratio="16:9")
    gid = str(done["id"])
    # None made with the video: they cost more CPU than the rest of its lifecycle.
    assert served.stored() == [f"videos/{gid}.mp4"]
    video = await served.sdk.videos.retrieve(gid)
    width, height = (int(n) for n in video.size.split("x"))

    # The signed thumbnail_url: no key, a WebP of the video's size.
    url = str(done["thumbnail_url"])
    assert "/content/" in url and "signature=" in url
    poster = await served.http.get(_path(url))
    assert poster.status_code == 200, poster.text
    assert poster.headers["content-type"] == "image/webp"
    image = _image(poster.content)
    assert (image.format, image.size) == ("WEBP", (width, height))

    # OpenAI's variants, through its SDK.
    assert served.stored() == [
        f"videos/{gid}.mp4",
        f"videos/{gid}.spritesheet.jpg",
        f"videos/{gid}.thumbnail.webp",
    ]
    thumbnail = await served.sdk.videos.download_content(gid, variant="thumbnail")
    assert thumbnail.response.headers["content-type"] == "image/webp"
    assert thumbnail.content == poster.content
    sheet = await served.sdk.videos.download_content(gid, variant="spritesheet")
    assert sheet.response.headers["content-type"] == "image/jpeg"
    tile_w, tile_h = _tile(width, height)
    image = _image(sheet.content)
    assert (image.format, image.size) == ("JPEG", (tile_w * COLUMNS, tile_h * ROWS))
    mp4 = await served.sdk.videos.download_content(gid)
    assert mp4.response.headers["content-type"] == "video/mp4"

    # Delete: the video and both previews go; their URLs answer 404.
    await served.sdk.videos.delete(gid)
    assert served.stored() == []
    gone = await served.http.get(_path(url))
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "content_not_found"


async def test_missing_previews_are_made_on_first_request(served: Served) -> None:
    """The video alone, as stored; its previews come on request, and one lost (a process
    killed between storing the two) is made again."""
    done = await served.completed(aspect_ratio="1:1")
    gid = str(done["id"])
    storage = served.service.storage
    assert served.stored() == [f"videos/{gid}.mp4"]

    poster = await served.http.get(_path(str(done["thumbnail_url"])))
    assert poster.status_code == 200, poster.text
    assert _image(poster.content).format == "WEBP"
    assert len(served.stored()) == 3
    await storage.delete(preview_key(f"videos/{gid}.mp4", "spritesheet"))
    sheet = await served.sdk.videos.download_content(gid, variant="spritesheet")
    assert _image(sheet.content).format == "JPEG"
    assert len(served.stored()) == 3


async def test_unfinished_and_failed_generations_have_no_previews(tmp_path: Path) -> None:
    async with _served(tmp_path, None, "local", workers=False) as s:
        created = await s.http.post(
            "/v1/generations", json={"model": "local-preview", "prompt": "p"}, headers=s.auth()
        )
        gid = created.json()["id"]
        assert created.json()["thumbnail_url"] is None
        canceled = await s.http.post(f"/v1/generations/{gid}/cancel", headers=s.auth())
        assert canceled.status_code == 200, canceled.text
        assert canceled.json()["thumbnail_url"] is None
        for variant in ("thumbnail", "spritesheet"):
            with pytest.raises(openai.ConflictError) as conflict:
                await s.sdk.videos.download_content(gid, variant=variant)
            assert conflict.value.code == "video_failed"
        assert not any(k.startswith(f"videos/{gid}.") for k in s.stored())


async def test_a_file_that_is_not_a_video_gets_no_previews_and_no_error(tmp_path: Path) -> None:
    """A stored file that does not decode: no preview, nothing stored, no exception."""
    storage = LocalStorage(tmp_path / "blobs")
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(4096))
    await storage.put_file("videos/gen_x.mp4", broken)
    previews = Previews(storage, tmp_path / "scratch")
    for variant in ("thumbnail", "spritesheet"):
        assert await previews.ensure("videos/gen_x.mp4", variant) is None
    assert await previews.ensure("videos/gen_y.mp4", "thumbnail") is None  # no video at all
    assert sorted(p.name for p in (tmp_path / "blobs" / "videos").iterdir()) == ["gen_x.mp4"]
    assert list((tmp_path / "scratch").glob("*")) == []


def _gray_ramp(path: Path, seconds: int, fps: int, gop: int) -> None:
    """A video whose frame n is a flat gray of level 2n: a tile's level says which frame."""
    container = av.open(str(path), "w", format="mp4")
    stream = container.add_stream("libx264", rate=fps)
    stream.width = stream.height = 64
    stream.pix_fmt = "yuv420p"
    stream.codec_context.gop_size = gop
    for n in range(seconds * fps):
        frame = av.VideoFrame.from_ndarray(
            np.full((64, 64, 3), 2 * n, dtype=np.uint8), format="rgb24"
        )
        frame.pts, frame.time_base = n, Fraction(1, fps)
        for packet in stream.encode(frame):
            container.mux(packet)
    for packet in stream.encode(None):
        container.mux(packet)
    container.close()


@pytest.mark.parametrize("gop", [10, 50])  # a keyframe every second, or every five
def test_each_tile_is_the_frame_at_its_time(tmp_path: Path, gop: int) -> None:
    video = tmp_path / "ramp.mp4"
    _gray_ramp(video, seconds=10, fps=10, gop=gop)
    images = render_previews(video)
    sheet = _image(images.spritesheet)
    assert sheet.size == (64 * COLUMNS, 64 * ROWS)  # small videos are never scaled up
    for tile in range(COLUMNS * ROWS):
        x, y = (tile % COLUMNS) * 64 + 32, (tile // COLUMNS) * 64 + 32
        level = sheet.convert("L").getpixel((x, y))
        expected = 2 * (10 * tile + 5)  # the frame at (tile + 0.5) seconds
        assert abs(int(level) - expected) <= 6, (tile, level, expected)  # type: ignore[arg-type]
    poster = _image(images.thumbnail).convert("L")
    assert abs(int(poster.getpixel((32, 32))) - 2 * 25) <= 6  # type: ignore[arg-type]
