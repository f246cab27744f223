"""Runway's video edit: the runwayml SDK's `video_to_video.create` (aleph2) drives the fake,
and through our API an edit goes inline when this server cannot hand its source out by URL,
billed on the source's seconds."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import runwayml
import runwayml.lib.polling

from tests.fakes.base import sample_mp4
from tests.fakes.runway import RunwayFake
from tests.support.harness import assert_error, running
from tests.support.providers import fake_fixture
from tests.support.runway import quick_sdk, settings_for

fake = fake_fixture(RunwayFake)
MP4 = "data:video/mp4;base64," + base64.b64encode(sample_mp4()).decode()


async def test_runwayml_edits_a_video_with_aleph2(
    fake: tuple[RunwayFake, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runway, url = fake
    async with quick_sdk(url, monkeypatch) as client:
        task = await (
            await client.video_to_video.create(
                model="aleph2", video_uri=MP4, prompt_text="make it night", seed=3
            )
        ).wait_for_task_output()
        assert task.status == "SUCCEEDED" and task.output
        for wrong in ({"video_uri": "http://example.com/a.mp4"}, {"video_uri": MP4, "ratio": 1}):
            with pytest.raises(runwayml.BadRequestError):
                await client.post(
                    "/v1/video_to_video", body={"model": "aleph2", **wrong}, cast_to=object
                )
    assert runway.submitted == [
        {"model": "aleph2", "videoUri": MP4, "promptText": "make it night", "seed": 3}
    ]


async def test_an_edit_through_our_api(fake: tuple[RunwayFake, str], tmp_path: Path) -> None:
    runway, url = fake
    async with running(settings_for(tmp_path, url)) as app:
        key = await app.new_key()
        edit = {"model": "aleph-2", "prompt": "snow", "type": "video-to-video"}
        done = await app.generate(key, **edit, video={"url": MP4}, seed=9, timeout=30)
        assert done["status"] == "completed", done
        assert done["cost"]["amount"] == 0.15  # the 1 s source at 15 credits/s
        # Aleph 2 makes nothing from text, and takes no references.
        assert_error(await app.create(key, model="aleph-2", prompt="p"), 400, "type_unsupported")
        image = [{"type": "image", "url": "https://example.com/a.png"}]
        assert_error(await app.create(key, **edit, video={"url": MP4}, references=image), 400)
    [sent] = runway.submitted
    assert sent["videoUri"].startswith("data:video/mp4;base64,") and sent["seed"] == 9
