"""Input images for the tests: real PNGs, data URIs and a server that hosts them."""

from __future__ import annotations

import base64
import contextlib
import io
import struct
import zlib
from collections.abc import AsyncIterator

from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.support.servers import serve_app


def png(width: int = 64, height: int = 36, *, padding: int = 0) -> bytes:
    """A real PNG (8-bit grey) of that size; `padding` bytes of tEXt make a big file of it."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    text = chunk(b"tEXt", b"c\x00" + b"x" * padding) if padding else b""
    idat = chunk(b"IDAT", zlib.compress(rows))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + idat + text + chunk(b"IEND", b"")


def solid_png(rgb: tuple[int, int, int], side: int = 64) -> bytes:
    """A PNG of one colour (what the local renderer's reference tests look for)."""
    out = io.BytesIO()
    Image.new("RGB", (side, side), rgb).save(out, "PNG")
    return out.getvalue()


def data_uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode()


@contextlib.asynccontextmanager
async def image_host(image: bytes | None = None) -> AsyncIterator[str]:
    """Serves `/frame.png` (the image, a small PNG by default), `/page.png` (an HTML page, not
    an image) and `/once.png` (the image once, then 404: a URL that expires)."""
    served = png(2, 2) if image is None else image
    fetched: list[str] = []

    async def frame(_: Request) -> Response:
        return Response(served, media_type="image/png")

    async def page(_: Request) -> Response:
        return Response(b"<html>nope</html>", media_type="text/html")

    async def once(_: Request) -> Response:
        fetched.append("once")
        if len(fetched) > 1:
            return Response(b"expired", status_code=404)
        return Response(served, media_type="image/png")

    routes = [Route("/frame.png", frame), Route("/page.png", page), Route("/once.png", once)]
    async with serve_app(Starlette(routes=routes)) as url:
        yield url
