"""Luma's typed requests: the lumaai SDK's `generations.video.modify` and an extension by a
generation id drive the fake, and through our API an extension of a Luma generation is joined
after its source, a modify is billed on its source, and what Luma cannot take is refused at
create."""

from __future__ import annotations

import base64
from pathlib import Path

import lumaai
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.luma import LumaFake
from tests.support.harness import assert_error, running
from tests.support.luma import KEY, settings_for
from tests.support.media_host import media_host
from tests.support.providers import fake_fixture

luma = fake_fixture(lambda: LumaFake(api_key=KEY), lambda made: made.app())


async def _completed(client: lumaai.AsyncLumaAI, generation_id: str) -> None:
    for _ in range(10):
        if (await client.generations.get(generation_id)).state == "completed":
            return
    raise AssertionError(f"{generation_id} never completed")


async def test_lumaai_modifies_a_video_and_extends_a_generation(
    luma: tuple[LumaFake, str],
) -> None:
    fake, url = luma
    client = lumaai.AsyncLumaAI(auth_token=KEY, base_url=f"{url}/dream-machine/v1", max_retries=0)
    try:
        async with media_host() as media:
            modified = await client.generations.video.modify(
                generation_type="modify_video",
                model="ray-2",
                media={"url": media.video},
                mode="adhere_2",
                prompt="claymation",
            )
            assert str(modified.generation_type) == "modify_video"  # beyond the SDK literal
            assert modified.id is not None  # the SDK's model leaves every field optional
            await _completed(client, modified.id)
            with pytest.raises(lumaai.BadRequestError):  # a URL Luma cannot fetch
                await client.generations.video.modify(
                    generation_type="modify_video",
                    model="ray-2",
                    media={"url": f"{media.video}.missing"},
                    mode="flex_1",
                )
        extended = await client.generations.video.create(
            model="ray-2",
            prompt="it goes on",
            keyframes={"frame0": {"type": "generation", "id": modified.id}},
        )
        assert extended.id is not None
        await _completed(client, extended.id)
        with pytest.raises(lumaai.BadRequestError):  # not one of this account's generations
            await client.generations.video.create(
                model="ray-2",
                prompt="p",
                keyframes={"frame0": {"type": "generation", "id": "0000"}},
            )
    finally:
        await client.close()
    assert [b.get("generation_type") for b in fake.submitted] == ["modify_video", None]


async def test_an_extension_is_joined_and_a_modify_billed_on_its_source(
    luma: tuple[LumaFake, str], tmp_path: Path
) -> None:
    fake, url = luma
    async with running(settings_for(tmp_path, url)) as app, media_host() as media:
        key = await app.new_key()
        source = await app.generate(key, model="ray-2", prompt="a fox", timeout=30)
        ask = {"model": "ray-2", "prompt": "on", "type": "video-extend"}
        done = await app.generate(key, **ask, video={"generation_id": source["id"]}, timeout=30)
        assert done["status"] == "completed", done
        made = await app.service.generation_store.get(source["id"])
        joined = await app.service.generation_store.get(done["id"])
        assert made is not None and joined is not None
        assert made.video_duration and joined.video_duration
        assert joined.video_duration > made.video_duration  # the source, then the new clip
        assert done["cost"]["amount"] == round(5 * 0.1416, 6)  # the 5 s clip at 720p
        assert fake.submitted[-1]["keyframes"]["frame0"]["id"] == made.provider_job_id

        edit = {"model": "ray-2", "prompt": "snow", "type": "video-to-video"}
        modified = await app.generate(key, **edit, video={"url": media.video}, timeout=30)
        assert modified["status"] == "completed", modified
        assert modified["cost"]["amount"] == round(1 * 0.3499, 6)  # the 1 s source at 720p

        # Luma fetches by URL: a data: source is refused while this server is not public.
        mp4 = "data:video/mp4;base64," + base64.b64encode(sample_mp4()).decode()
        refused = await app.create(key, **edit, video={"url": mp4})
        assert assert_error(refused, 400, "input_unreachable")["param"] == "video"
        # Luma takes no reference media.
        image = [{"type": "image", "url": "https://example.com/a.png"}]
        assert_error(await app.create(key, model="ray-2", prompt="p", references=image), 400)
    assert len(fake.submitted) == 3
