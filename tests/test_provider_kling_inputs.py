"""Kling's types beyond the first frame through our API: an extension of its own video goes
to `video-extend` by the video's id, is polled there, stored whole and billed as Kling bills
it; an omni edit is billed on its source's seconds; what Kling cannot receive or make is
refused at create, before Kling is called."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.fakes.base import sample_mp4
from tests.fakes.kling import KlingFake
from tests.support.harness import CreateBody, assert_error
from tests.support.images import data_uri, png
from tests.support.kling import service
from tests.support.media_host import media_host


async def test_an_extension_of_its_own_video_and_of_that_extension(tmp_path: Path) -> None:
    fake = KlingFake()
    async with service(tmp_path, fake) as (app, timed):
        key = await app.new_key()
        source = await app.generate(key, model="kling-v1.6", prompt="a fox", resolution="720p")
        assert source["status"] == "completed", source
        ask: CreateBody = {"model": "kling-v1.6", "prompt": "it runs on", "type": "video-extend"}
        first = await app.generate(key, **ask, video={"generation_id": source["id"]})
        assert first["status"] == "completed" and first["duration"] == 5, first
        second = await app.generate(key, **ask, video={"generation_id": first["id"]})
        assert second["status"] == "completed", second
        lengths = []
        for done in (source, first, second):
            stored = await app.service.generation_store.get(done["id"])
            assert stored is not None and stored.video_duration is not None
            lengths.append(stored.video_duration)
        assert lengths[0] < lengths[1] < lengths[2]  # each the whole video, not the new part
        assert first["cost"]["amount"] == round(5 * 0.098, 6)  # a 5 s pro clip of kling-v1-6
    made, extended, again = fake.submitted
    assert made["model_name"] == "kling-v1-6"
    tasks = list(fake.tasks)
    assert extended == {"video_id": f"v{tasks[0]}", "prompt": "it runs on"}
    assert again["video_id"] == f"v{tasks[1]}"  # the extension's own video id
    polled = [p for _, m, p in timed.log if m == "GET" and "/video-extend/" in p]
    assert polled and all(p.rsplit("/", 1)[1] in tasks[1:] for p in polled)


async def test_an_omni_edit_is_billed_on_its_source(tmp_path: Path) -> None:
    fake = KlingFake()
    async with service(tmp_path, fake) as (app, _), media_host() as media:
        done = await app.generate(
            model="kling-o1",
            prompt="make it snow",
            type="video-to-video",
            video={"url": media.video},
        )
    assert done["status"] == "completed", done
    assert done["cost"]["amount"] == round(1 * 0.168, 6)  # 1 s of 1080p with video input
    [sent] = fake.submitted
    assert sent["video_list"][0]["refer_type"] == "base"


async def test_what_kling_cannot_receive_or_make_is_refused_at_create(tmp_path: Path) -> None:
    fake = KlingFake()
    mp4 = "data:video/mp4;base64," + base64.b64encode(sample_mp4()).decode()
    async with service(tmp_path, fake) as (app, _):
        key = await app.new_key()
        omni = {"model": "kling-v3-omni", "prompt": "p"}
        # Kling fetches videos by URL, and this server's URL is a loopback one.
        unreachable = await app.create(key, **omni, references=[{"type": "video", "url": mp4}])
        assert assert_error(unreachable, 400, "input_unreachable")["param"] == "references"
        edit = await app.create(key, **omni, type="video-to-video", video={"url": mp4})
        assert assert_error(edit, 400, "input_unreachable")["param"] == "video"
        # No audio references, at most one video and 7 images.
        audio = [{"type": "audio", "url": "https://example.com/a.wav"}]
        assert_error(await app.create(key, **omni, references=audio), 400)
        images = [{"type": "image", "url": data_uri(png(400, 400))}] * 8
        assert_error(await app.create(key, **omni, references=images), 400)
        # kling-v1.6 extends only its own videos, by 5 s.
        extend = {"model": "kling-v1.6", "prompt": "p", "type": "video-extend"}
        given = await app.create(key, **extend, video={"url": "https://example.com/a.mp4"})
        assert_error(given, 400)
        assert_error(await app.create(key, **extend, video={"url": mp4}, duration=10), 400)
        # The other Kling models make neither references nor edits.
        turbo = {"model": "kling-v2.5-turbo", "prompt": "p"}
        assert_error(await app.create(key, **turbo, references=images[:1]), 400, "type_unsupported")
    assert fake.submitted == [] and fake.plan.requests == []
