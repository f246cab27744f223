"""One model, three hosts: a Kling model with keys for Kling, fal and Replicate (each
pointed at its fake) is listed once, served by the cheapest route, and by the next one when
that host fails."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.base import Fault
from tests.support.hosts import MODEL, PRICES, three_hosts


async def test_the_cheapest_host_serves_a_model_listed_once(tmp_path: Path) -> None:
    async with three_hosts(tmp_path) as hosts:
        app = hosts.app
        listed = (await app.client.get("/v1/models", headers=app.auth(hosts.key))).json()["data"]
        done = await hosts.generate()
    [model] = [m for m in listed if m["id"] == MODEL]  # one model, however many hosts serve it
    assert model["pricing"]["per_second"] == PRICES["fal"]
    assert done["status"] == "completed", done
    assert done["route"] == "fal", done["attempts"]
    assert done["cost"]["amount"] == round(5 * PRICES["fal"], 6)
    assert hosts.kling.received == [] and hosts.replicate.created == []


async def test_when_the_cheapest_host_fails_the_next_serves(tmp_path: Path) -> None:
    async with three_hosts(tmp_path) as hosts:
        hosts.fal.plan.add(Fault(kind="status", status=503, times=-1))
        done = await hosts.generate()
    assert done["status"] == "completed", done
    assert done["route"] == "replicate"
    outcomes = [(a["route"], a["outcome"]) for a in done["attempts"]]
    assert outcomes[0] == ("fal", "submit_failed")
    assert ("replicate", "completed") in outcomes
    assert hosts.kling.received == []  # the dearest host was never needed
    assert len(hosts.replicate.created) == 1
