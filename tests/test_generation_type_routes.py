"""Types are per route: a model's `capabilities` are what its usable routes make, the create
and the router ask `route_candidates` the one question (a route that cannot make the type
is no candidate), and an extension of a model that extends only its own output goes to the
route that made the source, or is refused naming `video`, before any provider is called."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.chaos import ChaosProvider
from tests.support.chaos import RouteExtras, chaos_service, generate, model_item, route_key
from tests.support.harness import assert_error
from tests.support.video import decode
from vidrouter.domain.routing import RouteAsk, ask_of

pytestmark = pytest.mark.usefixtures("chaos_sample")

EXTENDS = """  capabilities = ["text-to-video", "video-extend"]
  extends_own_output = true
  variants = [{ resolution = "720p", audio = false, per_second = 0.2, type = "video-extend" }]
"""


async def test_types_are_per_route_and_extensions_go_home(tmp_path: Path) -> None:
    a, b = ChaosProvider(api_key="sk-chaos-test"), ChaosProvider(api_key="sk-chaos-test")
    routes: dict[str, RouteExtras] = {"a": {"price": 0.05}, "b": {"price": 0.08, "toml": EXTENDS}}
    async with chaos_service(tmp_path, None, {"a": a, "b": b}, routes=routes) as app:
        key = await app.new_key()
        item = await model_item(app, key)
        assert item["capabilities"] == ["text-to-video", "video-extend"]
        model = app.service.models.find("chaos-clip")
        assert model is not None

        # The one answer: only b makes extensions, both make text-to-video.
        extend = RouteAsk(type="video-extend", source_route=route_key("b"))
        assert [r.key for r in await app.service.models.candidates(model, extend)] == [
            route_key("b")
        ]
        plain = RouteAsk(type="text-to-video")
        assert [r.key for r in await app.service.models.candidates(model, plain)] == [
            route_key("a"),
            route_key("b"),
        ]

        # A source made on a: b extends only its own output, so no route can extend it.
        on_a = await generate(app, key, duration=4)
        assert on_a["route"] == "openai_videos" and on_a["status"] == "completed"
        submits = (len(a.accepted), len(b.accepted))
        refused = await app.create(
            key,
            model="chaos-clip",
            prompt="more",
            type="video-extend",
            duration=4,
            video={"generation_id": on_a["id"]},
        )
        assert assert_error(refused, 400, "video_unsupported")["param"] == "video"
        assert (len(a.accepted), len(b.accepted)) == submits  # no provider called

        # A source made on b is extended on b, by its job, and returned whole.
        a.start_outage()  # a fails the submit: the generation fails over to b
        on_b = await generate(app, key, duration=4)
        a.end_outage()
        row = await app.service.generation_store.get(on_b["id"])
        assert row is not None and row.route == route_key("b")
        made = await generate(
            app, key, type="video-extend", duration=4, video={"generation_id": on_b["id"]}
        )
        assert made["status"] == "completed" and made["type"] == "video-extend", made
        stored = await app.service.generation_store.get(made["id"])
        assert stored is not None and stored.route == route_key("b")
        assert ask_of(stored).source_route == route_key("b")
        one = decode((await app.client.get(on_b["video_url"])).content, tmp_path)
        whole = decode((await app.client.get(made["video_url"])).content, tmp_path)
        assert whole.frames == 2 * one.frames  # the source, then what b returned
        # Billed for the 4 seconds added (not the whole joined video), at b's price of an
        # extension.
        assert made["cost"]["amount"] == pytest.approx(4 * 0.2)
        assert made["estimated_cost"]["amount"] == pytest.approx(4 * 0.2)
        assert on_b["cost"]["amount"] == pytest.approx(4 * 0.08)


async def test_a_source_no_route_can_receive_is_refused_at_create(tmp_path: Path) -> None:
    """This server's public URL is a loopback one: a route whose provider fetches media by
    URL cannot get one of our generations (only we serve it), so the create is refused; a
    source at a URL the provider can fetch itself is taken."""
    edits = '  capabilities = ["text-to-video", "video-to-video"]\n'
    fake = ChaosProvider(api_key="sk-chaos-test")
    routes: dict[str, RouteExtras] = {"a": {"toml": edits}}
    async with chaos_service(tmp_path, None, {"a": fake}, routes=routes) as app:
        key = await app.new_key()
        source = await generate(app, key, duration=4)
        submits = len(fake.accepted)
        refused = await app.create(
            key,
            model="chaos-clip",
            prompt="at night",
            type="video-to-video",
            video={"generation_id": source["id"]},
        )
        error = assert_error(refused, 400, "input_unreachable")
        assert error["param"] == "video" and "VIDROUTER_PUBLIC_URL" in error["message"]
        assert len(fake.accepted) == submits
        listed = await app.client.get("/v1/generations", headers=app.auth(key))
        assert len(listed.json()["data"]) == 1
