"""Input images are fetched once through the guard (or decoded), checked, and kept in our
storage before any provider sees them."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.support.catalogs import local_model
from tests.support.harness import Harness, running, test_settings
from tests.support.servers import serve_app
from vidrouter.engine.circuits import BreakerPolicy
from vidrouter.settings import Settings

CATALOG = local_model(
    "animate",
    0.0,
    name="Animate",
    capabilities=["text-to-video", "image-to-video"],
    max_duration=4,
    default_duration=1,
    aspect_ratios=["16:9"],
)


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 36), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def _image_server(hits: list[str]) -> Starlette:
    async def image(request: Request) -> Response:
        hits.append(request.url.path)
        if request.url.path.endswith("page.png"):
            return Response(b"<html>not an image</html>", media_type="image/png")
        return Response(_png(), media_type="image/png")

    return Starlette(routes=[Route("/{name}", image)])


async def _animate(app: Harness, image_url: str) -> dict[str, Any]:
    return await app.generate(model="animate", prompt="p", image_url=image_url, timeout=60)


def _stored_input(app: Harness, done: dict[str, Any]) -> bytes | None:
    stored = app.service.storage.local_path(f"inputs/{done['id']}.png")
    return None if stored is None else stored.read_bytes()


def _settings(tmp_path: Path, **kw: Any) -> Settings:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(CATALOG)
    return test_settings(tmp_path / "data", catalog=catalog, **kw)


async def test_url_image_is_fetched_once_and_stored(tmp_path: Path) -> None:
    hits: list[str] = []
    async with serve_app(_image_server(hits)) as images, running(_settings(tmp_path)) as app:
        done = await _animate(app, f"{images}/frame.png")
        assert done["status"] == "completed", done
        assert _stored_input(app, done) == _png()
    assert hits == ["/frame.png"]


async def test_data_uri_image_is_stored(tmp_path: Path) -> None:
    uri = "data:image/png;base64," + base64.b64encode(_png()).decode()
    async with running(_settings(tmp_path)) as app:
        done = await _animate(app, uri)
        assert done["status"] == "completed"
        assert _stored_input(app, done) == _png()


async def test_not_an_image_fails_invalid_input_before_any_provider(tmp_path: Path) -> None:
    hits: list[str] = []
    async with serve_app(_image_server(hits)) as images, running(_settings(tmp_path)) as app:
        done = await _animate(app, f"{images}/page.png")
    assert done["status"] == "failed"
    assert done["error"]["code"] == "invalid_input"
    assert done["route"] is None and done["attempts"] == []


async def test_an_image_that_does_not_decode_fails_it_and_never_the_route(tmp_path: Path) -> None:
    """A PNG signature over garbage passes the checks at accept; the renderer cannot decode
    it. That is the user's input failing (`invalid_input`), not the route: more of them than
    the breaker's threshold leave local-preview serving everyone else."""
    broken = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    uri = "data:image/png;base64," + base64.b64encode(broken).decode()
    async with running(_settings(tmp_path)) as app:
        key = await app.new_key()
        for _ in range(BreakerPolicy().threshold + 1):
            done = await app.generate(key, model="animate", prompt="p", image_url=uri)
            assert done["status"] == "failed", done
            assert done["error"]["code"] == "invalid_input", done["error"]
        good = "data:image/png;base64," + base64.b64encode(_png()).decode()
        assert (await _animate(app, good))["status"] == "completed"


async def test_private_image_urls_are_refused_when_private_addresses_are(
    tmp_path: Path,
) -> None:
    hits: list[str] = []
    settings = _settings(tmp_path, allow_private_webhook_urls=False)
    async with serve_app(_image_server(hits)) as images, running(settings) as app:
        done = await _animate(app, f"{images}/frame.png")
    assert done["status"] == "failed" and done["error"]["code"] == "invalid_input"
    assert hits == []  # never requested
