"""GET /v1/models and /v1/models/{id}: the seed's fields, listed only when usable."""

from __future__ import annotations

from pathlib import Path

from tests.support.catalogs import local_model
from tests.support.contract.cases import CASES as PROVIDER_CASES
from tests.support.contract.cases import KEY
from tests.support.harness import Harness, running, test_settings
from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.controls import OPTIONAL_CONTROLS

SEED_FIELDS = {
    "id",
    "name",
    "description",
    "provider",
    "type",
    "max_duration",
    "aspect_ratios",
    "pricing",
    "capabilities",
}


async def test_list_and_detail(app: Harness) -> None:
    key = await app.new_key()
    listing = await app.client.get("/v1/models", headers=app.auth(key))
    assert listing.status_code == 200
    body = listing.json()
    assert body["object"] == "list"
    local = next(m for m in body["data"] if m["id"] == "local-preview")
    assert set(local) >= SEED_FIELDS
    assert "object" not in local
    assert "durations" not in local  # continuous durations: the field is absent, not null
    assert local["provider"] == "vidrouter"
    assert {k: local["pricing"][k] for k in ("per_second", "currency")} == {
        "per_second": 0.0,
        "currency": "USD",
    }
    assert all(v["per_second"] == 0.0 for v in local["pricing"]["variants"])
    assert local["aspect_ratios"] == ["16:9", "9:16", "1:1"]
    assert local["capabilities"] == [
        "text-to-video",
        "image-to-video",
        "reference-to-video",
        "video-to-video",
        "video-extend",
    ]
    assert local["type"] == "text-to-video"
    assert local["limits"] == {
        "references": {"image": 3},
        "max_source_seconds": 120,
        "max_source_bytes": 512 * 1024 * 1024,
    }
    assert local["max_duration"] == 20 and local["default_duration"] == 5

    detail = await app.client.get("/v1/models/local-preview", headers=app.auth(key))
    assert detail.status_code == 200
    item = detail.json()
    routes = item.pop("routes")  # the item alone shows the routes (docs/routing.md)
    assert item == {**local, "object": "model"}
    assert routes == [
        {
            "provider": "local",
            "price_per_second": 0.0,
            "variants": local["pricing"]["variants"],
            "state": "available",
            "success_rate": None,
            "p50_seconds": None,
            "p95_seconds": None,
            "completed": 0,
            "failed": 0,
        }
    ]


async def test_unknown_model_is_404(app: Harness) -> None:
    key = await app.new_key()
    response = await app.client.get("/v1/models/nope", headers=app.auth(key))
    assert response.status_code == 404
    assert response.json()["error"] == {
        "type": "not_found_error",
        "code": "model_not_found",
        "message": "no model with id 'nope'",
        "param": "model_id",
    }


async def test_fresh_install_without_credentials_lists_only_local_models(tmp_path: Path) -> None:
    async with running(test_settings(tmp_path / "d", environ={}), workers=False) as app:
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
        assert {m["provider"] for m in data} == {"vidrouter"}


async def test_operator_catalog_extends_and_discrete_durations_are_enforced(
    tmp_path: Path,
) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        local_model(
            "house-style",
            0.05,
            name="House style",
            description="The local renderer with our own limits.",
            max_duration=8,
            default_duration=4,
            durations=[4, 8],
            aspect_ratios=["9:16", "16:9"],
        )
    )
    settings = test_settings(tmp_path / "d", catalog=catalog)
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        model = (await app.client.get("/v1/models/house-style", headers=app.auth(key))).json()
        assert model["durations"] == [4, 8]
        assert model["pricing"]["per_second"] == 0.05
        assert model["aspect_ratios"] == ["9:16", "16:9"]
        bad = await app.create(key, model="house-style", prompt="x", duration=5)
        assert bad.status_code == 400
        assert bad.json()["error"]["code"] == "duration_unsupported"
        good = await app.create(key, model="house-style", prompt="x")
        assert good.status_code == 202
        assert (good.json()["duration"], good.json()["aspect_ratio"]) == (4, "9:16")


async def test_every_model_of_every_host_lists_what_all_its_routes_honour(
    tmp_path: Path,
) -> None:
    """Issue 13 on the whole built-in catalog with every provider's credentials: each model
    shows `resolutions` (its default first), `supports` and `pricing.variants`; they are what
    every one of its routes honours (worked out here from the catalog, route by route);
    `pricing.per_second` is the price of the default configuration; each route can make
    that default (its sound, or a switch for it)."""
    environ: dict[str, str] = {}
    for case in PROVIDER_CASES:
        environ |= case.environ("http://127.0.0.1:9", KEY)
    specs = {m.id: m for m in load_catalog().models if m.retired_on is None}
    routes_of = {model_id: spec.routes for model_id, spec in specs.items()}
    async with running(test_settings(tmp_path / "d", environ=environ), workers=False) as app:
        key = await app.new_key()
        data = (await app.client.get("/v1/models", headers=app.auth(key))).json()["data"]
    assert {m["id"] for m in data} == set(routes_of)  # every provider is configured
    for model in data:
        routes = routes_of[model["id"]]
        every = [set(r.resolutions or ()) for r in routes]
        assert set(model["resolutions"]) == set.intersection(*every), model["id"]
        declared = specs[model["id"]].resolutions
        if declared and declared[0] in model["resolutions"]:
            assert model["resolutions"][0] == declared[0], model["id"]  # the default first
        honoured = set.intersection(*(set(r.supports or ()) for r in routes))
        assert model["supports"] == [c for c in OPTIONAL_CONTROLS if c in honoured], model["id"]
        audios = {model["audio"]} | (
            {not model["audio"]} if "generate_audio" in honoured else set()
        )
        priced = {  # a variant of one generation type only prices that type
            (v["resolution"], v["audio"]): v["per_second"]
            for v in model["pricing"]["variants"]
            if "type" not in v
        }
        assert set(priced) == {(r, a) for r in model["resolutions"] for a in audios}, model["id"]
        if model["resolutions"]:
            default = (model["resolutions"][0], model["audio"])
            assert model["pricing"]["per_second"] == priced[default], model["id"]
        for route in routes:
            can = route.audio == model["audio"] or "generate_audio" in (route.supports or ())
            assert can, (model["id"], route.key, "cannot make the default sound")
