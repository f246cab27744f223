"""Which fields of a create (`create_fields.py`) a model takes or needs, and the rules
between fields in JSON Schema (a control that needs another field; a resolution that allows
only some durations, or only some controls; controls that cannot go together), so that the
document promises exactly what the create rules accept (`create_controls.py`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.create_fields import CONTROLS, CREATE_FIELDS, CreateField, Kind
from vidrouter.domain.inputs import IMAGE_TO_VIDEO, TEXT_TO_VIDEO

Schema = dict[str, Any]
NULL: Schema = {"type": "null"}
_FIELDS = {f.name: f for f in CREATE_FIELDS}


def takes(f: CreateField, m: ListedModel) -> bool:
    """Whether model `m` takes field `f` at all: a control only if its `supports` lists it,
    an image only if it makes videos from images, a field that needs another only with it."""
    if f.rule.supports and f.name not in m.supports:
        return False
    if f.rule.needs is not None and not takes(_FIELDS[f.rule.needs], m):
        return False
    if f.kind is Kind.IMAGE:
        return IMAGE_TO_VIDEO in m.capabilities
    if f.kind is Kind.RESOLUTION:
        return bool(m.resolutions)
    return True


def required(f: CreateField, m: ListedModel) -> bool:
    """Whether model `m` needs field `f` (the start image of an image-only model)."""
    if f.required:
        return True
    return (
        f.kind is Kind.IMAGE
        and f.rule.needs is None
        and not f.rule.supports
        and TEXT_TO_VIDEO not in m.capabilities
    )


def rules(
    m: ListedModel,
    duration: str,
    durations: Callable[[Sequence[float]], list[object]],
    sizes_of: Callable[[str | None], list[str]] | None,
    image: str | None = "image_url",
) -> Schema:
    """`allOf` of the rules between fields (empty when there are none). `duration` names the
    duration field and `durations` spells its allowed values; `sizes_of(resolution)` are the
    sizes naming a resolution (None: naming none) where a `size` also sets it; `image` is
    the start image's name in this body, None where the body's branches say what goes with
    an image instead of rules (a multipart form, whose file part no rule can judge)."""
    out: list[Schema] = []
    for f in CONTROLS:
        needs = _FIELDS[f.rule.needs] if f.rule.needs is not None else None
        if needs is None or not takes(f, m) or required(needs, m):
            continue
        if needs.kind is not Kind.IMAGE:
            out.append({"if": _given(f.name), "then": _given(needs.name)})
        elif image is not None:
            out.append({"if": _given(f.name), "then": _given(image)})
    for resolution, allowed in m.durations_by_resolution.items():
        if resolution not in m.resolutions:
            continue
        values = durations(allowed)
        then: Schema = {"properties": {duration: {"enum": values}}, "required": [duration]}
        if m.default_duration in allowed:
            then = {"properties": {duration: {"enum": [*values, None]}}}
        out.append({"if": _asks(m, resolution, sizes_of), "then": then})
    sound = [f.name for f in CONTROLS if f.kind is Kind.SOUND]
    for resolution, honoured in m.limits.controls_by_resolution.items():
        if resolution in m.resolutions and set(m.supports) - honoured:
            kept = {c: NULL for c in m.supports if c not in honoured and c not in sound}
            for name in sound:
                if name in m.supports and name not in honoured:
                    kept[name] = {"enum": [m.audio, None]}
            out.append({"if": _asks(m, resolution, sizes_of), "then": {"properties": kept}})
    # A named type needs its input: image-to-video an image, text-to-video none.
    if IMAGE_TO_VIDEO in m.capabilities and image is not None:
        out.append({"if": _named_type(IMAGE_TO_VIDEO), "then": _given(image)})
        out.append({"if": _named_type(TEXT_TO_VIDEO), "then": {"properties": {image: NULL}}})
    for pair in m.limits.exclusive_controls:
        both = [_sound(c, m.audio) if c in sound else _given(c) for c in pair]
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


def _sound(name: str, default: bool) -> Schema:
    """A request whose video has sound: asked for, or (when it is the default) not refused."""
    if default:
        return {"properties": {name: {"enum": [True, None]}}}
    return {"required": [name], "properties": {name: {"const": True}}}


def _named_type(kind: str) -> Schema:
    return {"required": ["type"], "properties": {"type": {"const": kind}}}


def _given(name: str) -> Schema:
    return {"required": [name], "properties": {name: {"not": NULL}}}
