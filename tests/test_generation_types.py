"""Each generation type end to end on `local-preview`, on both create APIs and both
databases: text-to-video, reference-to-video (the references drawn into the frames),
video-to-video (the source's frames re-rendered) and video-extend (the whole video
returned: the source followed by the added seconds, joined by the engine)."""

from __future__ import annotations

from pathlib import Path

from tests.support.harness import Harness, assert_error
from tests.support.images import data_uri, solid_png
from tests.support.local_types import every_type_on_local_preview
from tests.support.servers import serve_clip
from tests.support.video import clear_rgb, decode, frame_rgb, near

RED = (230, 20, 20)


async def test_every_type_end_to_end_on_local_preview(app_any_db: Harness, tmp_path: Path) -> None:
    await every_type_on_local_preview(app_any_db, tmp_path)


BLUE, YELLOW = (20, 40, 230), (230, 200, 20)


async def test_image_to_video_starts_on_the_image_and_ends_on_the_end_frame(
    app_any_db: Harness, tmp_path: Path
) -> None:
    app = app_any_db
    key = await app.new_key()
    done = await app.generate(
        key,
        model="local-preview",
        prompt="from a picture",
        duration=1,
        image_url=data_uri(solid_png(BLUE)),
        end_image_url=data_uri(solid_png(YELLOW)),
    )
    assert done["type"] == "image-to-video", done
    data = await app.video(done)
    assert near(clear_rgb(frame_rgb(data, tmp_path, 0)), BLUE)
    assert near(clear_rgb(frame_rgb(data, tmp_path, -1)), YELLOW)
    middle = clear_rgb(frame_rgb(data, tmp_path, 12))  # the prompt's look, neither image
    assert not near(middle, BLUE) and not near(middle, YELLOW), middle

    # The OpenAI-style API's `input_reference` is the first frame too.
    made = await app.videos(
        key,
        model="local-preview",
        prompt="from a picture",
        seconds="1",
        input_reference={"image_url": data_uri(solid_png(BLUE))},
    )
    assert made.status_code in (200, 201, 202), made.text
    other = await app.wait_for(key, made.json()["id"])
    assert other["type"] == "image-to-video", other
    assert near(clear_rgb(frame_rgb(await app.video(other), tmp_path, 0)), BLUE)


async def test_the_videos_api_takes_the_types_too(app: Harness, tmp_path: Path) -> None:
    key = await app.new_key()
    plain = await app.generate(key, model="local-preview", prompt="a fox", duration=0.5)
    source = await app.video(plain)

    async with serve_clip(source) as url:
        made = await app.videos(
            key,
            model="local-preview",
            prompt="more",
            seconds="1",
            type="video-extend",
            video={"url": url},
        )
        assert made.status_code in (200, 201, 202), made.text
    done = await app.wait_for(key, made.json()["id"])
    assert done["type"] == "video-extend" and done["video"] == {"url": url}
    whole = decode(await app.video(done), tmp_path)
    assert whole.frames == 12 + 24

    refused = await app.videos(key, model="local-preview", prompt="p", video={"url": url})
    assert assert_error(refused, 400, "type_required")["param"] == "type"


async def test_a_repeated_create_with_references_keeps_one_copy(app: Harness) -> None:
    """An Idempotency-Key replays the first generation; what the repeat fetched is removed."""
    key = await app.new_key()
    body = {
        "model": "local-preview",
        "prompt": "a ball",
        "duration": 0.5,
        "references": [{"type": "image", "url": data_uri(solid_png(RED))}],
    }
    headers = {**app.auth(key), "Idempotency-Key": "same-ball"}
    first = await app.client.post("/v1/generations", json=body, headers=headers)
    again = await app.client.post("/v1/generations", json=body, headers=headers)
    assert first.status_code == 202 and again.status_code in (200, 202), again.text
    assert again.json()["id"] == first.json()["id"]
    inputs = app.service.settings.data_dir / "blobs" / "inputs"
    assert sorted(p.name for p in inputs.iterdir()) == [f"{first.json()['id']}-ref0.png"]
