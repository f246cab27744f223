"""Input media sent inline (a `data:` URI in the request body), for providers that document
inline media: what an adapter sends when our copy cannot be fetched from outside
(`ProviderMedia.reachable` False: our public URL is a loopback one).

The bytes come from our copy on this machine (`ProviderMedia.path`, read off the event
loop) or, on object storage, from the signed URL of our own content host (which we made,
so a loopback address is expected there and allowed).
"""

from __future__ import annotations

import asyncio
import base64

from vidrouter.net.fetch import ResponseTooLarge, guarded_get
from vidrouter.net.guard import OutboundError
from vidrouter.providers.base import InvalidInput, ProviderMedia, ProviderUnavailable

FETCH_TIMEOUT = 120.0


async def media_bytes(media: ProviderMedia, *, max_bytes: int, allow: bool = False) -> bytes:
    """Our copy of `media`, at most `max_bytes` (InvalidInput beyond). A URL the provider
    could fetch is the user's or our public one, fetched through the outbound guard
    (`allow`: private addresses too, as the adapter's images); one it could not is our own
    content host's."""
    if media.url.startswith("data:"):
        header, _, payload = media.url.partition(",")
        try:
            if not header.endswith(";base64"):
                raise ValueError("not base64")
            data = base64.b64decode(payload, validate=True)
        except ValueError as exc:  # binascii.Error is one
            raise InvalidInput(f"the {media.kind} data URI is not valid base64") from exc
    elif media.path is not None:
        size = (await asyncio.to_thread(media.path.stat)).st_size
        if size > max_bytes:
            raise InvalidInput(_too_large(media, max_bytes))
        data = await asyncio.to_thread(media.path.read_bytes)
    else:
        try:
            status, _, data = await guarded_get(
                media.url,
                allow_private=allow or not media.reachable,
                max_bytes=max_bytes,
                timeout=FETCH_TIMEOUT,
            )
        except ResponseTooLarge as exc:
            raise InvalidInput(_too_large(media, max_bytes)) from exc
        except OutboundError as exc:
            raise ProviderUnavailable(f"our copy of the {media.kind} could not be read") from exc
        if status != 200:
            raise ProviderUnavailable(f"our copy of the {media.kind} answered {status}")
    if len(data) > max_bytes:
        raise InvalidInput(_too_large(media, max_bytes))
    return data


async def data_uri(media: ProviderMedia, *, max_bytes: int) -> str:
    """`media` as a base64 `data:` URI of its MIME type."""
    if media.url.startswith("data:"):
        return media.url
    data = await media_bytes(media, max_bytes=max_bytes)
    encoded = await asyncio.to_thread(base64.b64encode, data)
    return f"data:{media.mime};base64,{encoded.decode('ascii')}"


async def url_or_inline(media: ProviderMedia, *, max_bytes: int) -> str:
    """The URL the provider fetches where it can, else the bytes inline."""
    if media.reachable:
        return media.url
    return await data_uri(media, max_bytes=max_bytes)


def _too_large(media: ProviderMedia, max_bytes: int) -> str:
    return f"the {media.kind} is larger than the {max_bytes // (1024 * 1024)} MiB sent inline"
