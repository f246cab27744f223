"""xAI's types beyond text and first frame (docs/providers/xai.md): reference images on
/v1/videos/generations, edits on /v1/videos/edits, extensions on /v1/videos/extensions; the
limits xAI has per type, refused before xAI is called; sources xAI cannot fetch sent
inline; and the fake's edits and extensions driven by the `openai` SDK, whose request
machinery the gateways reuse for xAI (xai-sdk itself speaks gRPC only)."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.xai import EDITS, EXTENSIONS, GENERATIONS, XaiFake
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, png
from tests.support.providers import served_adapter, until_ended
from tests.support.servers import serve_app, serve_clip
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.xai import XaiProvider

KEY = "test-key"
HEADERS = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture
async def xai() -> AsyncIterator[tuple[XaiFake, XaiProvider]]:
    fake = XaiFake(api_key=KEY, polls_to_finish=1)

    def make(url: str) -> XaiProvider:
        return XaiProvider(AdapterConfig(url, {"XAI_API_KEY": KEY}.get, allow_private_images=True))

    async with served_adapter(fake.app(), make) as provider:
        yield fake, provider


def _request(kind: str, model: str = "grok-imagine-video", **kw: Any) -> base.ProviderRequest:
    values: dict[str, Any] = {"controls": Controls("720p", True), "duration": 5, **kw}
    duration = values.pop("duration")
    return base.ProviderRequest(
        "gen_x1", model, "<IMAGE_1> walks", duration, "16:9", type=kind, **values
    )


def _image(url: str, reachable: bool = True) -> base.ProviderMedia:
    return base.ProviderMedia("image", url, "image/png", reachable=reachable)


def _source(tmp_path: Path, url: str | None = None) -> base.ProviderSource:
    """Our copy of a 1 s source: at `url` when xAI can fetch it, else only on this disk."""
    path = tmp_path / "source.mp4"
    path.write_bytes(sample_mp4())
    where = url or "http://127.0.0.1:8000/content/source.mp4?sig=x"
    return base.ProviderSource(base.ProviderMedia("video", where, "video/mp4", path, bool(url)), 1)


async def test_reference_images_go_as_reference_images_within_xais_limits(
    xai: tuple[XaiFake, XaiProvider],
) -> None:
    fake, provider = xai
    inline = data_uri(png(4, 4))
    refs = (_image("https://cdn.example/a.png"), _image(inline, reachable=False))
    job = await provider.submit(_request("reference-to-video", references=refs))
    body = fake.submitted[-1]
    assert body["reference_images"] == [{"url": "https://cdn.example/a.png"}, {"url": inline}]
    assert (body["duration"], body["resolution"], "image" not in body) == (5, "720p", True)
    assert (await until_ended(provider, job)).state is base.JobState.SUCCEEDED
    # xAI's limits with references, which the catalog cannot say per type: refused here.
    too_long = _request("reference-to-video", references=refs, duration=12)
    too_sharp = _request(
        "reference-to-video", "grok-imagine-video-1.5", references=refs, controls=Controls("1080p")
    )
    for request in (too_long, too_sharp):
        with pytest.raises(base.InvalidInput):
            await provider.submit(request)
    assert len(fake.submitted) == 1


async def test_an_edit_sends_only_the_video_and_the_prompt(
    xai: tuple[XaiFake, XaiProvider], tmp_path: Path
) -> None:
    fake, provider = xai
    source = _source(tmp_path, "https://cdn.example/in.mp4")
    job = await provider.submit(_request("video-to-video", source=source))
    assert fake.submitted[-1] == {
        "model": "grok-imagine-video",
        "prompt": "<IMAGE_1> walks",
        "video": {"url": "https://cdn.example/in.mp4"},
    }
    assert [p for m, p in fake.plan.requests if m == "POST"] == [EDITS]
    done = await until_ended(provider, job)
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 1.0


async def test_an_extension_sends_a_source_xai_cannot_fetch_inline_and_bills_what_it_adds(
    xai: tuple[XaiFake, XaiProvider], tmp_path: Path
) -> None:
    fake, provider = xai
    source = _source(tmp_path)  # a loopback URL: xAI could not fetch it
    job = await provider.submit(_request("video-extend", source=source, duration=4))
    body = fake.submitted[-1]
    assert set(body) == {"model", "prompt", "video", "duration"} and body["duration"] == 4
    header, _, payload = body["video"]["url"].partition(",")
    assert header == "data:video/mp4;base64"
    assert base64.b64decode(payload) == source.video.path.read_bytes()  # type: ignore[union-attr]
    done = await until_ended(provider, job)
    # xAI answers with the whole video (1 s in + 4 s): the 4 s added are what is billed.
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 4.0
    with pytest.raises(base.InvalidInput):  # xAI adds 1 to 10 s
        await provider.submit(_request("video-extend", source=source, duration=11))
    assert [p for m, p in fake.plan.requests if m == "POST"] == [EXTENSIONS]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (EDITS, {"duration": 5}),  # an edit follows its input
        (EDITS, {"resolution": "720p"}),
        (EDITS, {}),  # no video
        (EXTENSIONS, {"duration": 11}),
        (EXTENSIONS, {"aspect_ratio": "16:9"}),
        (GENERATIONS, {"reference_images": [{"url": "https://x/a.png"}] * 8}),
        (GENERATIONS, {"reference_images": [{"url": "https://x/a.png"}], "resolution": "1080p"}),
    ],
)
async def test_the_fake_refuses_what_each_operation_does_not_take(
    path: str, body: dict[str, Any]
) -> None:
    fake = XaiFake(api_key=KEY)
    video = {} if path == GENERATIONS or not body else {"video": {"url": "https://x/in.mp4"}}
    sent = {"model": "grok-imagine-video-1.5" if path == GENERATIONS else "grok-imagine-video"}
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            path, json={**sent, "prompt": "p", **video, **body}, headers=HEADERS
        )
    assert answer.status_code == 400, answer.text
    assert set(answer.json()) == {"code", "error"} and fake.tasks == {}


async def test_the_openai_sdk_drives_the_fakes_edits_and_extensions() -> None:
    """xAI's edits and extensions sit where OpenAI's do (`/v1/videos/edits`, `/extensions`)
    but take JSON with `video: {url}` and `duration`: the SDK's own `videos.extend` sends
    multipart with `seconds`, which xAI refuses; its generic `post`, as gateways use it for
    xAI, is answered with a request id that the SDK's `get` polls to the video."""
    fake = XaiFake(api_key=KEY, polls_to_finish=0)
    async with serve_app(fake.app()) as url:
        client = openai.AsyncOpenAI(api_key=KEY, base_url=f"{url}/v1", max_retries=0)
        video = {"url": "https://cdn.example/in.mp4"}
        edit = await client.post(
            "/videos/edits",
            body={"model": "grok-imagine-video", "prompt": "add snow", "video": video},
            cast_to=object,
        )
        extension = await client.post(
            "/videos/extensions",
            body={"model": "grok-imagine-video", "prompt": "pan", "video": video, "duration": 6},
            cast_to=object,
        )
        answers = [
            await client.get(f"/videos/{made['request_id']}", cast_to=object)  # type: ignore[index]
            for made in (edit, extension)
        ]
        with pytest.raises(openai.APIStatusError) as refused:
            await client.videos.extend(
                prompt="pan", seconds="8", video=("in.mp4", sample_mp4(), "video/mp4")
            )
        await client.close()
    assert [a["status"] for a in answers] == ["done", "done"]  # type: ignore[index]
    assert [a["video"]["duration"] for a in answers] == [1, 7]  # type: ignore[index]
    assert refused.value.status_code == 415  # xAI takes JSON only
    assert [b["video"] for b in fake.submitted] == [video, video]


async def test_our_api_refuses_what_xai_cannot_take_before_calling_it(tmp_path: Path) -> None:
    """More than 7 reference images, and a source longer than xAI's 15 s: 400s at create
    naming the input, with xAI never asked."""
    fake = XaiFake(api_key=KEY)
    image = data_uri(png(64, 36))
    async with serve_app(fake.app()) as url, serve_clip(sample_mp4(16)) as clip:
        environ = {"XAI_API_KEY": KEY, "VIDROUTER_XAI_BASE_URL": url}
        async with running(test_settings(tmp_path / "data", environ=environ)) as app:
            key = await app.new_key()
            many = await app.create(
                key,
                model="grok-imagine-video",
                prompt="p",
                references=[{"type": "image", "url": image}] * 8,
            )
            long = await app.create(
                key,
                model="grok-imagine-video",
                prompt="p",
                type="video-extend",
                duration=5,
                video={"url": clip},
            )
    assert (many.status_code, many.json()["error"]["param"]) == (400, "references"), many.text
    assert long.status_code == 400 and long.json()["error"]["code"] == "video_too_long"
    assert fake.submitted == []
