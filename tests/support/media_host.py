"""A loopback server of input media for the input-type tests: an image, a video and a sound
(the test settings let loopback URLs through the SSRF guard)."""

from __future__ import annotations

import contextlib
import io
import math
import struct
import wave
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.fakes.base import sample_mp4
from tests.support.contract.inputs import Media
from tests.support.images import png
from tests.support.servers import serve_app


def wav(seconds: float = 1.0, rate: int = 16_000) -> bytes:
    """A mono 16-bit WAV of a 440 Hz tone."""
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * n / rate)))
        for n in range(int(seconds * rate))
    )
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


@contextlib.asynccontextmanager
async def media_host() -> AsyncIterator[Media]:
    image, video, audio = png(640, 360), sample_mp4(), wav()
    served = {
        "/ref.png": (image, "image/png"),
        "/clip.mp4": (video, "video/mp4"),
        "/tone.wav": (audio, "audio/wav"),
    }

    async def serve(request: Request) -> Response:
        data, mime = served[request.url.path]
        return Response(data, media_type=mime)

    app = Starlette(routes=[Route(path, serve) for path in served])
    async with serve_app(app) as url:
        yield Media(
            image=f"{url}/ref.png",
            image_bytes=image,
            video=f"{url}/clip.mp4",
            video_bytes=video,
            audio=f"{url}/tone.wav",
            audio_bytes=audio,
        )
