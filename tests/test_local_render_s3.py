"""`local-preview` with its inputs on S3 (moto over HTTP): the renderer reads files on this
machine, so the engine streams the kept inputs (first and last frames, references, the
source) into the work directory for it, and removes those copies once the generation ends.
Every type completes, through the HTTP API, as it does on local disk."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support.clips import solid_mp4
from tests.support.harness import Harness, running, test_settings
from tests.support.images import data_uri, solid_png
from tests.support.local_types import every_type_on_local_preview
from tests.support.scaleout import S3Server, s3_server
from tests.support.video import clear_rgb, decode, frame_rgb, near

BLUE = (20, 40, 230)


@pytest.fixture(scope="module")
def moto() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture
async def on_s3(tmp_path: Path, moto: S3Server) -> AsyncIterator[Harness]:
    bucket = moto.new_bucket()
    settings = test_settings(tmp_path / "data", storage_url=f"s3://{bucket}", environ=moto.env())
    async with running(settings) as app:
        assert app.service.storage.local_path("inputs/x.png") is None  # really object storage
        yield app


def copies(app: Harness) -> list[Path]:
    directory = app.service.data_dir / "work" / "inputs"
    return sorted(directory.iterdir()) if directory.is_dir() else []


async def test_every_input_type_on_s3(on_s3: Harness, tmp_path: Path) -> None:
    app = on_s3
    await every_type_on_local_preview(app, tmp_path)
    first = await app.generate(
        await app.new_key(),
        model="local-preview",
        prompt="from a picture",
        duration=0.5,
        image_url=data_uri(solid_png(BLUE)),
    )
    assert first["type"] == "image-to-video", first
    assert near(clear_rgb(frame_rgb(await app.video(first), tmp_path, 0)), BLUE)
    # Each generation's copies went with it.
    assert copies(app) == []


async def test_the_videos_api_extends_an_id_and_an_upload_on_s3(
    on_s3: Harness, tmp_path: Path
) -> None:
    app = on_s3
    key = await app.new_key()
    plain = await app.generate(key, model="local-preview", prompt="a fox", duration=0.5)
    by_id = await app.client.post(
        "/v1/videos/extensions",
        json={"video": {"id": plain["id"]}, "prompt": "on", "seconds": "0.5"},
        headers=app.auth(key),
    )
    uploaded = await app.client.post(
        "/v1/videos/extensions",
        data={"prompt": "on", "seconds": "0.5"},
        files={"video": ("clip.mp4", solid_mp4(seconds=0.5), "video/mp4")},
        headers=app.auth(key),
    )
    for made in (by_id, uploaded):
        assert made.status_code == 200, made.text
        done = await app.wait_for(key, made.json()["id"])
        assert decode(await app.video(done), tmp_path).frames == 12 + 12
    assert copies(app) == []
