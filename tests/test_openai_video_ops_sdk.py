"""OpenAI's video operations driven by the official `openai` SDK against a real server over
real HTTP, end to end on `local-preview` to completed videos: `videos.remix`, `videos.edit`
and `videos.extend` (an uploaded file; by id through the SDK's generic `post`, since this
SDK version's `edit`/`extend` refuse a `{"id"}` on the client side), `create_character` /
`get_character`, and `characters` on `videos.create` (through `extra_body`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import openai
import pytest
from openai.types import Video

from tests.support.clips import solid_mp4
from tests.support.harness import test_settings
from tests.support.servers import serve_app
from tests.support.video import decode
from vidrouter.composition import Composition, create_app

# Every `videos.*` method of the SDK warns that OpenAI's own Sora API is retired.
pytestmark = pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")


@pytest.fixture
async def sdk(tmp_path: Path) -> AsyncIterator[openai.AsyncOpenAI]:
    settings = test_settings(tmp_path / "data")
    service = Composition(settings)
    await service.open()
    service.start_workers()
    app = create_app(settings, composition=service)
    try:
        key = await service.keys.create("sdk")
        async with serve_app(app) as url:
            client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key=key.plaintext, max_retries=0)
            try:
                yield client
            finally:
                await client.close()
    finally:
        await service.close(grace=5)


async def finished(client: openai.AsyncOpenAI, video: Video) -> Video:
    for _ in range(600):
        video = await client.videos.retrieve(video.id)
        if video.status in ("completed", "failed"):
            break
        await asyncio.sleep(0.1)
    assert video.status == "completed", video
    return video


async def frames(client: openai.AsyncOpenAI, video: Video, tmp_path: Path) -> int:
    content = await client.videos.download_content(video.id)
    return decode(content.content, tmp_path).frames


async def test_remix_edit_extend_and_characters_through_the_sdk(
    sdk: openai.AsyncOpenAI, tmp_path: Path
) -> None:
    source = await sdk.videos.create(model="local-preview", prompt="a fox", seconds="1")  # type: ignore[arg-type]
    source = await finished(sdk, source)
    source_frames = await frames(sdk, source, tmp_path)

    remix = await sdk.videos.remix(source.id, prompt="the fox at night")
    assert remix.remixed_from_video_id == source.id and remix.model == "local-preview"
    remix = await finished(sdk, remix)
    assert remix.remixed_from_video_id == source.id
    assert await frames(sdk, remix, tmp_path) == source_frames

    clip = ("clip.mp4", solid_mp4(seconds=0.5), "video/mp4")
    edit = await finished(sdk, await sdk.videos.edit(prompt="in the rain", video=clip))
    assert edit.remixed_from_video_id is None
    assert await frames(sdk, edit, tmp_path) == 12
    by_id = await sdk.post(
        "/videos/edits", body={"prompt": "snow", "video": {"id": source.id}}, cast_to=Video
    )
    await finished(sdk, by_id)

    extended = await sdk.videos.extend(prompt="it runs on", seconds="1", video=clip)  # type: ignore[arg-type]
    assert extended.seconds == "1.5"  # the clip's half second and the one added
    extended = await finished(sdk, extended)
    assert await frames(sdk, extended, tmp_path) == 12 + 24
    longer = await sdk.post(
        "/videos/extensions",
        body={"prompt": "on", "seconds": "0.5", "video": {"id": source.id}},
        cast_to=Video,
    )
    assert longer.seconds == "1.5"
    longer = await finished(sdk, longer)
    assert await frames(sdk, longer, tmp_path) == source_frames + 12

    character = await sdk.videos.create_character(
        name="Bob", video=("bob.mp4", solid_mp4(seconds=1, size=(64, 64)), "video/mp4")
    )
    assert character.name == "Bob" and (character.id or "").startswith("char_")
    got = await sdk.videos.get_character(character.id or "")
    assert (got.id, got.name, got.created_at) == (character.id, "Bob", character.created_at)
    with_bob = await sdk.videos.create(
        model="local-preview",
        prompt="Bob waves",
        seconds="1",  # type: ignore[arg-type]
        extra_body={"characters": [{"id": character.id}]},
    )
    await finished(sdk, with_bob)

    with pytest.raises(openai.NotFoundError) as missing:
        await sdk.videos.get_character("char_unknown")
    assert isinstance(missing.value.body, dict) and missing.value.body["param"] == "character_id"
    with pytest.raises(openai.BadRequestError) as too_long:
        await sdk.videos.create_character(name="x" * 81, video=clip)
    assert isinstance(too_long.value.body, dict) and too_long.value.body["param"] == "name"
