"""PixVerse's types (docs/providers/pixverse.md, "Types"): reference images through fusion
(each uploaded first, named `ref1`...), and the extension of a video the same route made,
by its PixVerse id; what PixVerse does not take refused before it is called; the fake
refusing what each endpoint does not take; and through our API, an extension of a video
PixVerse did not make refused at create."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.pixverse import PixverseFake
from tests.support.harness import running, test_settings
from tests.support.images import data_uri, png
from tests.support.providers import keyed_adapter, until_ended
from tests.support.servers import serve_app, serve_clip
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.pixverse import PixverseProvider

KEY = "test-key"


def _request(model: str, kind: str, **kw: Any) -> base.ProviderRequest:
    values: dict[str, Any] = {"duration": 5.0, "controls": Controls("720p", seed=7), **kw}
    duration = values.pop("duration")
    return base.ProviderRequest(
        "gen_pix1", model, "@ref1 walks into @ref2 ", duration, "9:16", type=kind, **values
    )


def _adapter(fake: PixverseFake) -> contextlib.AbstractAsyncContextManager[PixverseProvider]:
    return keyed_adapter(fake, PixverseProvider, "PIXVERSE_API_KEY")


async def test_references_are_uploaded_and_named_in_image_references(tmp_path: Path) -> None:
    fake = PixverseFake(api_key=KEY)
    first, second = png(64, 36), png(64, 40)
    kept = tmp_path / "second.png"
    kept.write_bytes(second)
    refs = (
        base.ProviderMedia("image", data_uri(first), "image/png", reachable=False),
        # Our copy on this disk, behind a URL PixVerse could not fetch: read from here.
        base.ProviderMedia("image", "http://127.0.0.1:1/x.png", "image/png", kept, False),
    )
    async with _adapter(fake) as provider:
        job = await provider.submit(_request("v5.6", "reference-to-video", references=refs))
        done = await until_ended(provider, job)
    [body] = fake.submitted
    assert sorted(fake.images.values()) == sorted([first, second])
    assert [(r["type"], r["ref_name"]) for r in body["image_references"]] == [
        ("subject", "ref1"),
        ("subject", "ref2"),
    ]
    assert [fake.images[r["img_id"]] for r in body["image_references"]] == [first, second]
    assert (body["aspect_ratio"], body["duration"], body["quality"], body["seed"]) == (
        "9:16",
        5,
        "720p",
        7,
    )
    assert done.state is base.JobState.SUCCEEDED


async def test_an_extension_names_the_video_pixverse_made() -> None:
    fake = PixverseFake(api_key=KEY)
    async with _adapter(fake) as provider:
        made = await provider.submit(_request("v6", "text-to-video"))
        await until_ended(provider, made)
        video = base.ProviderMedia("video", "https://cdn.example/v.mp4", "video/mp4")
        source = base.ProviderSource(video, 5.0, made)
        job = await provider.submit(_request("v6", "video-extend", source=source, duration=3))
        done = await until_ended(provider, job)
    body = fake.submitted[-1]
    assert body["source_video_id"] == int(made.id) and body["duration"] == 3
    assert "aspect_ratio" not in body and "video_media_id" not in body
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 3.0


async def test_what_pixverse_does_not_take_is_refused_before_it_is_called() -> None:
    fake = PixverseFake(api_key=KEY)
    image = base.ProviderMedia("image", data_uri(png()), "image/png", reachable=False)
    video = base.ProviderMedia("video", "https://cdn.example/v.mp4", "video/mp4")
    theirs = base.ProviderSource(video, 5.0, None)  # not made by this route
    ours = base.ProviderSource(video, 5.0, base.ProviderJob("318466123456789"))
    refused = [
        _request("v5.6", "reference-to-video", references=(image,) * 4),
        _request("v5.6", "reference-to-video", references=(image,), duration=10),
        _request("v6", "video-extend", source=theirs),
        _request("v5.5", "video-extend", source=ours, duration=10),  # 5 or 8 before V6
    ]
    async with _adapter(fake) as provider:
        for request in refused:
            with pytest.raises(base.InvalidInput):
                await provider.submit(request)
    assert fake.submitted == [] and fake.images == {}


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("fusion", {"model": "v6"}),  # no fusion on V6
        ("fusion", {"duration": 10}),
        ("fusion", {"image_references": []}),
        ("fusion", {"image_references": [{"type": "person", "img_id": 0, "ref_name": "a"}]}),
        ("extend", {"source_video_id": 1}),  # not a video of this account
        ("extend", {"source_video_id": 1, "video_media_id": 2}),
        ("extend", {"model": "v5.6"}),
    ],
)
async def test_the_fake_refuses_what_fusion_and_extend_do_not_take(
    kind: str, body: dict[str, Any]
) -> None:
    fake = PixverseFake(api_key=KEY)
    async with _adapter(fake) as provider:
        made = await provider.submit(_request("v5.5", "text-to-video"))
        await until_ended(provider, made)
        img_id = await provider._upload_bytes(png(), "image/png")
    sent = {"model": "v5.5", "prompt": "@a runs", "duration": 5, "quality": "720p"}
    if kind == "fusion":
        ref = {"type": "subject", "img_id": img_id, "ref_name": "a"}
        sent |= {"aspect_ratio": "16:9", "image_references": [ref]}
    else:
        sent["source_video_id"] = int(made.id)
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            f"/openapi/v2/video/{kind}/generate",
            json={**sent, **body},
            headers={"API-KEY": KEY, "Ai-trace-id": "t-1"},
        )
    assert answer.status_code == 200 and answer.json()["ErrCode"] == 400017, answer.text
    assert len(fake.tasks) == 1


async def test_an_extension_of_a_video_pixverse_did_not_make_is_refused_at_create(
    tmp_path: Path,
) -> None:
    fake = PixverseFake(api_key=KEY)
    async with serve_app(fake.app()) as url:
        environ = {"PIXVERSE_API_KEY": KEY, "VIDROUTER_PIXVERSE_BASE_URL": url}
        async with running(test_settings(tmp_path / "data", environ=environ)) as app:
            key = await app.new_key()
            async with serve_clip(sample_mp4()) as clip:
                answer = await app.create(
                    key,
                    model="pixverse-v6",
                    prompt="keep going",
                    type="video-extend",
                    duration=5,
                    video={"url": clip},
                )
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    # A URL is no video of PixVerse's: no route of the model can extend it.
    assert (error["param"], error["code"]) == ("type", "type_unsupported"), error
    assert fake.tasks == {}
