"""A routing policy per request (docs/routing.md): `only`, `ignore`, `max_price_per_second`
and `allow_fallbacks` honoured over three real hosts' fakes serving one model (fal,
Replicate, Kling); policies that leave no route refused with a 400 naming the param before
any provider is called, on both create APIs; `sort: "speed"` over two chaos routes once
each has history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.base import Fault
from tests.fakes.chaos import ChaosProvider
from tests.support.chaos import KEY, PRICED, chaos_service, generate, model_item, route_key
from tests.support.hosts import MODEL, PRICES, three_hosts
from vidrouter.engine.circuits import CircuitState

DEFAULT_ROUTING: dict[str, Any] = {
    "sort": "price",
    "only": None,
    "ignore": [],
    "max_price_per_second": None,
    "allow_fallbacks": True,
}


async def test_only_ignore_and_max_price_choose_among_the_hosts(
    tmp_path: Path, database_url: str
) -> None:
    async with three_hosts(tmp_path, database_url, circuit_failure_threshold=2) as hosts:
        plain = await hosts.generate()
        assert (plain["status"], plain["route"]) == ("completed", "fal"), plain
        assert plain["routing"] == DEFAULT_ROUTING

        only = await hosts.generate(routing={"only": ["kling"]})
        assert (only["status"], only["route"]) == ("completed", "kling"), only
        assert only["cost"]["amount"] == round(5 * PRICES["kling"], 6)
        assert only["routing"] == {**DEFAULT_ROUTING, "only": ["kling"]}

        ignore = await hosts.generate(routing={"ignore": ["fal"]})
        assert (ignore["status"], ignore["route"]) == ("completed", "replicate"), ignore

        # A prompt the host moderates is the client's doing: fal is not charged for it.
        moderated = await hosts.generate(prompt="a forbidden fox")
        assert moderated["status"] == "failed"
        assert moderated["error"]["code"] == "content_policy", moderated
        routes = (
            await hosts.app.client.get(f"/v1/models/{MODEL}", headers=hosts.app.auth(hosts.key))
        ).json()["routes"]
        assert (routes[0]["provider"], routes[0]["state"], routes[0]["failed"]) == (
            "fal",
            "available",
            0,
        )

        # fal now fails every call: a price cap still lets the generation fall back to the
        # next route under it, never to one above it.
        hosts.fal.plan.add(Fault(kind="status", status=503, times=-1))
        capped = await hosts.generate(routing={"max_price_per_second": 0.25})
        assert (capped["status"], capped["route"]) == ("completed", "replicate"), capped
        assert capped["attempts"][0]["route"] == "fal"
        assert capped["cost"]["amount"] == round(5 * PRICES["replicate"], 6)

        # Without fallbacks the generation stays on the route it was first sent to.
        kling_jobs, replicate_jobs = len(hosts.kling.received), len(hosts.replicate.created)
        pinned = await hosts.generate(routing={"allow_fallbacks": False})
        assert pinned["status"] == "failed", pinned
        assert pinned["error"]["code"] == "provider_unavailable"
        assert {a["route"] for a in pinned["attempts"]} == {"fal"}
        assert pinned["routing"]["allow_fallbacks"] is False
        assert (len(hosts.kling.received), len(hosts.replicate.created)) == (
            kling_jobs,
            replicate_jobs,
        )
        row = await hosts.app.service.generation_store.get(pinned["id"])
        assert row is not None and row.routing == pinned["routing"]


async def test_a_policy_that_leaves_no_route_is_a_400_before_any_provider_is_called(
    tmp_path: Path, database_url: str
) -> None:
    cases: list[tuple[object, str, str]] = [
        ({"only": ["nope"]}, "provider_unknown", "routing.only"),
        ({"ignore": ["kling", "nope"]}, "provider_unknown", "routing.ignore"),
        ({"only": ["veo"]}, "routing_no_route", "routing.only"),  # known, not for this model
        ({"ignore": ["fal", "replicate", "kling"]}, "routing_no_route", "routing.ignore"),
        ({"only": ["fal"], "ignore": ["fal"]}, "routing_no_route", "routing.ignore"),
        ({"max_price_per_second": 0.1}, "routing_no_route", "routing.max_price_per_second"),
        ({"max_price_per_second": -1}, "parameter_invalid", "routing.max_price_per_second"),
        ({"sort": "fastest"}, "routing_sort_invalid", "routing.sort"),
        ({"allow_fallbacks": "no"}, "parameter_invalid_type", "routing.allow_fallbacks"),
        ({"only": "fal"}, "parameter_invalid_type", "routing.only"),
        ({"order": ["fal"]}, "parameter_unknown", "routing.order"),
        ("speed", "parameter_invalid_type", "routing"),
    ]
    async with three_hosts(tmp_path, database_url) as hosts:
        app, key = hosts.app, hosts.key
        for routing, code, param in cases:
            native = await app.create(key, model=MODEL, prompt="a fox", routing=routing)
            openai = await app.client.post(
                "/v1/videos",
                json={"model": MODEL, "prompt": "a fox", "routing": routing},
                headers=app.auth(key),
            )
            for response in (native, openai):
                assert response.status_code == 400, (routing, response.text)
                error = response.json()["error"]
                assert (error["type"], error["code"], error["param"]) == (
                    "invalid_request_error",
                    code,
                    param,
                ), routing
        # A form (what the OpenAI SDK sends) carries the policy as JSON text.
        for text, code, param in [
            ("{not json", "parameter_invalid_type", "routing"),
            ('{"only": ["nope"]}', "provider_unknown", "routing.only"),
        ]:
            form = {"model": MODEL, "prompt": "a fox", "routing": text}
            r = await app.client.post("/v1/videos", data=form, headers=app.auth(key))
            assert r.status_code == 400, r.text
            assert (r.json()["error"]["code"], r.json()["error"]["param"]) == (code, param)
        listed = await app.client.get("/v1/generations", headers=app.auth(key))
        assert listed.json()["data"] == []
        assert hosts.untouched()

        # The OpenAI-style create honours a valid policy too.
        video = await app.client.post(
            "/v1/videos",
            json={
                "model": MODEL,
                "prompt": "a fox",
                "seconds": "5",
                "routing": {"only": ["kling"]},
            },
            headers=app.auth(key),
        )
        assert video.status_code == 200, video.text
        done = await app.wait_for(key, video.json()["id"], timeout=60)
        assert (done["status"], done["route"]) == ("completed", "kling"), done
        assert done["routing"]["only"] == ["kling"]
        form = {"model": MODEL, "prompt": "a fox", "seconds": "5"}
        form["routing"] = '{"ignore": ["fal", "kling"]}'
        video = await app.client.post("/v1/videos", data=form, headers=app.auth(key))
        assert video.status_code == 200, video.text
        done = await app.wait_for(key, video.json()["id"], timeout=60)
        assert (done["status"], done["route"]) == ("completed", "replicate"), done


async def test_sort_speed_picks_the_faster_route_once_each_has_history(
    tmp_path: Path, database_url: str
) -> None:
    # a is cheap and slow, b dearer and fast: price and speed disagree.
    a = ChaosProvider(api_key=KEY, job_seconds=1.0)
    b = ChaosProvider(api_key=KEY)
    async with chaos_service(tmp_path, database_url, {"a": a, "b": b}, routes=PRICED) as app:
        key = await app.new_key()
        speed = {"routing": {"sort": "speed"}}

        async def route_of(done: dict[str, Any]) -> str:
            assert done["status"] == "completed", done
            row = await app.service.generation_store.get(done["id"])
            assert row is not None and row.route is not None
            return row.route

        # No history anywhere: price breaks the tie. Then only a has history: a route with
        # none is not assumed fast.
        assert await route_of(await generate(app, key, **speed)) == route_key("a")
        assert await route_of(await generate(app, key, **speed)) == route_key("a")
        a.start_outage()  # b gets its history while a refuses work
        assert await route_of(await generate(app, key)) == route_key("b")
        a.end_outage()

        item = await model_item(app, key)
        p50 = {r["price_per_second"]: r["p50_seconds"] for r in item["routes"]}
        assert p50[0.08] < p50[0.05], item["routes"]
        assert await route_of(await generate(app, key, **speed)) == route_key("b")
        assert await route_of(await generate(app, key)) == route_key("a")  # price: the default
        # Both delivered every job: reliability ties, and price breaks it.
        reliable = await generate(app, key, routing={"sort": "reliability"})
        assert await route_of(reliable) == route_key("a")
        assert await app.service.circuits.state_of(route_key("a")) is CircuitState.CLOSED
