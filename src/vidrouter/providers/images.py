"""Input images for image-to-video: a `data:` URI decoded, or an http(s) URL fetched through
the outbound guard (`net.fetch.guarded_get`), checked to be a PNG or JPEG of bounded size."""

from __future__ import annotations

import base64
import binascii

from vidrouter.net.fetch import ResponseTooLarge, guarded_get
from vidrouter.net.guard import ForbiddenAddress, OutboundError
from vidrouter.providers.base import InvalidInput, ProviderUnavailable

MAX_IMAGE_BYTES = 20 * 1024 * 1024
FETCH_TIMEOUT = 60.0  # the whole download, not each read
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
        status, _, data = await guarded_get(
            url, allow_private=allow_private, max_bytes=MAX_IMAGE_BYTES, timeout=FETCH_TIMEOUT
        )
    except ForbiddenAddress as exc:
        raise InvalidInput(f"image_url refused: {exc}") from exc
    except ResponseTooLarge as exc:
        raise InvalidInput("the image is larger than 20 MiB") from exc
    except OutboundError as exc:
        raise ProviderUnavailable(f"image_url could not be fetched: {exc}") from exc
    if status != 200:
        raise InvalidInput(f"image_url answered {status}")
    return data, sniff(data)


def to_data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
