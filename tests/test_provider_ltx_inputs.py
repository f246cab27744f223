"""LTX's source types (docs/providers/ltx.md, "Types"): a retake of the whole source on
/v2/retake and an extension on /v2/extend, each polled at the segment that created it; the
source by https URL of a domain or inline; what LTX does not take refused before it is
called; the fake refusing what the endpoints do not take; each type's price."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.base import sample_mp4
from tests.fakes.ltx import LtxFake
from tests.support.providers import keyed_adapter, until_ended
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.controls import Controls
from vidrouter.providers import base
from vidrouter.providers.ltx import LtxProvider

KEY = "test-key"
HTTPS = "https://cdn.example.com/in.mp4"


def _request(kind: str, source: base.ProviderSource, **kw: Any) -> base.ProviderRequest:
    values: dict[str, Any] = {"duration": source.seconds, **kw}
    return base.ProviderRequest(
        "gen_l1",
        "ltx-2-3-pro",
        "night falls",
        values.pop("duration"),
        "16:9",
        controls=Controls("1080p", True),
        type=kind,
        source=source,
        **values,
    )


def _source(tmp_path: Path, url: str = HTTPS, seconds: float = 4.0) -> base.ProviderSource:
    path = tmp_path / "in.mp4"
    path.write_bytes(sample_mp4())
    reachable = url.startswith("https://")
    return base.ProviderSource(
        base.ProviderMedia("video", url, "video/mp4", path, reachable), seconds
    )


def _adapter(fake: LtxFake) -> contextlib.AbstractAsyncContextManager[LtxProvider]:
    return keyed_adapter(fake, LtxProvider, "LTX_API_KEY")


async def test_a_retake_regenerates_the_whole_source_from_its_url(tmp_path: Path) -> None:
    fake = LtxFake(api_key=KEY)
    async with _adapter(fake) as provider:
        job = await provider.submit(_request("video-to-video", _source(tmp_path, seconds=4.2)))
        done = await until_ended(provider, job)
    assert fake.submitted == [
        {
            "video_uri": HTTPS,  # an https URL of a domain: LTX fetches it
            "prompt": "night falls",
            "model": "ltx-2-3-pro",
            "start_time": 0,
            "duration": 5,  # the whole source, rounded up (LTX clamps it to the video)
        }
    ]
    gets = [p for m, p in fake.plan.requests if m == "GET"]
    assert gets and all(p.startswith("/v2/retake/") for p in gets)
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 5.0


async def test_an_extension_sends_a_source_ltx_cannot_fetch_inline(tmp_path: Path) -> None:
    fake = LtxFake(api_key=KEY)
    source = _source(tmp_path, "http://127.0.0.1:8000/content/in.mp4?sig=x")
    async with _adapter(fake) as provider:
        job = await provider.submit(_request("video-extend", source, duration=6))
        done = await until_ended(provider, job)
        with pytest.raises(base.InvalidInput):  # LTX adds 2 to 20 s
            await provider.submit(_request("video-extend", source, duration=21))
    [body] = fake.submitted
    assert body["video_uri"].startswith("data:video/mp4;base64,")
    assert (body["duration"], body["mode"]) == (6, "end")
    assert [p for m, p in fake.plan.requests if m == "POST"] == ["/v2/extend"]
    assert done.state is base.JobState.SUCCEEDED and done.billed_seconds == 6.0


async def test_a_source_too_large_to_send_inline_is_refused_before_ltx(tmp_path: Path) -> None:
    fake = LtxFake(api_key=KEY)
    big = tmp_path / "big.mp4"
    big.write_bytes(sample_mp4() + b"\0" * (12 * 1024 * 1024))
    media = base.ProviderMedia("video", "http://127.0.0.1:1/big.mp4", "video/mp4", big, False)
    async with _adapter(fake) as provider:
        with pytest.raises(base.InvalidInput):
            await provider.submit(
                _request("video-extend", base.ProviderSource(media, 4.0), duration=6)
            )
    assert fake.jobs == {}


@pytest.mark.parametrize(
    ("endpoint", "body"),
    [
        ("retake", {"model": "ltx-2-3-fast"}),  # retake and extend are 2.3-pro's
        ("retake", {"start_time": None}),
        ("retake", {"mode": "replace_everything"}),
        ("retake", {"video_uri": "https://10.0.0.7/in.mp4"}),  # domain names only
        ("extend", {"duration": 21}),
        ("extend", {"resolution": "1920x1080"}),  # the output keeps the input's
        ("extend", {"video_uri": "data:image/png;base64,AAAA"}),
    ],
)
async def test_the_fake_refuses_what_retake_and_extend_do_not_take(
    endpoint: str, body: dict[str, Any]
) -> None:
    fake = LtxFake(api_key=KEY)
    sent: dict[str, Any] = {"video_uri": HTTPS, "prompt": "p", "model": "ltx-2-3-pro"}
    sent["duration"] = 4
    if endpoint == "retake":
        sent["start_time"] = 0
    sent |= body
    sent = {k: v for k, v in sent.items() if v is not None}
    async with serve_app(fake.app()) as url, httpx.AsyncClient(base_url=url) as client:
        answer = await client.post(
            f"/v2/{endpoint}", json=sent, headers={"Authorization": f"Bearer {KEY}"}
        )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["type"] == "invalid_request_error" and fake.jobs == {}


def test_each_source_type_has_its_price_on_ltx_2_3_pro() -> None:
    [route] = [
        r
        for m in load_catalog().models
        if m.id == "ltx-2.3-pro"
        for r in m.routes
        if r.provider == "ltx"
    ]
    assert route.price_for("1080p", True) == 0.08
    assert route.price_for("1080p", True, "video-to-video") == 0.10  # per second of input
    assert route.price_for("720p", False, "video-extend") == 0.10  # per second added
    assert route.options["extension_returns"] == "whole"
