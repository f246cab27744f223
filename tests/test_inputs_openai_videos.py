"""An OpenAI-style gateway's extensions: the openai SDK posts `/videos/extensions` to the fake,
which answers the stitched whole and refuses what OpenAI's shape does not take. (The SDK's
own `videos.extend` sends only a file, as multipart; the JSON `{"video": {"id"}}` form that
gateways and our adapter use goes through the SDK's generic `post`.)"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from openai.types import Video

from tests.fakes.openai_videos import FakeOpenAIVideos
from tests.support.contract.cases import BY_NAME
from tests.support.contract.run import started
from tests.support.harness import extension_refused
from tests.support.openai_videos import KEY
from tests.support.servers import serve_app


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the SDK flags the Sora API
        yield


async def _extend(client: openai.AsyncOpenAI, **body: object) -> Video:
    return await client.post("/videos/extensions", body=body, cast_to=Video)


async def test_the_sdk_extends_a_completed_video() -> None:
    fake = FakeOpenAIVideos(api_key=KEY, polls_to_finish=0)
    async with (
        serve_app(fake.app()) as url,
        openai.AsyncOpenAI(api_key=KEY, base_url=url + "/v1", max_retries=0) as client,
    ):
        source = await client.videos.create(
            model="sora-2", prompt="a fox", seconds="4", size="1280x720"
        )
        with pytest.raises(openai.BadRequestError):  # not completed yet
            await _extend(client, prompt="it runs on", seconds="4", video={"id": source.id})
        await client.videos.retrieve(source.id)  # completes it
        extended = await _extend(client, prompt="it runs on", seconds="8", video={"id": source.id})
        assert extended.seconds == "12"  # the stitched whole
        assert fake.submitted[-1] == {
            "prompt": "it runs on",
            "seconds": "8",
            "video": {"id": source.id},
        }
        with pytest.raises(openai.BadRequestError) as unknown:
            await _extend(client, prompt="p", seconds="4", video={"id": source.id}, model="x")
        assert unknown.value.param == "model"
        with pytest.raises(openai.NotFoundError):
            await _extend(client, prompt="p", seconds="4", video={"id": "video_nope"})


async def test_an_extension_of_another_routes_video_is_refused_at_create(tmp_path: Path) -> None:
    """The gateway extends only its own videos, by id: a source made elsewhere is a 400 naming
    `video`, and the gateway is not called."""
    async with started(BY_NAME["openai_videos"], tmp_path) as run:
        key = await run.app.new_key()
        source = await run.app.create_preview(key)
        made = await run.app.wait_for(key, source, timeout=60)
        assert made["status"] == "completed", made
        error = await extension_refused(run.app, key, "gateway-clip", source, 4)
    assert "made elsewhere" in error["message"]
    assert run.fake.submitted == []
