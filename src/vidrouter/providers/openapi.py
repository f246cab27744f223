"""Reading the OpenAPI schemas hosts publish for their models (fal, Replicate): the values an
input takes, through `$ref`s and `allOf`/`anyOf`/`oneOf` (Cog writes enums that way)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_SECONDS = re.compile(r"(\d+(?:\.\d+)?)s?")


def mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def resolve(schema: object, schemas: Mapping[str, Any]) -> dict[str, Any]:
    """The schema a `$ref` chain ends at (`#/components/schemas/<name>`), or {}."""
    for _ in range(10):
        if not isinstance(schema, dict):
            return {}
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            return schema
        schema = schemas.get(ref.rsplit("/", 1)[-1])
    return {}


def enum(schema: object, schemas: Mapping[str, Any]) -> list[Any]:
    """The values an input allows, from its own `enum` or those of its composed parts."""
    resolved = resolve(schema, schemas)
    if isinstance(resolved.get("enum"), list):
        return list(resolved["enum"])
    values: list[Any] = []
    for key in ("allOf", "anyOf", "oneOf"):
        for part in resolved.get(key) or []:
            values += enum(part, schemas)
    return values


def durations(schema: object, schemas: Mapping[str, Any]) -> tuple[float, ...] | None:
    """Seconds an input allows: its enum ("5", 5, "5s"), else a small integer range."""
    found = set()
    for value in enum(schema, schemas):
        match = _SECONDS.fullmatch(str(value))
        if match:
            found.add(float(match.group(1)))
    resolved = resolve(schema, schemas)
    low, high = resolved.get("minimum"), resolved.get("maximum")
    if not found and isinstance(low, int) and isinstance(high, int) and 0 < high - low <= 60:
        found = {float(s) for s in range(low, high + 1)}
    return tuple(sorted(found)) or None
