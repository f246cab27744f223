"""How a route's media reach its provider decides whether it may serve a generation whose
media only this server holds (`RouteAsk.local_media`: a data: reference or one of our own
generations as the source, behind a public URL that is a loopback one): a route that
fetches by URL may not, one that uploads, sends inline or reads files may. The makers'
routes of xAI, Vidu and LTX send such media inline, PixVerse's uploads them."""

from __future__ import annotations

import pytest

from vidrouter.domain.catalog import Route, load_catalog
from vidrouter.domain.route import parse_input_caps

TYPES = ["text-to-video", "reference-to-video", "video-to-video", "video-extend"]


@pytest.mark.parametrize(
    ("receives", "takes"),
    [(None, False), (["url"], False), (["upload"], True), (["url", "inline"], True)],
)
def test_only_a_route_that_does_not_fetch_by_url_takes_media_only_we_hold(
    receives: list[str] | None, takes: bool
) -> None:
    entry = {"capabilities": TYPES, "max_references": {"image": 3}}
    caps = parse_input_caps({**entry, "receives_media": receives} if receives else entry)
    for kind, refs in (("reference-to-video", ["image"]), ("video-to-video", [])):
        assert caps.takes("p:m", kind, refs, None, local_media=True) is takes
        assert caps.takes("p:m", kind, refs, None, local_media=False)


def test_an_unknown_way_to_receive_media_is_refused() -> None:
    with pytest.raises(ValueError, match="receives_media"):
        parse_input_caps({"receives_media": ["carrier-pigeon"]})


def _route(model: str, provider: str) -> Route:
    [route] = [
        r
        for m in load_catalog().models
        if m.id == model
        for r in m.routes
        if r.provider == provider
    ]
    return route


@pytest.mark.parametrize(
    ("model", "provider", "kind", "refs"),
    [
        ("grok-imagine-video", "xai", "reference-to-video", ["image"]),
        ("grok-imagine-video", "xai", "video-extend", []),
        ("grok-imagine-video-1.5", "xai", "reference-to-video", ["image"]),
        ("viduq2", "vidu", "reference-to-video", ["image"]),
        ("ltx-2.3-pro", "ltx", "video-to-video", []),
        ("pixverse-v5.6", "pixverse", "reference-to-video", ["image"]),
    ],
)
def test_the_newer_makers_routes_take_media_only_we_hold(
    model: str, provider: str, kind: str, refs: list[str]
) -> None:
    route = _route(model, provider)
    assert route.takes(kind, refs, None, local_media=True)


def test_pixverse_extends_only_the_videos_its_own_route_made() -> None:
    pixverse = _route("pixverse-v6", "pixverse")
    assert pixverse.takes("video-extend", [], "pixverse:v6")
    assert not pixverse.takes("video-extend", [], None)  # not one of its videos
    assert not pixverse.takes("video-extend", [], "fal:fal-ai/pixverse/v6/text-to-video")
