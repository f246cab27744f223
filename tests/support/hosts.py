"""One model, three hosts: the built-in Kling model re-declared by an operator with a price per
host (fal cheapest, then Replicate, then Kling), each host pointed at its fake."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.fal import FalFake
from tests.fakes.kling import KlingFake
from tests.fakes.replicate import ReplicateFake
from tests.support.harness import Harness, running, test_settings
from tests.support.servers import serve_app
from vidrouter.domain.catalog import load_catalog
from vidrouter.settings import Settings
from vidrouter.store.keys import NewKey

MODEL = "kling-v2.1-master"
PRICES = {"fal": 0.20, "replicate": 0.24, "kling": 0.28}  # fal cheapest, Kling dearest


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def operator_catalog(path: Path) -> Path:
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


@dataclass
class Hosts:
    app: Harness
    key: NewKey
    kling: KlingFake
    fal: FalFake
    replicate: ReplicateFake

    async def generate(self, **body: Any) -> dict[str, Any]:
        body = {"model": MODEL, "prompt": "three hosts", "duration": 5, **body}
        created = await self.app.create(self.key, **body)
        assert created.status_code == 202, created.text
        return await self.app.wait_for(self.key, created.json()["id"], timeout=60)

    def untouched(self) -> bool:
        """No provider has been called at all."""
        return (
            self.kling.received == []
            and self.replicate.created == []
            and not self.fal.jobs
            and self.fal.plan.requests == []
        )


@asynccontextmanager
async def three_hosts(
    tmp_path: Path, database_url: str | None = None, **overrides: Any
) -> AsyncIterator[Hosts]:
    """The service with keys for the three hosts; `overrides` are settings."""
    kling, fal, replicate = KlingFake(), FalFake(), ReplicateFake()
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
            database_url,
            environ=environ,
            catalog=operator_catalog(tmp_path / "catalog.toml"),
            provider_delay_scale=0.01,
            **overrides,
        )
        async with running(settings) as app:
            yield Hosts(app, await app.new_key(), kling, fal, replicate)


async def listed_and_served(
    settings: Settings, model_id: str, prompt: str
) -> tuple[float, dict[str, Any]]:
    """A model as a service with `settings` lists it (its price per second) and serves it
    (a generation of it, run to its end): where a host's route stands among the others."""
    async with running(settings) as app:
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        [model] = [m for m in data if m["id"] == model_id]
        created = await app.create(key, model=model_id, prompt=prompt)
        done = await app.wait_for(key, created.json()["id"], timeout=30)
    return float(model["pricing"]["per_second"]), done


async def assert_cheaper_unless_pinned(
    settings: Callable[[str, Path | None], Settings],
    model_id: str,
    prompt: str,
    *,
    cheapest: tuple[str, float],
    pinned: tuple[Path, str, float],
) -> None:
    """With the built-in catalog the cheaper host (name, price per second) lists and serves
    the model; with the operator's catalog that pins another host's route (its file, host
    and price) that host does. `settings(name, catalog)` makes each service's settings."""
    for name, catalog, (host, price) in (
        ("cheapest", None, cheapest),
        ("pinned", pinned[0], pinned[1:]),
    ):
        listed, done = await listed_and_served(settings(name, catalog), model_id, prompt)
        assert listed == price
        assert (done["status"], done["route"]) == ("completed", host), done
