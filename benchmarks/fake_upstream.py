"""A lean OpenAI-style `/v1/videos` upstream for benchmarks: every job is done at once.

Raw ASGI on uvicorn (uvloop, httptools), so that it is never what a benchmark measures
(its own rates are measured alone in the same run). Speaks just enough of the wire format
for vidrouter's `openai_videos` adapter and LiteLLM's video routes:

- `POST /v1/videos` (JSON or multipart, not parsed beyond its size): a `queued` video;
- `GET /v1/videos/{id}`: the same video, `completed`;
- `GET /v1/videos/{id}/content`: a small real MP4 (the same bytes for every job);
- `GET /static/video.mp4`: those bytes as a plain static file (the "fake's own" rate);
- `POST /hook`: a webhook receiver; it counts what it got (`GET /hook/count`).

With `--never-finish` every job stays `in_progress`, and the time of each job's first
poll is kept (`GET /polls`: `{job id: unix time}`), for the waiting benchmark.

    python benchmarks/fake_upstream.py --port 9100 [--video PATH] [--never-finish]
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_ids = itertools.count(1)
_hooks = 0
_video = b""
_never_finish = False
_first_polls: dict[str, float] = {}


def _video_object(video_id: str, status: str) -> bytes:
    done = status == "completed"
    progress = 100 if done else (0 if status == "queued" else 50)
    return json.dumps(
        {
            "id": video_id,
            "object": "video",
            "model": "sora-2",
            "status": status,
            "progress": progress,
            "created_at": int(time.time()),
            "completed_at": int(time.time()) if done else None,
            "expires_at": None,
            "error": None,
            "prompt": "p",
            "remixed_from_video_id": None,
            "seconds": "4",
            "size": "1280x720",
        }
    ).encode()


async def _answer(send: Send, status: int, body: bytes, kind: bytes = b"application/json") -> None:
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    if kind == b"application/json":
        headers.append((b"x-request-id", b"req_bench"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _drain(receive: Receive) -> None:
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    global _hooks
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    path: str = scope["path"]
    method: str = scope["method"]
    if method == "POST":
        await _drain(receive)
        if path.endswith("/videos"):
            await _answer(send, 200, _video_object(f"video_{next(_ids):012d}", "queued"))
        elif path == "/hook":
            _hooks += 1
            await _answer(send, 200, b"{}")
        else:
            await _answer(send, 404, b'{"error": {"message": "not found"}}')
        return
    if path == "/static/video.mp4" or path.endswith("/content"):
        await _answer(send, 200, _video, b"video/mp4")
    elif path == "/hook/count":
        await _answer(send, 200, json.dumps({"count": _hooks}).encode())
    elif path == "/polls":
        await _answer(send, 200, json.dumps(_first_polls).encode())
    elif path.startswith("/v1/videos/") or path.startswith("/videos/"):
        video_id = path.rsplit("/", 1)[1]
        if _never_finish:
            _first_polls.setdefault(video_id, time.time())
        status = "in_progress" if _never_finish else "completed"
        await _answer(send, 200, _video_object(video_id, status))
    else:
        await _answer(send, 404, b'{"error": {"message": "not found"}}')


def sample_video() -> bytes:
    """A small real H.264 MP4 (about 6 KB), made with PyAV."""
    import tempfile

    import av
    import numpy as np

    out = Path(tempfile.mkdtemp()) / "video.mp4"
    with av.open(str(out), "w", format="mp4", options={"movflags": "+faststart"}) as container:
        stream = container.add_stream("libx264", rate=24)
        stream.width, stream.height, stream.pix_fmt = 320, 180, "yuv420p"
        for n in range(24):
            frame = np.full((180, 320, 3), (n * 10) % 255, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    data = out.read_bytes()
    out.unlink()
    return data


if __name__ == "__main__":
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument("--video", type=Path, default=None)
    parser.add_argument("--never-finish", action="store_true")
    args = parser.parse_args()
    _never_finish = args.never_finish
    _video = args.video.read_bytes() if args.video else sample_video()
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        loop="uvloop",
        http="httptools",
        backlog=4096,
    )
