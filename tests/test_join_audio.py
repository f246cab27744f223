"""A joined video's sound (engine/join_audio.py): one track as long as the video, the
extension's sound starting with its first frame, silence where a part has none."""

from __future__ import annotations

from pathlib import Path

import av
import pytest

from tests.support.harness import Harness
from tests.support.servers import serve_clip
from tests.support.video import clip_with_sound, sound_of, tone_at
from vidrouter.engine.join import join_videos

A, B = 440.0, 1000.0


def joined(
    tmp: Path,
    first: float | None,
    second: float | None,
    *,
    first_sound: float | None = None,
    second_size: tuple[int, int] = (160, 96),
) -> tuple[Path, bool]:
    source, extension, out = tmp / "source.mp4", tmp / "more.mp4", tmp / "whole.mp4"
    clip_with_sound(source, 2.0, first, sound_seconds=first_sound)
    clip_with_sound(extension, 1.0, second, width=second_size[0], height=second_size[1])
    return out, join_videos(source, extension, out)


@pytest.mark.parametrize("size", [(160, 96), (320, 192)], ids=["copied", "re-encoded"])
def test_both_parts_sound_in_step(tmp_path: Path, size: tuple[int, int]) -> None:
    out, copied = joined(tmp_path, A, B, second_size=size)
    assert copied is (size == (160, 96))
    rate, samples, video_end = sound_of(out)
    assert abs(video_end - 3.0) < 0.05, video_end
    assert abs(len(samples) / rate - video_end) < 0.05, (len(samples) / rate, video_end)
    assert abs(tone_at(rate, samples, 1.7) - A) < 15  # the source's, to its last frame
    assert abs(tone_at(rate, samples, 2.03) - B) < 15  # the extension's, from its first
    assert abs(tone_at(rate, samples, 2.7) - B) < 15
    with av.open(str(out)) as container:
        assert len(container.streams.audio) == 1 and len(container.streams.video) == 1


def test_a_silent_extension_gets_silence(tmp_path: Path) -> None:
    """The local renderer's extensions have no sound: the track goes on, silent."""
    out, copied = joined(tmp_path, A, None)
    assert copied
    rate, samples, video_end = sound_of(out)
    assert abs(len(samples) / rate - video_end) < 0.05, (len(samples) / rate, video_end)
    assert abs(tone_at(rate, samples, 1.5) - A) < 15
    assert tone_at(rate, samples, 2.1, 0.8) == 0.0


def test_a_silent_source_gets_silence_before_the_extensions_sound(tmp_path: Path) -> None:
    out, _ = joined(tmp_path, None, B)
    rate, samples, video_end = sound_of(out)
    assert abs(len(samples) / rate - video_end) < 0.05
    assert tone_at(rate, samples, 0.2, 1.6) == 0.0
    assert abs(tone_at(rate, samples, 2.05) - B) < 15


def test_a_short_sound_track_is_padded_so_the_extension_stays_in_step(tmp_path: Path) -> None:
    """The source's sound stops a second before its video: silence fills the second, and
    the extension's sound still starts with its first frame (not where the source's
    sound stopped)."""
    out, _ = joined(tmp_path, A, B, first_sound=1.0)
    rate, samples, _ = sound_of(out)
    assert abs(tone_at(rate, samples, 0.5) - A) < 15
    assert tone_at(rate, samples, 1.2, 0.6) == 0.0
    assert abs(tone_at(rate, samples, 2.03) - B) < 15


def test_neither_with_sound_makes_no_track(tmp_path: Path) -> None:
    out, _ = joined(tmp_path, None, None)
    with av.open(str(out)) as container:
        assert not container.streams.audio


async def test_an_extension_of_a_source_with_sound_keeps_it(app: Harness, tmp_path: Path) -> None:
    """End to end: local-preview (silent) extends a source with sound: the whole video
    has the source's sound, then silence to its end."""
    clip = tmp_path / "clip.mp4"
    clip_with_sound(clip, 1.0, A, width=320, height=192)

    key = await app.new_key()
    async with serve_clip(clip.read_bytes()) as url:
        done = await app.generate(
            key,
            model="local-preview",
            prompt="on",
            type="video-extend",
            duration=1,
            video={"url": url},
        )
    assert done["status"] == "completed", done
    whole = tmp_path / "whole.mp4"
    whole.write_bytes((await app.client.get(done["video_url"])).content)
    rate, samples, video_end = sound_of(whole)
    assert abs(video_end - 2.0) < 0.05, video_end
    assert abs(len(samples) / rate - video_end) < 0.05, (len(samples) / rate, video_end)
    assert abs(tone_at(rate, samples, 0.5) - A) < 15
    assert tone_at(rate, samples, 1.1, 0.8) == 0.0
