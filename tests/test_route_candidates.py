"""The create's checks and the router ask one question, "which routes may serve this, in
which order" (`engine.router.candidates`), and get one answer: a route that cannot take the
generation (its duration, its routing policy) is left out by the open-circuit refusal, the
cost estimate and the router alike."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes.chaos import ChaosProvider
from tests.support.chaos import ADAPTER, KEY, KEY_ENV, MODEL, route_key
from tests.support.harness import running, test_settings
from tests.support.servers import serve_app
from vidrouter.domain.routing import RouteAsk, RoutingPolicy, ask_of
from vidrouter.engine.circuits import CircuitState

pytestmark = pytest.mark.usefixtures("chaos_sample")


def _catalog(path: Path, a_url: str, b_url: str) -> Path:
    """Route a (cheap, tried first) makes 4 s and 8 s videos at 720p; route b (dearer) only
    4 s ones."""
    text = f"""
[[models]]
id = "{MODEL}"
name = "{MODEL}"
description = "A model whose routes differ in the durations they make."
provider = "Example Labs"
type = "text-to-video"
capabilities = ["text-to-video"]
max_duration = 8
default_duration = 4
durations = [4, 8]
aspect_ratios = ["16:9"]
resolutions = ["720p"]
"""
    for priority, (name, url, price, durations) in enumerate(
        [("a", a_url, 0.05, "[4, 8]"), ("b", b_url, 0.08, "[4]")]
    ):
        text += f"""
  [[models.routes]]
  id = "{name}"
  provider = "{ADAPTER}"
  model = "chaos-1"
  price_per_second = {price}
  priority = {priority}
  durations_by_resolution = {{ "720p" = {durations} }}

  [models.routes.options]
  base_url = "{url}/v1"
  api_key_env = "{KEY_ENV}"
  timeout_seconds = 5.0
"""
    path.write_text(text)
    return path


async def test_a_route_excluded_by_duration_is_excluded_by_the_create_and_the_router(
    tmp_path: Path,
) -> None:
    a, b = ChaosProvider(api_key=KEY), ChaosProvider(api_key=KEY)
    a.start_outage()
    async with serve_app(a.app()) as a_url, serve_app(b.app()) as b_url:
        settings = test_settings(
            tmp_path / "data",
            None,
            environ={KEY_ENV: KEY},
            catalog=_catalog(tmp_path / "operator.toml", a_url, b_url),
            provider_delay_scale=0.02,
            circuit_failure_threshold=1,
            circuit_cooldown_seconds=600,
        )
        async with running(settings) as app:
            key = await app.new_key()
            # A 4 s video: a fails (its circuit opens), b serves it.
            first = await app.create(key, model=MODEL, prompt="a fox", duration=4)
            assert first.status_code == 202, first.text
            done = await app.wait_for(key, first.json()["id"], timeout=60)
            assert done["status"] == "completed", done
            service = app.service
            assert await service.circuits.state_of(route_key("a")) is CircuitState.OPEN

            # An 8 s video: only a makes it, and a is down. The create refuses at once
            # rather than queue a generation no route could take.
            refused = await app.create(key, model=MODEL, prompt="a fox", duration=8)
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "model_unavailable"

            # The same answer, asked of the use-case and of the router for a stored
            # generation: b is no candidate for 8 s, both are for 4 s.
            row = await app.service.generation_store.get(first.json()["id"])
            assert row is not None
            model = service.models.find(MODEL)
            assert model is not None
            asked = ask_of(row)
            for duration, expected in ((8.0, ["a"]), (4.0, ["a", "b"])):
                ask = RouteAsk(asked.policy, asked.controls, duration)
                by_create = await service.models.candidates(model, ask)
                fresh = replace(row, duration=duration, attempts=())
                by_router = await service.router.candidates(fresh, model)
                assert [r.key for r in by_create] == [route_key(n) for n in expected]
                assert by_router == by_create

            # A policy that leaves no route standing is refused alike (here by price).
            capped = RouteAsk(RoutingPolicy(max_price_per_second=0.06), asked.controls, 4.0)
            assert [r.key for r in await service.models.candidates(model, capped)] == [
                route_key("a")
            ]
            cheap_only = await app.create(
                key,
                model=MODEL,
                prompt="a fox",
                duration=4,
                routing={"max_price_per_second": 0.06},
            )
            assert cheap_only.status_code == 503, cheap_only.text

            # A 4 s video with b allowed is taken, priced at b (a is down) and sent to b.
            taken = await app.create(key, model=MODEL, prompt="a fox", duration=4)
            assert taken.status_code == 202, taken.text
            assert taken.json()["estimated_cost"]["amount"] == pytest.approx(4 * 0.08)
            done = await app.wait_for(key, taken.json()["id"], timeout=60)
            assert done["status"] == "completed", done
            row = await app.service.generation_store.get(taken.json()["id"])
            assert row is not None and row.route == route_key("b")
