"""Wan's references, edits and continuations: the dashscope SDK sends them to the fake, the
fake refuses what DashScope does not take, and our API refuses what it cannot send."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dashscope
import pytest
from dashscope import VideoSynthesis

from tests.fakes.wan import FakeWan
from tests.support.contract.cases import BY_NAME
from tests.support.contract.run import assert_unfetchable_source_refused, started
from tests.support.media_host import media_host
from tests.support.servers import serve_app_in_thread

KEY = "test-key"
# wan2.1-vace-plus as an operator adds it (docs/providers/wan.md): the built-in catalog lists
# no model without text-to-video.
VACE_MODEL = """
[[models]]
id = "wan-2.1-vace"
name = "Wan 2.1 VACE Plus"
description = "Alibaba's Wan 2.1 VACE: a 5 second, 720p silent video from up to 3 reference images of subjects, or a source video repainted in the prompt's look while keeping its composition and motion."
provider = "Alibaba"
type = "reference-to-video"
# wan2.1-vace-plus `image_reference` (1-3 images) and `video_repainting` (the source's depth by
# default; route option `control_condition`). Its `video_edit` needs a mask and its
# `video_extension` makes 5 s with the clip inside (not the seconds asked): neither is mapped.
capabilities = ["reference-to-video", "video-to-video"]
max_references = { image = 3 }
max_source_seconds = 5  # unconfirmed: VACE works on clips of about 5 s
max_source_mb = 50  # unconfirmed
max_duration = 5
default_duration = 5
durations = [5]
aspect_ratios = ["16:9", "9:16", "1:1"]
resolutions = ["720p"]
audio = false
supports = ["negative_prompt", "seed", "enhance_prompt"]
max_seed = 2147483647  # DashScope: 0..2^31-1
max_negative_prompt_chars = 500

  [[models.routes]]
  provider = "wan"
  model = "wan2.1-vace-plus"
  price_per_second = 0.10  # Model Studio Singapore list price (docs/providers/wan.md)
