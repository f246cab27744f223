"""One model, three hosts: a Kling model with keys for Kling, fal and Replicate (each
pointed at its fake) is listed once, served by the cheapest route, and by the next one when
that host fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.base import Fault
from tests.fakes.fal import FalFake
from tests.fakes.kling import KlingFake
from tests.fakes.replicate import ReplicateFake
from tests.support.harness import running, test_settings
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog

MODEL = "kling-v2.1-master"
# The operator's prices for the three hosts: fal cheapest, then Replicate, then Kling.
PRICES = {"fal": 0.20, "replicate": 0.24, "kling": 0.28}


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _operator_catalog(path: Path) -> Path:
    """The built-in Kling model, re-declared with the operator's prices per host."""
    spec = load_catalog().get(MODEL)
    assert spec is not None
    lines = [
        "[[models]]",
        f'id = "{MODEL}"',
        f'name = "{spec.name}"',
        f'provider = "{spec.provider}"',
        f"capabilities = {list(spec.capabilities)!r}".replace("'", '"'),
        f"max_duration = {spec.max_duration}",
        f"default_duration = {spec.default_duration}",
        f"aspect_ratios = {list(spec.aspect_ratios)!r}".replace("'", '"'),
    ]
    if spec.durations is not None:
        lines.append(f"durations = {list(spec.durations)!r}")
    for route in spec.routes:
        if route.provider not in PRICES:
            continue
        lines += [
            "  [[models.routes]]",
            f'  provider = "{route.provider}"',
            f"  model = {_toml_value(route.provider_model)}",
            f"  price_per_second = {PRICES[route.provider]}",
            "    [models.routes.options]",
        ]
        lines += [f'    "{k}" = {_toml_value(v)}' for k, v in route.options.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


async def _run(tmp_path: Path, fail_fal: bool) -> tuple[dict[str, Any], dict[str, Any], Any]:
    kling, fal, replicate = KlingFake(), FalFake(), ReplicateFake()
    if fail_fal:
        fal.plan.add(Fault(kind="status", status=503, times=-1))
    async with (
        serve_app(kling.app) as kling_url,
        serve_app(fal.app()) as fal_url,
        serve_app(replicate.app()) as replicate_url,
    ):
        environ = {
            "KLING_ACCESS_KEY": kling.access_key,
            "KLING_SECRET_KEY": kling.secret_key,
            "VIDROUTER_KLING_BASE_URL": kling_url,
            "FAL_KEY": fal.api_key,
            "VIDROUTER_FAL_BASE_URL": fal_url,
            "REPLICATE_API_TOKEN": replicate.api_token,
            "VIDROUTER_REPLICATE_BASE_URL": replicate_url,
        }
        settings = test_settings(
            tmp_path / "data",
            environ=environ,
            catalog=_operator_catalog(tmp_path / "catalog.toml"),
            provider_delay_scale=0.01,
        )
        async with running(settings) as app:
            key = await app.new_key()
            listed = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
            created = await app.create(key, model=MODEL, prompt="three hosts", duration=5)
            assert created.status_code == 202, created.text
            done = await app.wait_for(key, created.json()["id"], timeout=60)
    entries = [m for m in listed if m["id"] == MODEL]
    assert len(entries) == 1  # one model, however many hosts serve it
    return entries[0], done, (kling, fal, replicate)


async def test_the_cheapest_host_serves_a_model_listed_once(tmp_path: Path) -> None:
    model, done, (kling, _fal, replicate) = await _run(tmp_path, fail_fal=False)
    assert model["pricing"]["per_second"] == PRICES["fal"]
    assert done["status"] == "completed", done
    assert done["route"] == "fal", done["attempts"]
    assert done["cost"]["amount"] == round(5 * PRICES["fal"], 6)
    assert kling.received == [] and replicate.created == []


async def test_when_the_cheapest_host_fails_the_next_serves(tmp_path: Path) -> None:
    _model, done, (kling, _fal, replicate) = await _run(tmp_path, fail_fal=True)
    assert done["status"] == "completed", done
    assert done["route"] == "replicate"
    outcomes = [(a["route"], a["outcome"]) for a in done["attempts"]]
    assert outcomes[0] == ("fal", "submit_failed")
    assert ("replicate", "completed") in outcomes
    assert kling.received == []  # the dearest host was never needed
    assert len(replicate.created) == 1
