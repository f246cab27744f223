"""The model hosts (fal, Replicate, OpenRouter) declare each route's control fields in its
options: every control a route supports, and its resolution where it offers several, must
have a field the request could be sent under."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tests.support.host_controls import declared_fields_problems
from vidrouter.providers.openrouter.adapter import FIELDS


@pytest.mark.parametrize(
    ("provider", "defaults", "built_in"),
    [
        ("fal", None, ()),
        ("replicate", None, ()),
        # OpenRouter's normalised fields need no declaration; the last frame is its own.
        ("openrouter", FIELDS, ("end_image_url",)),
    ],
)
def test_every_declared_control_has_a_field(
    provider: str, defaults: Mapping[str, str] | None, built_in: tuple[str, ...]
) -> None:
    assert declared_fields_problems(provider, defaults, built_in) == []
