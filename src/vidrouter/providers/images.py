"""Input images for image-to-video: a `data:` URI decoded, or an http(s) URL fetched through
the outbound guard, checked to be a PNG or JPEG of bounded size."""

from __future__ import annotations

import base64
import binascii

import httpx

from vidrouter.net.guard import ForbiddenAddress, check_url
from vidrouter.providers.base import InvalidInput, ProviderUnavailable

MAX_IMAGE_BYTES = 20 * 1024 * 1024
_SIGNATURES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}


def sniff(data: bytes) -> str:
    for magic, mime in _SIGNATURES.items():
        if data.startswith(magic):
            return mime
    raise InvalidInput("the image is neither PNG nor JPEG")


def decode_data_uri(uri: str) -> tuple[bytes, str]:
    header, _, payload = uri.partition(",")
    if not header.startswith("data:") or not header.endswith(";base64"):
        raise InvalidInput("image data URIs must be base64")
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidInput("the image data URI is not valid base64") from exc
    if len(data) > MAX_IMAGE_BYTES:
        raise InvalidInput("the image is larger than 20 MiB")
    return data, sniff(data)


async def load_image(url: str, *, allow_private: bool) -> tuple[bytes, str]:
    """The image's bytes and MIME type."""
    if url.startswith("data:"):
        return decode_data_uri(url)
    try:
        await check_url(url, allow_private=allow_private)
    except ForbiddenAddress as exc:
        raise InvalidInput(f"image_url refused: {exc}") from exc
    async with httpx.AsyncClient(timeout=30.0, follow_redirects=False, trust_env=False) as client:
        try:
            async with client.stream("GET", url) as response:
                if response.status_code != 200:
                    raise InvalidInput(f"image_url answered {response.status_code}")
                chunks = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_IMAGE_BYTES:
                        raise InvalidInput("the image is larger than 20 MiB")
                    chunks.append(chunk)
        except httpx.HTTPError as exc:
            raise ProviderUnavailable(f"image_url could not be fetched: {exc}") from exc
    data = b"".join(chunks)
    return data, sniff(data)


def to_data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
