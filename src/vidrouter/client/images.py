"""An `image` argument as the API takes it: a URL as it is, a local file as a data: URI."""

from __future__ import annotations

import base64
from pathlib import Path

from vidrouter.client.errors import ClientError

_KINDS = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))


def is_remote(image: str | Path) -> bool:
    return isinstance(image, str) and image.startswith(("http://", "https://", "data:"))


def read_file(path: Path, what: str = "the file") -> bytes:
    """A local file whole (a character's clip), or ClientError naming what it was for."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ClientError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc


def image_url(image: str | Path) -> str:
    """`image` itself when it is an http(s) or data: URL, else the file it names as a
    `data:image/...;base64,` URI (the API takes PNG and JPEG)."""
    if is_remote(image):
        return str(image)
    path = Path(image)
    data = read_file(path, "the image")
    for magic, media_type in _KINDS:
        if data.startswith(magic):
            return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"
    raise ClientError(f"{path} is not a PNG or JPEG image")
