"""Media sent inline by the adapters whose providers take data URIs (xAI, Vidu, LTX) or
uploads (PixVerse): our copy read from this disk, or from our own content host when the
storage is not local, within a size bound; a broken data URI refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.fakes.base import sample_mp4
from tests.support.servers import serve_app
from vidrouter.providers.base import InvalidInput, ProviderMedia
from vidrouter.providers.inline import data_uri, media_bytes, url_or_inline


def _host(body: bytes) -> Starlette:
    async def video(_: Request) -> Response:
        return Response(body, media_type="video/mp4")

    return Starlette(routes=[Route("/content/v.mp4", video)])


async def test_a_copy_on_this_disk_is_read_and_a_reachable_url_is_kept(tmp_path: Path) -> None:
    clip = sample_mp4()
    path = tmp_path / "v.mp4"
    path.write_bytes(clip)
    ours = ProviderMedia("video", "http://127.0.0.1:9/v.mp4", "video/mp4", path, False)
    inline = await url_or_inline(ours, max_bytes=len(clip))
    assert inline.startswith("data:video/mp4;base64,")
    assert (
        await media_bytes(ProviderMedia("video", inline, "video/mp4"), max_bytes=len(clip)) == clip
    )
    public = ProviderMedia("video", "https://cdn.example/v.mp4", "video/mp4", path)
    assert await url_or_inline(public, max_bytes=1) == "https://cdn.example/v.mp4"
    with pytest.raises(InvalidInput):  # beyond the bound: never read whole
        await data_uri(ours, max_bytes=len(clip) - 1)


async def test_object_storage_copies_come_from_our_own_content_host() -> None:
    clip = sample_mp4()
    async with serve_app(_host(clip)) as url:
        # No path (object storage) and a loopback URL: our own signed URL, fetched here.
        ours = ProviderMedia("video", f"{url}/content/v.mp4", "video/mp4", None, False)
        assert await media_bytes(ours, max_bytes=len(clip)) == clip
        with pytest.raises(InvalidInput):
            await media_bytes(ours, max_bytes=len(clip) - 1)


@pytest.mark.parametrize("uri", ["data:video/mp4;base64,@@@", "data:video/mp4,plain"])
async def test_a_broken_data_uri_is_invalid_input(uri: str) -> None:
    with pytest.raises(InvalidInput):
        await media_bytes(ProviderMedia("video", uri, "video/mp4", reachable=False), max_bytes=99)