"""
CLIP = "https://media.example.com/clip.mp4"
FACE = "https://media.example.com/face.png"


def _call(monkeypatch: pytest.MonkeyPatch, fake: FakeWan, **body: Any) -> Any:
    with serve_app_in_thread(fake.app) as url:
        monkeypatch.setattr(dashscope, "base_http_api_url", url + "/api/v1")
        created = VideoSynthesis.async_call(api_key=KEY, **body)
        if created.status_code != 200:
            return created
        return VideoSynthesis.wait(created, api_key=KEY)


@pytest.mark.parametrize(
    "body",
    [
        {"model": "wan2.6-r2v", "reference_urls": [CLIP, FACE], "size": "1280*720", "duration": 5},
        {
            "model": "wan2.7-r2v",
            "media": [
                {"type": "reference_image", "url": FACE},
                {"type": "reference_video", "url": CLIP},
            ],
            "resolution": "720P",
            "ratio": "16:9",
        },
        {
            "model": "wan2.7-videoedit",
            "media": [{"type": "video", "url": CLIP}, {"type": "reference_image", "url": FACE}],
            "resolution": "720P",
            "audio_setting": "origin",
        },
        {"model": "wan2.7-i2v", "media": [{"type": "first_clip", "url": CLIP}], "duration": 12},
        {
            "model": "wan2.1-vace-plus",
            "extra_input": {
                "function": "image_reference",
                "ref_images_url": [FACE],
                "obj_or_bg": ["obj"],
            },
            "size": "1280*720",
        },
        {
            "model": "wan2.1-vace-plus",
            "extra_input": {
                "function": "video_repainting",
                "video_url": CLIP,
                "control_condition": "depth",
            },
        },
    ],
    ids=["2.6-r2v", "2.7-r2v", "2.7-videoedit", "2.7-continuation", "vace-refs", "vace-repaint"],
)
def test_the_sdk_sends_each_typed_model_the_fake_accepts(
    monkeypatch: pytest.MonkeyPatch, body: dict[str, Any]
) -> None:
    fake = FakeWan(api_key=KEY)
    done = _call(monkeypatch, fake, prompt="character1 dances", **body)
    assert done.status_code == 200, done
    assert done.output.task_status == "SUCCEEDED" and done.output.video_url
    assert fake.submitted[0]["model"] == body["model"]


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ({"model": "wan2.6-r2v", "reference_urls": [CLIP] * 6}, "1 to 5"),
        ({"model": "wan2.6-r2v", "reference_urls": [CLIP], "duration": 15}, "duration"),
        ({"model": "wan2.7-videoedit", "media": [{"type": "first_clip", "url": CLIP}]}, "type"),
        ({"model": "wan2.7-r2v", "media": [{"type": "reference_audio", "url": CLIP}]}, "type"),
        (
            {
                "model": "wan2.1-vace-plus",
                "extra_input": {"function": "video_edit", "video_url": CLIP},
            },
            "function",
        ),
        ({"model": "wan2.7-r2v", "reference_urls": [CLIP]}, "reference_urls"),
    ],
)
def test_the_fake_refuses_what_dashscope_does_not_take(
    monkeypatch: pytest.MonkeyPatch, body: dict[str, Any], word: str
) -> None:
    fake = FakeWan(api_key=KEY)
    refused = _call(monkeypatch, fake, prompt="x", **body)
    assert refused.status_code == 400
    assert refused.code == "InvalidParameter" and word in refused.message
    assert fake.submitted == []


async def test_a_continuation_too_long_in_all_fails_before_the_model_runs(
    tmp_path: Path,
) -> None:
    """wan2.7 continues to 15 s in all: a 1 s source cannot take 15 s more. The adapter
    refuses it as invalid input without a task being made."""
    async with media_host() as media, started(BY_NAME["wan"], tmp_path) as run:
        done = await run.generate(
            model="wan-2.7",
            type="video-extend",
            video={"url": media.video},
            duration=15,
        )
    assert done["status"] == "failed", done
    assert done["error"]["code"] == "invalid_input"
    assert "15 s in all" in done["error"]["message"]
    assert run.fake.submitted == []


async def test_a_source_dashscope_cannot_fetch_is_refused_at_create(tmp_path: Path) -> None:
    """Our own generation as the source while our public URL is loopback: DashScope fetches by
    URL (its OSS upload is not wired), so the create is a 400 naming `video`."""
    await assert_unfetchable_source_refused(BY_NAME["wan"], tmp_path, "wan-2.7", 2)


@pytest.mark.parametrize("kind", ["reference-to-video", "video-to-video"])
async def test_vace_references_and_repainting(kind: str, tmp_path: Path) -> None:
    operator = tmp_path / "vace.toml"
    operator.write_text(VACE_MODEL)
    async with media_host() as media, started(BY_NAME["wan"], tmp_path, catalog=operator) as run:
        body: dict[str, Any] = {"model": "wan-2.1-vace", "type": kind}
        if kind == "reference-to-video":
            body["references"] = [{"type": "image", "url": media.image}] * 2
        else:
            body["video"] = {"url": media.video}
        done = await run.generate(**body)
    assert done["status"] == "completed", done
    [sent] = run.fake.submitted
    assert sent["model"] == "wan2.1-vace-plus"
    if kind == "reference-to-video":
        assert sent["input"]["function"] == "image_reference"
        assert sent["input"]["ref_images_url"] == [media.image, media.image]
        assert sent["input"]["obj_or_bg"] == ["obj", "obj"]
        assert sent["parameters"]["size"] == "1280*720"
    else:
        assert sent["input"]["function"] == "video_repainting"
        assert sent["input"]["video_url"] == media.video
        assert sent["input"]["control_condition"] == "depth"
        assert "size" not in sent["parameters"] and "duration" not in sent["parameters"]
