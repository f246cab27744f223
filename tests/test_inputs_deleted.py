"""The inputs kept for a generation go with it: deleting it (DELETE /v1/videos/{id}) removes
its references, a source fetched from a URL and its first and last frames from the blob
store, on local disk and on S3, but never the video of a generation it used as its source;
and a create refused after its inputs were kept leaves none behind."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy import select

from tests.support.harness import Harness, assert_error, running, test_settings
from tests.support.images import data_uri
from tests.support.scaleout import S3Server, s3_server
from tests.support.servers import serve_clip
from vidrouter.providers.local.render import RenderSpec, render_video
from vidrouter.store.keys import NewKey
from vidrouter.store.tables import generations as table


def picture(rgb: tuple[int, int, int]) -> str:
    out = io.BytesIO()
    Image.new("RGB", (32, 32), rgb).save(out, "PNG")
    return data_uri(out.getvalue())


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    render_video(RenderSpec("a clip", 0.5, 320, 180), path)
    return path.read_bytes()


@pytest.fixture
async def clip_url(clip: bytes) -> AsyncIterator[str]:
    async with serve_clip(clip) as url:
        yield url


@pytest.fixture(scope="module")
def moto() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


async def delete(app: Harness, key: NewKey, generation_id: str) -> None:
    gone = await app.client.delete(f"/v1/videos/{generation_id}", headers=app.auth(key))
    assert gone.status_code == 200, gone.text


def made_for(names: list[str], generation_id: str) -> list[str]:
    return sorted(n for n in names if n.startswith(generation_id))


async def test_a_deleted_generation_takes_its_inputs_along(
    tmp_path: Path, database_url: str, clip_url: str
) -> None:
    settings = test_settings(tmp_path / "data", database_url)
    async with running(settings) as app:
        key = await app.new_key()
        inputs = settings.data_dir / "blobs" / "inputs"
        blue, yellow = picture((20, 40, 230)), picture((230, 200, 20))
        frames = await app.generate(
            key, model="local-preview", prompt="p", duration=0.5, image_url=blue,
            end_image_url=yellow,
        )  # fmt: skip
        refs = await app.generate(
            key, model="local-preview", prompt="p", duration=0.5,
            references=[{"type": "image", "url": blue}, {"type": "image", "url": yellow}],
        )  # fmt: skip
        by_url = await app.generate(
            key, model="local-preview", prompt="p", duration=0.5, type="video-extend",
            video={"url": clip_url},
        )  # fmt: skip
        by_id = await app.generate(
            key, model="local-preview", prompt="p", duration=0.5, type="video-to-video",
            video={"generation_id": frames["id"]},
        )  # fmt: skip
        for done in (frames, refs, by_url, by_id):
            assert done["status"] == "completed", done
        names = [p.name for p in inputs.iterdir()]
        assert made_for(names, frames["id"]) == [f"{frames['id']}-end.png", f"{frames['id']}.png"]
        assert made_for(names, refs["id"]) == [f"{refs['id']}-ref0.png", f"{refs['id']}-ref1.png"]
        assert made_for(names, by_url["id"]) == [f"{by_url['id']}-source.mp4"]
        assert made_for(names, by_id["id"]) == []  # its source is the other's video

        await delete(app, key, by_id["id"])
        source = await app.client.get(frames["video_url"])
        assert source.status_code == 200  # the source generation's video stays
        for done in (frames, refs, by_url):
            await delete(app, key, done["id"])
        assert list(inputs.iterdir()) == []
        # The record of spend stays, without what the client wrote (its inputs' URLs too).
        async with app.service.db.read() as conn:
            rows = (await conn.execute(select(table.c.prompt, table.c.controls))).all()
        assert len(rows) == 4
        for prompt, controls in rows:
            assert prompt == "" and controls.get("resolution") == "720p", controls
            assert not {"references", "video", "end_image_url"} & set(controls), controls
        gone = await app.client.get(frames["video_url"])
        assert gone.status_code == 404, gone.status_code


async def test_inputs_on_s3_go_with_their_generation(
    tmp_path: Path, moto: S3Server, clip_url: str
) -> None:
    """Kept at accept (no workers: the generations stay queued, then are canceled and
    deleted): references, a source URL's copy, and an image kept for the cache's key."""
    bucket = moto.new_bucket()
    settings = test_settings(tmp_path / "data", storage_url=f"s3://{bucket}", environ=moto.env())
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        bodies: list[dict[str, Any]] = [
            {"references": [{"type": "image", "url": picture((1, 2, 3))}]},
            {"type": "video-extend", "video": {"url": clip_url}},
            {"image_url": picture((4, 5, 6)), "cache": True},
        ]
        made = []
        for body in bodies:
            created = await app.create(key, model="local-preview", prompt="p", **body)
            assert created.status_code == 202, created.text
            made.append(created.json()["id"])
        kept = sorted(k for k in moto.object_keys(bucket) if k.startswith("inputs/"))
        assert kept == sorted(
            [f"inputs/{made[0]}-ref0.png", f"inputs/{made[1]}-source.mp4", f"inputs/{made[2]}.png"]
        )
        for generation_id in made:
            await delete(app, key, generation_id)
        assert [k for k in moto.object_keys(bucket) if k.startswith("inputs/")] == []


async def test_a_create_refused_after_keeping_its_inputs_leaves_none(
    tmp_path: Path, database_url: str, clip_url: str
) -> None:
    settings = test_settings(tmp_path / "data", database_url)
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        [route] = app.service.catalog.get("local-preview").routes  # type: ignore[union-attr]
        await app.service.circuits.failure(route.key, fatal=True)  # every route refused: 503
        for body in (
            {"references": [{"type": "image", "url": picture((1, 2, 3))}]},
            {"type": "video-extend", "video": {"url": clip_url}},
            {"image_url": picture((4, 5, 6)), "cache": True},  # kept for the cache's key
        ):
            refused = await app.create(key, model="local-preview", prompt="p", **body)
            assert_error(refused, 503)
        inputs = settings.data_dir / "blobs" / "inputs"
        assert not inputs.exists() or list(inputs.iterdir()) == []
