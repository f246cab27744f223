"""Seedance 2.0's references, edits and extensions: the official SDK sends them to the fake,
the fake refuses what Ark does not document, and our API prices and refuses them."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import byteplussdkarkruntime as ark_runtime
import pytest
from byteplussdkarkruntime import _exceptions as ark_errors

from tests.fakes.seedance import FakeArk
from tests.support.harness import Harness, extension_refused, running, test_settings
from tests.support.media_host import media_host
from tests.support.servers import serve_app, serve_app_in_thread
from vidrouter.domain.catalog import load_catalog

V2 = "dreamina-seedance-2-0-260128"


@contextlib.contextmanager
def sdk_client(fake: FakeArk) -> Iterator[Any]:
    with serve_app_in_thread(fake.app()) as url:
        client = ark_runtime.Ark(base_url=url + "/api/v3", api_key="test-key", max_retries=0)
        try:
            yield client
        finally:
            client.close()


def _item(kind: str, role: str, url: str = "https://media.example.com/x") -> dict[str, Any]:
    return {"type": f"{kind}_url", f"{kind}_url": {"url": url}, "role": role}


def test_the_sdk_sends_reference_media_the_fake_accepts() -> None:
    fake = FakeArk(polls_to_finish=1)
    content = [
        {"type": "text", "text": "the girl from Image 1 dances to Audio 1, camera of Video 1"},
        _item("image", "reference_image"),
        _item("video", "reference_video"),
        _item("audio", "reference_audio"),
    ]
    with sdk_client(fake) as client:
        created = client.content_generation.tasks.create(model=V2, content=content, duration=5)
        task = client.content_generation.tasks.get(task_id=created.id)
    assert task.status == "succeeded" and task.content.video_url
    assert fake.submitted[0]["content"] == content


@pytest.mark.parametrize(
    ("content", "param"),
    [
        # A fourth reference video.
        ([_item("video", "reference_video")] * 4, "role"),
        # Frames and references mixed.
        ([_item("image", "first_frame"), _item("image", "reference_image")], "role"),
        # A sound alone.
        ([_item("audio", "reference_audio")], "role"),
        # A video with an image's role.
        ([_item("video", "reference_image")], "role"),
        # A field the item does not document.
        ([{**_item("video", "reference_video"), "duration": 3}], "content"),
    ],
)
def test_the_fake_refuses_what_ark_does_not_take(content: list[Any], param: str) -> None:
    fake = FakeArk()
    with sdk_client(fake) as client, pytest.raises(ark_errors.ArkBadRequestError) as refused:
        client.content_generation.tasks.create(
            model=V2, content=[{"type": "text", "text": "x"}, *content]
        )
    assert refused.value.body["code"] == "InvalidParameter"
    assert refused.value.body["param"] == param
    assert fake.submitted == []


def test_reference_roles_are_for_the_2_0_series_only() -> None:
    fake = FakeArk()
    with sdk_client(fake) as client, pytest.raises(ark_errors.ArkBadRequestError):
        client.content_generation.tasks.create(
            model="seedance-1-5-pro-251215",
            content=[{"type": "text", "text": "x"}, _item("image", "reference_image")],
        )


@contextlib.asynccontextmanager
async def seedance_app(tmp_path: Path, fake: FakeArk) -> AsyncIterator[Harness]:
    async with serve_app(fake.app()) as url:
        environ = {"VIDROUTER_SEEDANCE_BASE_URL": url, "ARK_API_KEY": "test-key"}
        settings = test_settings(tmp_path / "data", environ=environ, provider_delay_scale=0.01)
        async with running(settings) as app:
            yield app


def _typed_price(kind: str) -> float:
    spec = load_catalog().get("seedance-2")
    assert spec is not None
    return spec.routes[0].price_for("720p", True, kind)


async def test_an_extension_costs_the_video_input_price(tmp_path: Path) -> None:
    fake = FakeArk(polls_to_finish=1)
    async with seedance_app(tmp_path, fake) as app, media_host() as media:
        done = await app.generate(
            model="seedance-2",
            prompt="the fox keeps running",
            type="video-extend",
            video={"url": media.video},
            duration=6,
            timeout=30,
        )
    assert done["status"] == "completed", done
    assert _typed_price("video-extend") == 0.18576  # 4.3 USD / M tokens, source counted too
    assert done["cost"]["amount"] == round(6 * 0.18576, 6)
    [body] = fake.submitted
    assert body["duration"] == 6
    assert body["content"][1] == _item("video", "reference_video", media.video)


async def test_a_source_ark_cannot_fetch_is_refused_at_create(tmp_path: Path) -> None:
    """Our own generation as a source, while our public URL is loopback: Ark (which fetches by
    URL and has no upload API) could never read it, so the create is a 400 and Ark is not
    called."""
    fake = FakeArk()
    async with seedance_app(tmp_path, fake) as app:
        key = await app.new_key()
        # Its own output, kept only on this server (no local render: it is slow under load).
        made = await app.generate(
            key, timeout=60, **{"model": "seedance-2", "prompt": "a fox", "duration": 4}
        )
        assert made["status"] == "completed", made
        source = made["id"]
        error = await extension_refused(app, key, "seedance-2", source, 5)
    assert error["code"] == "input_unreachable"
    assert len(fake.submitted) == 1  # the source's only
