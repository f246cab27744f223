"""Input images are fetched once through the guard (or decoded), checked, and kept in our
storage before any provider sees them."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.support.harness import running, test_settings
from tests.support.servers import serve_app

CATALOG = """
[[models]]
id = "animate"
name = "Animate"
provider = "Example Co"
type = "text-to-video"
capabilities = ["text-to-video", "image-to-video"]
max_duration = 4
default_duration = 1
aspect_ratios = ["16:9"]
  [[models.routes]]
  provider = "local"
  model = "title-card"
  price_per_second = 0.0
"""


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


def _settings(tmp_path: Path, **kw: object) -> object:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(CATALOG)
    return test_settings(tmp_path / "data", catalog=catalog, **kw)  # type: ignore[arg-type]


async def test_url_image_is_fetched_once_and_stored(tmp_path: Path) -> None:
    hits: list[str] = []
    async with serve_app(_image_server(hits)) as images, running(_settings(tmp_path)) as app:  # type: ignore[arg-type]
        key = await app.new_key()
        r = await app.create(key, model="animate", prompt="p", image_url=f"{images}/frame.png")
        done = await app.wait_for(key, r.json()["id"])
        assert done["status"] == "completed", done
        stored = app.service.storage.local_path(f"inputs/{done['id']}.png")
        assert stored is not None and stored.read_bytes() == _png()
    assert hits == ["/frame.png"]


async def test_data_uri_image_is_stored(tmp_path: Path) -> None:
    uri = "data:image/png;base64," + base64.b64encode(_png()).decode()
    async with running(_settings(tmp_path)) as app:  # type: ignore[arg-type]
        key = await app.new_key()
        r = await app.create(key, model="animate", prompt="p", image_url=uri)
        done = await app.wait_for(key, r.json()["id"])
        assert done["status"] == "completed"
        stored = app.service.storage.local_path(f"inputs/{done['id']}.png")
        assert stored is not None and stored.read_bytes() == _png()


async def test_not_an_image_fails_invalid_input_before_any_provider(tmp_path: Path) -> None:
    hits: list[str] = []
    async with serve_app(_image_server(hits)) as images, running(_settings(tmp_path)) as app:  # type: ignore[arg-type]
        key = await app.new_key()
        r = await app.create(key, model="animate", prompt="p", image_url=f"{images}/page.png")
        done = await app.wait_for(key, r.json()["id"])
    assert done["status"] == "failed"
    assert done["error"]["code"] == "invalid_input"
    assert done["route"] is None and done["attempts"] == []


async def test_private_image_urls_are_refused_when_private_addresses_are(
    tmp_path: Path,
) -> None:
    hits: list[str] = []
    settings = _settings(tmp_path, allow_private_webhook_urls=False)
    async with serve_app(_image_server(hits)) as images, running(settings) as app:  # type: ignore[arg-type]
        key = await app.new_key()
        r = await app.create(key, model="animate", prompt="p", image_url=f"{images}/frame.png")
        done = await app.wait_for(key, r.json()["id"])
    assert done["status"] == "failed" and done["error"]["code"] == "invalid_input"
    assert hits == []  # never requested
