"""Each generation type on `local-preview`, end to end through the HTTP API, with what
shows that each was really made: the same checks on every database and every storage."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests.support.harness import Harness
from tests.support.images import data_uri, solid_png
from tests.support.video import decode, frame_rgb, reference_rgb

RED = (230, 20, 20)


async def every_type_on_local_preview(app: Harness, tmp_path: Path) -> None:
    """text-to-video, reference-to-video (the reference drawn into the frames),
    video-to-video (as long as its source) and video-extend (the whole video)."""
    key = await app.new_key()
    key = await app.new_key()
    # text-to-video: inferred, and shown.
    plain = await app.generate(key, model="local-preview", prompt="a fox", duration=1)
    assert plain["type"] == "text-to-video" and plain["references"] == [] and plain["video"] is None
    source = decode(await app.video(plain), tmp_path)

    # reference-to-video: inferred from references; the image is drawn into every frame.
    ref = await app.generate(
        key,
        model="local-preview",
        prompt="a fox with this ball",
        duration=0.5,
        references=[{"type": "image", "url": data_uri(solid_png(RED))}],
    )
    assert ref["type"] == "reference-to-video", ref
    assert ref["references"][0]["type"] == "image"
    patch = reference_rgb(frame_rgb(await app.video(ref), tmp_path, 0))
    assert patch[0] > 170 and patch[1] < 80 and patch[2] < 80, patch  # the red reference

    # video-to-video: the source's frames re-rendered, as long as the source.
    of_plain = partial(
        app.generate, key, model="local-preview", video={"generation_id": plain["id"]}
    )
    edit = await of_plain(prompt="at night", type="video-to-video", duration=5)
    assert edit["type"] == "video-to-video" and edit["video"] == {"generation_id": plain["id"]}
    edited = decode(await app.video(edit), tmp_path)
    assert edited.frames == source.frames

    # video-extend: duration is the seconds added; the result is the whole video.
    extend = await of_plain(prompt="it runs on", type="video-extend", duration=0.5)
    assert extend["type"] == "video-extend" and extend["duration"] == 0.5
    whole = decode(await app.video(extend), tmp_path)
    assert whole.frames == source.frames + 12  # 24 fps: the source, then half a second
    assert (whole.width, whole.height) == (source.width, source.height)
    # Priced at the seconds added (local-preview is free, so the estimate is 0 for both).
    assert extend["estimated_cost"]["amount"] == 0
