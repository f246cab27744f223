"""One model, `chaos-clip`, served by routes of the generic `openai_videos` adapter, each
pointed at its own `ChaosProvider` (or another OpenAI-style fake) by an operator's catalog
file; the routes are told apart by their ids (`openai_videos:a`, ...)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, TypedDict, Unpack

from tests.fakes.chaos import ChaosProvider
from tests.support.harness import Harness, SettingsOverrides, running, test_settings
from tests.support.servers import serve_app
from vidrouter.store.keys import NewKey

KEY_ENV = "CHAOS_VIDEO_KEY"
KEY = "sk-chaos-test"
MODEL = "chaos-clip"
ADAPTER = "openai_videos"
DURATION = 4  # the model's default duration


class RouteExtras(TypedDict, total=False):
    """What chaos_service adds to a route's catalog entry (see chaos_catalog)."""

    price: float  # per second
    timeout: float
    max_concurrent: int
    toml: str  # more keys of the route's own table


# Routes a and b: a the cheaper, b the dearer.
PRICED: dict[str, RouteExtras] = {"a": {"price": 0.05}, "b": {"price": 0.08}}


def chaos_catalog(
    path: Path,
    routes: list[dict[str, Any]],
    *,
    ordered: bool = False,
    description: str = "A model behind chaos providers.",
) -> Path:
    """The model with these routes: each `{id, url}` and optionally `price` (per second,
    default 0.1), `timeout` (5.0), `max_concurrent`, `toml` (lines of its table). `ordered` tries them in the order given;
    otherwise they are of one priority and the price orders them."""
    text = f"""
[[models]]
id = "{MODEL}"
name = "{MODEL}"
description = "{description}"
provider = "Example Labs"
type = "text-to-video"
capabilities = ["text-to-video"]
max_duration = 8
default_duration = {DURATION}
durations = [4, 8]
aspect_ratios = ["16:9", "9:16"]
"""
    for priority, route in enumerate(routes):
        text += f"""
  [[models.routes]]
  id = "{route["id"]}"
  provider = "{ADAPTER}"
  model = "chaos-1"
  price_per_second = {route.get("price", 0.1)}
"""
        if ordered:
            text += f"  priority = {priority}\n"
        text += route.get("toml", "")  # more keys of the route's own table
        text += f"""
  [models.routes.options]
  base_url = "{route["url"]}/v1"
  api_key_env = "{KEY_ENV}"
  timeout_seconds = {route.get("timeout", 5.0)}
"""
        if "max_concurrent" in route:
            text += f"  max_concurrent = {route['max_concurrent']}\n"
    path.write_text(text)
    return path


@asynccontextmanager
async def chaos_service(
    tmp_path: Path,
    database_url: str | None,
    fakes: Mapping[str, ChaosProvider],
    *,
    routes: Mapping[str, RouteExtras] | None = None,
    ordered: bool = False,
    **overrides: Unpack[SettingsOverrides],
) -> AsyncIterator[Harness]:
    """The service with one route per fake (`name: fake`); `routes` adds to a route's
    catalog entry (`price`, `timeout`, `max_concurrent`); `overrides` are settings."""
    async with AsyncExitStack() as stack:
        entries = []
        for name, fake in fakes.items():
            url = await stack.enter_async_context(serve_app(fake.app()))
            entries.append({"id": name, "url": url, **(routes or {}).get(name, {})})
        values: dict[str, Any] = {"provider_delay_scale": 0.02, **overrides}
        settings = test_settings(
            tmp_path / "data",
            database_url,
            environ={KEY_ENV: KEY},
            catalog=chaos_catalog(tmp_path / "operator.toml", entries, ordered=ordered),
            **values,
        )
        yield await stack.enter_async_context(running(settings))


def route_key(name: str) -> str:
    return f"{ADAPTER}:{name}"


async def model_item(app: Harness, key: NewKey) -> dict[str, Any]:
    """The model as `/v1/models/{id}` shows it, checked against its `/v1/models` entry."""
    r = await app.client.get(f"/v1/models/{MODEL}", headers=app.auth(key))
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    listed = await app.client.get("/v1/models", headers=app.auth(key))
    [entry] = [m for m in listed.json()["data"] if m["id"] == MODEL]
    assert entry["pricing"] == body["pricing"]  # the list and the item agree
    return body


async def generate(app: Harness, key: NewKey, **body: Any) -> dict[str, Any]:
    """A generation of the model, once it has ended."""
    created = await app.create(key, model=MODEL, prompt="a fox", **body)
    assert created.status_code == 202, created.text
    return await app.wait_for(key, created.json()["id"], timeout=60)
