"""Replicate's luma/modify-video: the official SDK runs it on the fake, the fake refuses what
its schema does not take, and our API refuses a source Replicate cannot fetch."""

from __future__ import annotations

from pathlib import Path

import pytest
import replicate.client
from replicate.exceptions import ReplicateError

from tests.fakes.replicate import ReplicateFake
from tests.support.contract.cases import BY_NAME
from tests.support.contract.run import assert_unfetchable_source_refused
from tests.support.providers import fake_fixture
from tests.support.replicate import KEY

fake = fake_fixture(lambda: ReplicateFake(api_token=KEY), lambda made: made.app())
CLIP = "https://media.example.com/clip.mp4"


async def test_the_sdk_runs_modify_video(fake: tuple[ReplicateFake, str]) -> None:
    replicate_fake, url = fake
    client = replicate.client.Client(api_token=KEY, base_url=url)
    arguments = {"prompt": "claymation", "video": CLIP, "mode": "reimagine_3"}
    prediction = await client.models.predictions.async_create(
        model="luma/modify-video", input=arguments
    )
    for _ in range(6):
        prediction = await client.predictions.async_get(prediction.id)
        if prediction.status == "succeeded":
            break
    assert prediction.status == "succeeded" and isinstance(prediction.output, str)
    assert replicate_fake.submitted == [arguments]
    with pytest.raises(ReplicateError) as refused:
        await client.models.predictions.async_create(
            model="luma/modify-video", input={"prompt": "p", "video_url": CLIP}
        )
    assert refused.value.status == 422
    detail = str(refused.value.detail)
    assert "video_url is not allowed" in detail or "video is required" in detail


async def test_a_source_replicate_cannot_fetch_is_refused_at_create(tmp_path: Path) -> None:
    await assert_unfetchable_source_refused(BY_NAME["replicate"], tmp_path)
