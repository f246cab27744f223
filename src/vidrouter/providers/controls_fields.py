"""The hosts' controls, declared per catalog route rather than coded per app.

A host (fal, Replicate, OpenRouter) serves many makers' models, each with its own input
names. A route names them in its options:

    "field.<control>"  = the input field a control goes to ("negative_prompt",
                         "tail_image_url"); dots nest it ("provider.options.alibaba.seed");
                         an empty string: the route never sends it
    "values.<control>" = "ours=theirs,..." where the host spells a value differently
                         ("4k=4K"; booleans are "true" / "false")
    "durations"        = "5,9": the clip lengths (seconds) a maker's own API makes
    "aspect_ratios"    = "16:9,9:16": the frame shapes it makes

Only a control the request sets is sent. The router has already checked that the route
honours every control asked for, so a control without a field here is one whose only value
is the route's default (a fixed resolution, a model without sound): nothing to send.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vidrouter.domain.controls import CONTROL_FIELDS, Controls
from vidrouter.domain.generation import JsonScalar

FIELD = "field."
VALUES = "values."


def field_name(
    options: Mapping[str, JsonScalar], control: str, defaults: Mapping[str, str] | None = None
) -> str | None:
    """The route's input field for `control` (None: not sent on this route)."""
    value = options.get(FIELD + control, (defaults or {}).get(control))
    return value if isinstance(value, str) and value else None


def control_inputs(
    options: Mapping[str, JsonScalar],
    controls: Controls,
    defaults: Mapping[str, str] | None = None,
    values: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The inputs for the controls set on a request, under the route's field names (nested
    where a name has dots); `defaults` and `values` are the host's own names and spellings,
    which a route's options override."""
    out: dict[str, Any] = {}
    for control in CONTROL_FIELDS:
        value = getattr(controls, control)
        name = field_name(options, control, defaults)
        if value is None or name is None:
            continue
        spelled = options.get(VALUES + control, (values or {}).get(control))
        mapping = pairs(spelled)
        key = str(value).lower() if isinstance(value, bool) else str(value)
        put(out, name, mapping.get(key, value))
    return out


DURATIONS = "durations"
ASPECT_RATIOS = "aspect_ratios"
# The aspect ratios a route makes from text alone (others only from an image).
TEXT_ASPECT_RATIOS = "text_aspect_ratios"


def listed(options: Mapping[str, JsonScalar], name: str) -> tuple[str, ...]:
    """The comma-separated values of a route's option `name`; () when it has none."""
    declared = options.get(name)
    return tuple(part.strip() for part in str(declared or "").split(",") if part.strip())


def offered_durations(options: Mapping[str, JsonScalar]) -> tuple[int, ...]:
    """The clip lengths (whole seconds) a route's `durations = "5,9"` option declares, in
    order; () when it declares none."""
    return tuple(sorted(int(part) for part in listed(options, DURATIONS)))


def put(target: dict[str, Any], dotted: str, value: Any) -> None:
    """Set `value` at a dotted path, creating the objects on the way."""
    *parents, last = dotted.split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = value


def merge(target: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`extra` merged into `target`, objects merged key by key (the later value wins)."""
    for key, value in extra.items():
        known = target.get(key)
        if isinstance(known, dict) and isinstance(value, Mapping):
            merge(known, value)
        else:
            target[key] = value
    return target


def pairs(text: JsonScalar) -> dict[str, Any]:
    """`"a=b,c=d"` as a mapping; `true`/`false` and integers keep their JSON types."""
    if not isinstance(text, str):
        return {}
    out: dict[str, Any] = {}
    for item in text.split(","):
        key, sep, raw = item.partition("=")
        if not sep:
            continue
        value = raw.strip()
        typed: Any = {"true": True, "false": False}.get(value, value)
        out[key.strip()] = int(value) if value.lstrip("-").isdigit() else typed
    return out


__all__ = ["control_inputs", "field_name", "merge", "pairs", "put"]
