"""OpenRouter's `input_references`: the official SDK sends images, videos and sounds to the
fake, which refuses a video or a sound for a model that would ignore it."""

from __future__ import annotations

from pathlib import Path

import pytest
from openrouter import OpenRouter, errors

from tests.fakes.openrouter import OpenRouterFake
from tests.support.contract.cases import BY_NAME
from tests.support.contract.run import assert_unfetchable_source_refused
from tests.support.openrouter import KEY
from tests.support.providers import fake_fixture

fake = fake_fixture(lambda: OpenRouterFake(api_key=KEY))
IMAGE = {"type": "image_url", "image_url": {"url": "https://media.example.com/face.png"}}
VIDEO = {"type": "video_url", "video_url": {"url": "https://media.example.com/clip.mp4"}}
AUDIO = {"type": "audio_url", "audio_url": {"url": "https://media.example.com/tone.wav"}}


async def test_the_sdk_sends_every_reference_kind(fake: tuple[OpenRouterFake, str]) -> None:
    openrouter, url = fake
    async with OpenRouter(api_key=KEY, server_url=url + "/api/v1") as client:
        job = await client.video_generation.generate_async(
            model="bytedance/seedance-2.0",
            prompt="Image 1 dances to Audio 1 with the camera of Video 1",
            duration=5,
            input_references=[IMAGE, VIDEO, AUDIO],
        )
        assert job.status == "pending"
        await client.video_generation.generate_async(
            model="google/veo-3.1", prompt="the woman walks", duration=8, input_references=[IMAGE]
        )
    assert openrouter.submitted[0]["input_references"] == [IMAGE, VIDEO, AUDIO]
    assert openrouter.submitted[1]["input_references"] == [IMAGE]


@pytest.mark.parametrize("reference", [VIDEO, AUDIO])
async def test_media_references_are_for_seedance_2_only(
    fake: tuple[OpenRouterFake, str], reference: dict[str, object]
) -> None:
    openrouter, url = fake
    async with OpenRouter(api_key=KEY, server_url=url + "/api/v1") as client:
        with pytest.raises(errors.OpenRouterError) as refused:
            await client.video_generation.generate_async(
                model="google/veo-3.1", prompt="p", duration=8, input_references=[reference]
            )
    assert refused.value.status_code == 400
    assert "image references only" in refused.value.body
    assert openrouter.submitted == []


async def test_a_source_openrouter_cannot_fetch_is_refused_at_create(tmp_path: Path) -> None:
    """Without a public URL our copies are on loopback, and OpenRouter fetches by URL: an
    edit of our own generation is a 400 naming `video`, and OpenRouter is not called."""
    await assert_unfetchable_source_refused(
        BY_NAME["openrouter"], tmp_path, "seedance-2", 4, public_url=None
    )
