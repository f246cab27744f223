"""fal's typed apps: fal-client submits references, edits, a modify and an extension to the
fake, the fake refuses what their schemas do not take, every typed route of the catalog maps
to an input its app takes, each type is priced at its own rate, and our API refuses what fal
cannot take (a source it cannot fetch, too many images beside a video, sound on an edit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fal_client
import pytest

from tests.fakes.fal import FalFake
from tests.support.contract.cases import BY_NAME
from tests.support.contract.run import Run, assert_unfetchable_source_refused, started
from tests.support.harness import assert_failed
from tests.support.media_host import media_host
from tests.support.providers import fake_fixture, until_ended
from vidrouter.domain.catalog import ModelSpec, Route, load_catalog
from vidrouter.providers.base import ProviderMedia, ProviderRequest, ProviderSource
from vidrouter.providers.config import AdapterConfig
from vidrouter.providers.fal.adapter import FalProvider
from vidrouter.providers.fal.inputs import TYPED
from vidrouter.store.keys import NewKey

KEY = "test-key"
R2V = "bytedance/seedance-2.0/reference-to-video"
CLIP = "https://media.example.com/clip.mp4"
FACE = "https://media.example.com/face.png"
VEO_EXTEND = "fal-ai/veo3.1/extend-video"
KLING_R2V = "fal-ai/kling-video/o3/pro/reference-to-video"
KLING_EDIT = "fal-ai/kling-video/o3/pro/video-to-video/edit"
VIDU_R2V = "fal-ai/vidu/q2/reference-to-video/pro"
fal = fake_fixture(lambda: FalFake(api_key=KEY), lambda made: made.app())


async def _result(fake_url: str, app: str, arguments: dict[str, Any]) -> Any:
    client = fal_client.AsyncClient(key=KEY)
    handle = await client.submit(app, arguments)
    return await handle.get(interval=0.01)


@pytest.mark.parametrize(
    ("app", "arguments"),
    [
        (
            R2V,
            {
                "prompt": "@Image1 dances to @Audio1 like @Video1",
                "image_urls": [FACE],
                "video_urls": [CLIP],
                "audio_urls": ["https://media.example.com/a.wav"],
                "duration": "auto",
            },
        ),
        ("fal-ai/wan/v2.7/edit-video", {"prompt": "night", "video_url": CLIP, "duration": 0}),
        (VEO_EXTEND, {"prompt": "on", "video_url": CLIP, "duration": "7s", "aspect_ratio": "auto"}),
        (KLING_R2V, {"prompt": "@Image1 waves", "image_urls": [FACE], "duration": "15"}),
        (KLING_EDIT, {"prompt": "@Video1 at night", "video_url": CLIP, "keep_audio": False}),
        (VIDU_R2V, {"prompt": "p", "reference_video_urls": [CLIP], "movement_amplitude": "small"}),
        (
            "fal-ai/luma-dream-machine/ray-2/modify",
            {"prompt": "claymation", "video_url": CLIP, "mode": "reimagine_2"},
        ),
    ],
)
async def test_fal_client_runs_each_typed_app(
    fal: tuple[FalFake, str], monkeypatch: pytest.MonkeyPatch, app: str, arguments: dict[str, Any]
) -> None:
    fake, url = fal
    monkeypatch.setattr(fal_client.client, "QUEUE_URL_FORMAT", f"{url}/")
    result = await _result(url, app, arguments)
    assert result["video"]["content_type"] == "video/mp4"
    assert fake.submissions == [(app, arguments)]


@pytest.mark.parametrize(
    ("app", "arguments", "field"),
    [
        (R2V, {"prompt": "p", "video_urls": [CLIP] * 4}, "video_urls"),  # 3 at most
        (R2V, {"prompt": "p", "reference_urls": [CLIP]}, "reference_urls"),  # not its field
        ("fal-ai/wan/v2.7/edit-video", {"prompt": "p"}, "video_url"),  # required
        (VEO_EXTEND, {"prompt": "p"}, "video_url"),  # required
        (VEO_EXTEND, {"prompt": "p", "video_url": CLIP, "duration": "8s"}, "duration"),  # +7 s
        (KLING_EDIT, {"prompt": "p", "video_url": CLIP, "duration": "5"}, "duration"),  # none
        (KLING_EDIT, {"prompt": "p", "video_url": CLIP, "image_urls": [FACE] * 5}, "image_urls"),
        (
            VIDU_R2V,
            {"prompt": "p", "reference_image_urls": [FACE], "aspect_ratio": "1:1"},
            "aspect_ratio",
        ),
        (
            "fal-ai/luma-dream-machine/ray-2/modify",
            {"prompt": "p", "video_url": CLIP, "mode": "wild"},
            "mode",
        ),
    ],
)
async def test_the_fake_refuses_what_the_schemas_do_not_take(
    fal: tuple[FalFake, str],
    monkeypatch: pytest.MonkeyPatch,
    app: str,
    arguments: dict[str, Any],
    field: str,
) -> None:
    _, url = fal
    monkeypatch.setattr(fal_client.client, "QUEUE_URL_FORMAT", f"{url}/")
    with pytest.raises(fal_client.FalClientHTTPError) as refused:
        await _result(url, app, arguments)
    assert refused.value.status_code == 422
    assert [p["loc"] for p in refused.value.response.json()["detail"]] == [["body", field]]


async def test_a_source_fal_cannot_fetch_is_refused_at_create(tmp_path: Path) -> None:
    await assert_unfetchable_source_refused(BY_NAME["fal"], tmp_path)


async def _ended(run: Run, key: NewKey, **body: Any) -> dict[str, Any]:
    created = await run.app.create(key, prompt="a fox at night", **body)
    assert created.status_code == 202, created.text
    return await run.app.wait_for(key, created.json()["id"], timeout=60)


async def test_each_type_is_priced_at_its_own_rate(tmp_path: Path) -> None:
    """A Kling O3 edit costs the edit app's $0.336/s over the source's second; a Veo 3.1
    extension its 7 s at 720p with sound ($0.40/s), the whole video answered by fal."""
    async with media_host() as media, started(BY_NAME["fal"], tmp_path) as run:
        key = await run.app.new_key()
        edit = await _ended(
            run, key, model="kling-v3-omni", type="video-to-video", video={"url": media.video}
        )
        extended = await _ended(
            run, key, model="veo-3.1", type="video-extend", duration=7, video={"url": media.video}
        )
    assert edit["status"] == "completed" and edit["cost"]["amount"] == pytest.approx(0.336)
    assert extended["status"] == "completed", extended
    assert extended["cost"]["amount"] == pytest.approx(7 * 0.40)


async def test_what_kling_cannot_take_beside_a_video_is_refused_before_fal(
    tmp_path: Path,
) -> None:
    """Kling's edit takes 4 images beside its source (7 without) and makes no sound: a fifth
    image, or asking for sound, fails the generation with invalid_input and fal runs nothing."""
    async with media_host() as media, started(BY_NAME["fal"], tmp_path) as run:
        key = await run.app.new_key()
        image = {"type": "image", "url": media.image}
        edit = {"model": "kling-v3-omni", "type": "video-to-video", "video": {"url": media.video}}
        five = await _ended(run, key, **edit, references=[image] * 5)
        sound = await _ended(run, key, **edit, generate_audio=True)
        references = await _ended(
            run, key, model="kling-v3-omni", type="reference-to-video", references=[image] * 7
        )
    assert_failed(five, "invalid_input")
    assert_failed(sound, "invalid_input")
    assert references["status"] == "completed", references
    assert [app for app, _ in run.fake.submissions] == [KLING_R2V]


def _typed_request(model: ModelSpec, route: Route, kind: str) -> ProviderRequest:
    """One request of `kind` for `route`: a reference of each kind it takes, or a 1 s
    source, at the length that type asks (an extension: the seconds it adds)."""
    urls = {"image": FACE, "video": CLIP, "audio": "https://media.example.com/a.wav"}
    references = tuple(
        ProviderMedia(k, urls[k], "application/octet-stream")
        for k in (route.inputs.references or {})
        if kind != "video-extend"
    )
    source = None
    if kind in ("video-to-video", "video-extend"):
        source = ProviderSource(ProviderMedia("video", CLIP, "video/mp4"), 1.0)
    extend = route.inputs.extend_durations or (4,)
    seconds = extend[0] if kind == "video-extend" else model.default_duration
    ratios = [a for a in model.aspect_ratios if a in (route.aspect_ratios or [a])]
    return ProviderRequest(
        f"gen_{kind}",
        route.provider_model,
        "a fox",
        seconds,
        ratios[0],
        None,
        route.options,
        type=kind,
        references=references if kind != "video-to-video" else references[:1],
        source=source,
    )


async def test_every_typed_fal_route_sends_an_input_its_app_accepts(
    fal: tuple[FalFake, str],
) -> None:
    """Each reference, edit and extension type of every fal route in the catalog, mapped by
    the adapter, is an input its app's schema takes (the fake refuses any other field)."""
    fake, url = fal
    fake.polls_to_finish = 0
    checked: set[str] = set()
    provider = FalProvider(AdapterConfig(url, {"FAL_KEY": KEY}.get))
    try:
        for model in load_catalog().models:
            for route in (r for r in model.routes if r.provider == "fal"):
                for kind in set(route.inputs.types or ()) & set(TYPED):
                    request = _typed_request(model, route, kind)
                    status = await until_ended(provider, await provider.submit(request))
                    assert status.error is None, (model.id, kind, status.error)
                    checked.add(fake.submissions[-1][0])
    finally:
        await provider.aclose()
    assert {VEO_EXTEND, "fal-ai/veo3.1/fast/extend-video", KLING_R2V, KLING_EDIT} <= checked
    assert {"fal-ai/kling-video/o1/reference-to-video", VIDU_R2V} <= checked
