"""The catalog as data: built-in files load, routes narrow limits, extra routes attach, and
`vidrouter catalog check` reports what differs from a host's published catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.process import cli_env, run_cli
from vidrouter.domain.catalog import load_catalog, offer
from vidrouter.domain.catalog_diff import PublishedLimits, compare


def test_builtin_catalog_loads_and_every_route_has_an_adapter() -> None:
    from vidrouter.providers.registry import factories

    catalog = load_catalog()
    ids = [m.id for m in catalog.models]
    assert len(ids) == len(set(ids))
    for model in catalog.models:
        assert model.provider and model.aspect_ratios and model.capabilities
        for route in model.routes:
            assert route.provider in factories(), route.key
            assert route.price_per_second >= 0


def test_usable_routes_narrow_the_limits_and_set_the_price(tmp_path: Path) -> None:
    extra = tmp_path / "c.toml"
    extra.write_text(
        """
[[models]]
id = "m"
name = "M"
provider = "Maker"
max_duration = 10
default_duration = 5
durations = [5, 10]
aspect_ratios = ["16:9", "9:16", "1:1"]
  [[models.routes]]
  provider = "alpha"
  model = "m-alpha"
  price_per_second = 0.30
[[extra_routes]]
for_model = "m"
provider = "beta"
model = "m-beta"
price_per_second = 0.10
durations = [5]
aspect_ratios = ["16:9", "9:16"]
"""
    )
    model = load_catalog(extra).get("m")
    assert model is not None and len(model.routes) == 2
    both = offer(model, lambda r: True)
    assert both is not None
    assert both.routes[0].provider == "beta"  # cheapest first
    assert both.price_per_second == 0.10
    assert both.durations == (5.0,) and both.aspect_ratios == ("16:9", "9:16")
    only_alpha = offer(model, lambda r: r.provider == "alpha")
    assert only_alpha is not None
    assert only_alpha.durations == (5.0, 10.0) and only_alpha.price_per_second == 0.30
    assert offer(model, lambda r: False) is None


def test_compare_reports_price_limit_and_missing_differences() -> None:
    catalog = load_catalog()
    model = catalog.get("local-preview")
    assert model is not None
    route = model.routes[0]
    same = {route.provider_model: PublishedLimits(0.0, None, 20.0, ("16:9", "9:16", "1:1"))}
    assert compare([(model, route)], same) == []
    changed = {route.provider_model: PublishedLimits(0.05, None, 10.0, ("16:9",))}
    fields = {d.field for d in compare([(model, route)], changed)}
    assert fields == {"price_per_second", "max_duration", "aspect_ratios"}
    gone = compare([(model, route)], {})
    assert [d.field for d in gone] == ["listed"]


def test_catalog_list_and_check_commands(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    listed = run_cli(env, "catalog", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert '"model": "local-preview"' in listed.stdout
    checked = run_cli(env, "catalog", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_extend_durations_are_what_an_extension_adds(tmp_path: Path) -> None:
    entry = """
[[models]]
id = "m"
name = "M"
provider = "Maker"
max_duration = 8
durations = [4, 8]
aspect_ratios = ["16:9"]
  [[models.routes]]
  provider = "alpha"
  model = "m-alpha"
  price_per_second = 0.30
  capabilities = ["text-to-video", "video-extend"]
  extends_own_output = true
  extend_durations = {value}
"""
    extra = tmp_path / "c.toml"
    extra.write_text(entry.replace("{value}", "[7]"))
    model = load_catalog(extra).get("m")
    assert model is not None
    offered = offer(model, lambda r: True)
    assert offered is not None and offered.inputs.extend_durations == (7.0,)
    assert offered.inputs.to_json()["extend_durations"] == [7.0]
    for wrong in ("[]", "[0]", '["7"]', "7"):
        extra.write_text(entry.replace("{value}", wrong))
        with pytest.raises(ValueError, match="extend_durations"):
            load_catalog(extra)
