"""The input types acceptance, once per case of every module in
tests/support/contract/inputs/ (see its __init__.py): each type a route lists reaches its
provider in the provider's own wire (asserted by the case on the body the fake received),
the typed job is polled and fetched to a completed generation, and an extension is stored
whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.contract import inputs as inputs_package
from tests.support.contract.cases import BY_NAME
from tests.support.contract.inputs import InputsCase, Media
from tests.support.contract.run import case_id, cases_in, provider_routes, started, submitted_after
from tests.support.harness import Harness
from tests.support.media_host import media_host
from vidrouter.domain.inputs import IMAGE_TO_VIDEO, TEXT_TO_VIDEO, VIDEO_EXTEND
from vidrouter.store.keys import NewKey

CASES: list[InputsCase] = cases_in(inputs_package)
HOSTS = ("fal", "replicate", "openrouter")


def _id(case: InputsCase) -> str:
    return case_id(case, CASES, "provider", "model", "type")


async def _completed(app: Harness, key: NewKey, body: dict[str, Any]) -> dict[str, Any]:
    created = await app.create(key, **body)
    assert created.status_code == 202, created.text
    done = await app.wait_for(key, created.json()["id"], timeout=60)
    assert done["status"] == "completed", done
    return done


async def _stored_seconds(app: Harness, gen_id: str) -> float:
    stored = await app.service.generation_store.get(gen_id)
    assert stored is not None and stored.video_duration is not None
    return stored.video_duration


@pytest.mark.parametrize("case", CASES, ids=_id)
async def test_each_type_reaches_the_provider_in_its_wire(case: InputsCase, tmp_path: Path) -> None:
    async with media_host() as media, started(BY_NAME[case.provider], tmp_path) as run:
        app, fake = run.app, run.fake
        key = await app.new_key()
        body: dict[str, Any] = {"model": case.model, "prompt": "a red fox runs through snow"}
        source_seconds = None
        if case.source == "own":
            made = await _completed(app, key, dict(body))
            source_seconds = await _stored_seconds(app, made["id"])
            body["video"] = {"generation_id": made["id"]}
        elif case.source == "url":
            body["video"] = {"url": media.video}
            source_seconds = 1.0
        if case.duration is not None:
            body["duration"] = case.duration
        body.update({"type": case.type, **case.body(media)})
        before = len(fake.submitted)
        requests_before = len(fake.plan.requests)
        created = await app.create(key, **body)
        assert created.status_code == 202, created.text
        gen_id = created.json()["id"]
        case.expect(await submitted_after(fake, app, key, gen_id, before), media)
        if case.path is not None:
            posts = [p for m, p in fake.plan.requests[requests_before:] if m == "POST"]
            assert any(case.path in p for p in posts), posts
        done = await app.wait_for(key, gen_id, timeout=60)
        assert done["status"] == "completed", done
        assert done["type"] == case.type
        if case.type == VIDEO_EXTEND:
            assert source_seconds is not None
            assert await _stored_seconds(app, gen_id) > source_seconds  # the whole video


def _kinds(case: InputsCase) -> set[str]:
    """The reference kinds a case sends (with placeholder media: only the shape matters)."""
    probe = Media("i", b"", "v", b"", "a", b"")
    return {str(r.get("type")) for r in case.body(probe).get("references", [])}


@pytest.mark.parametrize("provider", sorted(set(BY_NAME) | {c.provider for c in CASES}))
def test_the_cases_cover_every_type_of_the_provider(provider: str, tmp_path: Path) -> None:
    """Each type beyond text- and image-to-video (tests/contract/test_controls.py sends the
    first frame) that a route of the provider lists, and each reference
    kind it takes, is sent by a case: for a maker's own API model by model, for a host once."""
    missing: dict[str, set[str]] = {}
    for model, route in provider_routes(provider, tmp_path):
        scope = provider if provider in HOSTS else model
        mine = [c for c in CASES if c.provider == provider and scope in (provider, c.model)]
        types = set(route.inputs.types or ()) - {TEXT_TO_VIDEO, IMAGE_TO_VIDEO}
        kinds = set((route.inputs.references or {}).keys())
        missing.setdefault(f"{scope}: type never sent", set()).update(
            types - {c.type for c in mine}
        )
        missing.setdefault(f"{scope}: reference kind never sent", set()).update(
            kinds - set().union(*(_kinds(c) for c in mine))
        )
    gaps = {where: sorted(names) for where, names in missing.items() if names}
    assert not gaps, gaps
