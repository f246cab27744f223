"""The controls of a create (issue 13) in the OpenAPI document, per model: what each field
takes, and the rules between fields (an end frame needs `image_url`; a resolution may allow
only some durations), so that the document promises exactly what the create rules accept
(domain/create_controls.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.controls import MAX_SEED

Schema = dict[str, Any]
NULL: Schema = {"type": "null"}


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, NULL]}


def properties(m: ListedModel, prose: Schema, image: Schema, *, form: bool) -> dict[str, Schema]:
    """The six fields as model `m` takes them. In JSON a control it does not honour may only
    be null (= not given), `generate_audio` then only its default; a form has no null, so
    there such a field is absent from the schema (and refused as unknown to it)."""
    takes_image = "image-to-video" in m.spec.capabilities
    chars = m.limits.max_negative_prompt_chars
    offered: dict[str, Schema] = {
        "negative_prompt": {**prose, "maxLength": min(chars, prose["maxLength"])}
        if chars
        else prose,
        "seed": {"type": "integer", "minimum": 0, "maximum": m.limits.max_seed or MAX_SEED},
        "enhance_prompt": {"type": "boolean"},
    }
    if takes_image:
        offered["end_image_url"] = image
    out: dict[str, Schema] = {}
    if m.resolutions:
        out["resolution"] = {"type": "string", "enum": list(m.resolutions)}
    audio = [True, False] if "generate_audio" in m.supports else [m.audio]
    out["generate_audio"] = {"type": "boolean", "enum": audio}
    out.update({name: schema for name, schema in offered.items() if name in m.supports})
    if form:
        return out
    shown = {name: _nullable(schema) for name, schema in out.items()}
    for name in ("resolution", "negative_prompt", "seed", "end_image_url", "enhance_prompt"):
        shown.setdefault(name, NULL)
    return shown


def rules(
    m: ListedModel,
    duration: str,
    durations: Callable[[Sequence[float]], list[object]],
    sizes_of: Callable[[str | None], list[str]] | None,
) -> Schema:
    """`allOf` of the rules between fields (empty when there are none). `duration` names the
    duration field and `durations` spells its allowed values; `sizes_of(resolution)` are the
    sizes naming a resolution (None: naming none) where a `size` also sets it."""
    out: list[Schema] = []
    if (
        "end_image_url" in m.supports
        and "image-to-video" in m.spec.capabilities
        and "text-to-video" in m.spec.capabilities
    ):
        out.append({"if": _given("end_image_url"), "then": _given("image_url")})
    for resolution, allowed in m.durations_by_resolution.items():
        if resolution not in m.resolutions:
            continue
        values = durations(allowed)
        then: Schema = {"properties": {duration: {"enum": values}}, "required": [duration]}
        if m.default_duration in allowed:
            then = {"properties": {duration: {"enum": [*values, None]}}}
        out.append({"if": _asks(m, resolution, sizes_of), "then": then})
    for resolution, honoured in m.limits.controls_by_resolution.items():
        if resolution in m.resolutions and set(m.supports) - honoured:
            kept = {c: NULL for c in m.supports if c not in honoured and c != "generate_audio"}
            if "generate_audio" in m.supports and "generate_audio" not in honoured:
                kept["generate_audio"] = {"enum": [m.audio, None]}
            out.append({"if": _asks(m, resolution, sizes_of), "then": {"properties": kept}})
    for pair in m.limits.exclusive_controls:
        both = [_sound(m.audio) if c == "generate_audio" else _given(c) for c in pair]
        out.append({"not": {"allOf": both}})
    return {"allOf": out} if out else {}


def _asks(
    m: ListedModel, resolution: str, sizes_of: Callable[[str | None], list[str]] | None
) -> Schema:
    """A request that gets `resolution`: named, or set by its size, or (the default) neither."""
    named: Schema = {
        "required": ["resolution"],
        "properties": {"resolution": {"const": resolution}},
    }
    unnamed: Schema = {"properties": {"resolution": NULL}}
    default = resolution == m.resolutions[0]
    if sizes_of is None:
        return {"anyOf": [named, unnamed]} if default else named
    sizes: list[object] = list(sizes_of(resolution))
    if default:
        sizes += [*sizes_of(None), None]
        by_size: Schema = {"properties": {"resolution": NULL, "size": {"enum": sizes}}}
    else:
        by_size = {
            "required": ["size"],
            "properties": {"resolution": NULL, "size": {"enum": sizes}},
        }
    return {"anyOf": [named, by_size]}


def _sound(default: bool) -> Schema:
    """A request whose video has sound: asked for, or (when it is the default) not refused."""
    if default:
        return {"properties": {"generate_audio": {"enum": [True, None]}}}
    return {"required": ["generate_audio"], "properties": {"generate_audio": {"const": True}}}


def _given(name: str) -> Schema:
    return {"required": [name], "properties": {name: {"not": NULL}}}
