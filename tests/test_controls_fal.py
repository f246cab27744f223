"""fal's controls (issue 13): each route's declared fields reach its app under the names the
app's schema uses, and the fake (which checks every input like fal's apps) accepts them."""

from __future__ import annotations

from tests.fakes.fal import APPS, FalFake
from tests.support import host_controls as host
from tests.support.providers import adapter_fixture, until_ended
from vidrouter.domain.controls import Controls
from vidrouter.providers.base import JobState
from vidrouter.providers.fal.adapter import FalProvider

KEY = "test-key"

fal = adapter_fixture(
    lambda: FalFake(api_key=KEY, polls_to_finish=0), FalProvider, {"FAL_KEY": KEY}
)


async def test_every_configuration_of_every_route_is_accepted_by_its_app(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    for _, request in host.every_configuration("fal"):
        status = await until_ended(provider, await provider.submit(request))
        assert status.state is JobState.SUCCEEDED, (request.model, request.controls, status.error)
        [app, body] = fake.submissions[-1]
        assert app in APPS
        controls = request.controls
        for name in ("negative_prompt", "seed", "enhance_prompt"):
            if getattr(controls, name) is not None:
                host.sent(request, body, name, getattr(controls, name))


async def test_veo_takes_each_control_under_its_own_name(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    controls = Controls("1080p", False, "blurry", 42)
    await provider.submit(host.request("fal", "veo-3.1", controls, None))
    assert fake.submissions[-1] == (
        "fal-ai/veo3.1",
        {
            "prompt": "a fox",
            "duration": "8s",
            "aspect_ratio": "16:9",
            "resolution": "1080p",
            "generate_audio": False,
            "negative_prompt": "blurry",
            "seed": 42,
        },
    )


async def test_kling_v3_sends_the_end_frame_to_the_image_app_as_end_image_url(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    controls = Controls("1080p", True, "no text", end_image_url=host.END_URI)
    await provider.submit(host.request("fal", "kling-v3", controls, host.PNG_URI))
    app, body = fake.submissions[-1]
    assert app == "fal-ai/kling-video/v3/pro/image-to-video"
    assert {k: body[k] for k in ("start_image_url", "end_image_url", "generate_audio")} == {
        "start_image_url": host.PNG_URI,
        "end_image_url": host.END_URI,
        "generate_audio": True,
    }
    assert body["negative_prompt"] == "no text"


async def test_hailuo_takes_enhance_prompt_as_prompt_optimizer(
    fal: tuple[FalFake, FalProvider],
) -> None:
    fake, provider = fal
    await provider.submit(
        host.request("fal", "hailuo-02", Controls("768p", False, enhance_prompt=False), None)
    )
    assert fake.submitted[-1] == {"prompt": "a fox", "duration": "6", "prompt_optimizer": False}


async def test_an_input_the_app_does_not_take_fails_the_run_as_fal_reports_it(
    fal: tuple[FalFake, FalProvider],
) -> None:
    """The fake checks like fal's apps: an unknown input is pydantic's extra_forbidden."""
    _, provider = fal
    request = host.seeded(
        "fal-ai/minimax/hailuo-02/standard/text-to-video",
        6,
        {"aspect_ratio_field": "", "field.seed": "seed"},
    )
    status = await until_ended(provider, await provider.submit(request))
    assert status.state is JobState.FAILED
    assert status.error is not None and status.error.code == "invalid_input"
    assert "Extra inputs are not permitted" in status.error.message
