"""The service started on one provider's contract case: its fake served on a port, the settings
that point the adapter at it, and optionally a second route behind it."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import pkgutil
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Unpack

from tests.fakes.base import Fault
from tests.support.contract.cases import BY_NAME, KEY, ProviderCase
from tests.support.harness import Harness, SettingsOverrides, running, test_settings
from tests.support.servers import serve_app
from vidrouter.domain.catalog import Route, load_catalog
from vidrouter.store.keys import NewKey

# A second route for the case's model, tried after the provider's own: an OpenAI-style
# gateway (a second fake) that takes any whole number of seconds. (Veo's own route has
# priority 50: it lets every other host of its models go first.)
NEXT_ROUTE = """
[[extra_routes]]
for_model = "{model}"
id = "next-gateway"
provider = "openai_videos"
model = "any-clip"
price_per_second = 0.01
priority = 1000

  [extra_routes.options]
  base_url = "{url}/v1"
  api_key_env = "NEXT_GATEWAY_KEY"
"""


# Retries, not the circuit breaker, end these runs; a tripped breaker cools down quickly.
NO_BREAKER: SettingsOverrides = {"circuit_failure_threshold": 100}


@dataclass
class Run:
    """Our service with one provider's fake behind it."""

    app: Harness
    fake: Any
    case: ProviderCase
    webhook_secret: str = ""  # of the key that made the last generation

    async def generate(self, **body: Any) -> dict[str, Any]:
        key = await self.app.new_key()
        self.webhook_secret = key.key.webhook_secret
        created = await self.app.create(
            key, **{"model": self.case.model, "prompt": "a fox", **body}
        )
        assert created.status_code == 202, created.text
        return await self.app.wait_for(key, created.json()["id"], timeout=40)

    async def models(self) -> dict[str, dict[str, Any]]:
        key = await self.app.new_key()
        answer = await self.app.client.get("/v1/models", headers=self.app.auth(key))
        return {m["id"]: m for m in answer.json()["data"]}

    async def shortest(self) -> float:
        """The shortest duration the case's model offers (the local renderer takes real time)."""
        model = (await self.models())[self.case.model]
        return float(min(model["durations"] or [model["default_duration"]]))

    @property
    def submits(self) -> int:
        return int(self.fake.plan.count("POST", self.case.submit))

    def inject(self, answer: tuple[int, object], where: str, method: str, times: int) -> Fault:
        status, body = answer
        fault: Fault = self.fake.plan.add(
            status=status, body=body, path=where, method=method, times=times
        )
        return fault


@contextlib.asynccontextmanager
async def started(
    case: ProviderCase,
    tmp_path: Path,
    *,
    fake: Any = None,
    credentials: bool = True,
    next_route: str | None = None,  # the URL of a second route's gateway
    timeout: float = 10.0,
    scale: float = 0.01,
    environ: dict[str, str] | None = None,
    **overrides: Unpack[SettingsOverrides],
) -> AsyncIterator[Run]:
    fake = case.make() if fake is None else fake
    async with serve_app(case.serve(fake)) as url:
        catalog = case.catalog(url, timeout)
        if next_route is not None:
            catalog += NEXT_ROUTE.format(model=case.model, url=next_route)
        values: dict[str, Any] = {
            "provider_delay_scale": scale,
            "circuit_cooldown_seconds": 0.2,
            **case.settings,
            **overrides,
        }
        if catalog:
            values["catalog"] = _write(tmp_path / "operator.toml", catalog)
        env = {
            **(case.environ(url, KEY) if credentials else {}),
            **(environ or {}),
            "NEXT_GATEWAY_KEY": KEY,
        }
        settings = test_settings(tmp_path / "data", environ=env, **values)
        async with running(settings) as app:
            if case.shorten_timeout is not None and timeout < 10.0:
                case.shorten_timeout(app, timeout)
            yield Run(app, fake, case)


async def assert_unfetchable_source_refused(
    case: ProviderCase,
    tmp_path: Path,
    model: str = "ray-2",
    seconds: float | None = None,
    **overrides: Any,
) -> None:
    """A host that runs by URL cannot fetch our own generation (of `model`, `seconds` long)
    behind a loopback public URL: an edit of it is a 400 naming `video`, and the host is not
    called for it. `overrides` are settings."""
    async with started(case, tmp_path, **overrides) as run:
        key = await run.app.new_key()
        # Its own output, kept only on this server (no local render: it is slow under load).
        length = {} if seconds is None else {"duration": seconds}
        made = await run.app.generate(key, timeout=60, model=model, prompt="a fox", **length)
        assert made["status"] == "completed", made
        source = made["id"]
        refused = await run.app.create(
            key, model=model, prompt="p", type="video-to-video", video={"generation_id": source}
        )
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert (error["code"], error["param"]) == ("input_unreachable", "video")
    assert case.jobs(run.fake) == 1  # the source's only


def cases_in(package: ModuleType) -> list[Any]:
    """The CASES of every module in `package`, by module name."""
    found: list[Any] = []
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        found.extend(importlib.import_module(f"{package.__name__}.{module.name}").CASES)
    return found


def case_id(case: Any, cases: Sequence[Any], *fields: str) -> str:
    """The case's `fields` joined, numbered where other cases share them."""
    named = [str(getattr(case, name)) for name in fields]
    same = [c for c in cases if [str(getattr(c, name)) for name in fields] == named]
    suffix = f"-{same.index(case)}" if len(same) > 1 else ""
    return "-".join(named) + suffix


async def submitted_after(
    fake: Any, app: Harness, key: NewKey, generation_id: str, before: int = 0
) -> Any:
    """The body of the fake's next accepted submit after `before` of them, once it has one."""
    for _ in range(400):
        bodies = getattr(fake, "submitted", [])
        if len(bodies) > before:
            return bodies[before]
        shown = (await app.get(key, generation_id)).json()
        assert shown["status"] not in ("failed", "canceled"), shown
        await asyncio.sleep(0.05)
    raise AssertionError(f"{generation_id}: the fake accepted no submit (has it `submitted`?)")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def provider_routes(provider: str, tmp_path: Path) -> list[tuple[str, Route]]:
    """(model id, route) of every model the provider serves, its operator catalog included."""
    extra = None
    case = BY_NAME.get(provider)
    if case is not None and (text := case.catalog("http://127.0.0.1:9", 5.0)):
        extra = _write(tmp_path / f"{provider}.toml", text)
    return [
        (model.id, route)
        for model in load_catalog(extra).models
        if model.retired_on is None
        for route in model.routes
        if route.provider == provider
    ]
