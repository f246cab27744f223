"""The harness's typed settings overrides stay the settings' own fields."""

from __future__ import annotations

from tests.support.harness import SettingsOverrides
from vidrouter.settings import Settings


def test_overrides_name_every_setting() -> None:
    # data_dir and database_url are test_settings' own parameters, not overrides.
    named = set(SettingsOverrides.__annotations__) | {"data_dir", "database_url"}
    assert named == set(Settings.model_fields)
