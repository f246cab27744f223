"""Luma's Dream Machine API: the resolution and the end frame (`keyframes.frame1`), with
non-default values (docs/providers/luma.md, "Controls")."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.contract.controls import ControlsCase
from tests.support.images import png


def _image_host() -> str:
    """A PNG served on loopback for as long as the tests run. Luma takes keyframes only as
    URLs it fetches itself (so does our engine, once, before any provider), and a case's body
    is fixed before any fixture runs: the URL must answer from the start."""
    image = png(64, 36)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(image)))
            self.end_headers()
            self.wfile.write(image)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test output is no access log."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, name="luma-keyframes", daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}"


HOST = _image_host()
START, END = f"{HOST}/start.png", f"{HOST}/end.png"


def _expect(resolution: str) -> Callable[[Mapping[str, Any]], None]:
    def expect(body: Mapping[str, Any]) -> None:
        assert body["resolution"] == resolution
        assert body["keyframes"] == {
            "frame0": {"type": "image", "url": START},
            "frame1": {"type": "image", "url": END},
        }
        assert not {"seed", "negative_prompt", "audio", "generate_audio"} & set(body)

    return expect


def _case(model: str, resolution: str) -> ControlsCase:
    return ControlsCase(
        provider="luma",
        model=model,
        body={"resolution": resolution, "image_url": START, "end_image_url": END},
        expect=_expect(resolution),
        unsupported=(
            "resolution",
            "generate_audio",
            "negative_prompt",
            "seed",
            "enhance_prompt",
        ),
        duration=9,
    )


CASES: list[ControlsCase] = [_case("ray-2", "1080p"), _case("ray-flash-2", "540p")]
