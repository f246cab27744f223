"""The optional controls of a create (declared in domain/create_fields.py, each read and
checked by its kind), checked against what the model offers: its `resolutions`, its default
`audio` and the controls it `supports`.

Each control is optional. A wrong type is `parameter_invalid_type`; a control the model
cannot honour is refused naming it as `param` before any provider is called:

| code                    | when                                                           |
|-------------------------|----------------------------------------------------------------|
| `resolution_unsupported`| `resolution` not among the model's `resolutions`               |
| `control_unsupported`   | a control not in its `supports` (for `generate_audio`: the    |
|                         | value other than the model's default `audio`)                  |
| `duration_unsupported`  | (param `resolution`) the resolution allows other durations     |
| `seed_invalid`          | `seed` not an integer 0..4294967295 (or the model's `max_seed`)|
| `negative_prompt_too_long` | longer than the model's `max_negative_prompt_chars`         |
| `control_unsupported`   | a control its `controls_by_resolution` does not allow at the   |
|                         | resolution, or one of an `exclusive_controls` pair (the second |
|                         | is named) asked with the other                                 |
| `image_required`        | (param `end_image_url`) an end frame without `image_url`       |

The model's defaults fill what is absent: `resolution` its first listed resolution (None for
a model that lists none), `generate_audio` its default `audio`.
"""

from __future__ import annotations

from collections.abc import Mapping

from vidrouter.domain import request_fields as fields
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.controls import MAX_SEED, Controls
from vidrouter.domain.create_fields import CONTROLS, CreateField, Kind
from vidrouter.domain.errors import InvalidRequest

__all__ = ["parse_controls"]

# Read in this order, so that of several wrong types the first is named: the controls with
# a model default (resolution, sound) first, then the others as declared.
_READING = sorted(CONTROLS, key=lambda f: f.kind not in (Kind.RESOLUTION, Kind.SOUND))
# The controls without a model default: asked for, or absent.
_ASKED = tuple(f for f in _READING if f.kind not in (Kind.RESOLUTION, Kind.SOUND))


def parse_controls(
    body: Mapping[str, object],
    model: ListedModel,
    *,
    duration: float,
    given: Mapping[str, object],
    max_text_chars: int,
) -> Controls:
    """`given`: the request's other fields, parsed (what a control `needs` is looked up in)."""
    read = {f.name: _read(body, f, model) for f in _READING}
    for f in _ASKED:
        if read[f.name] is not None and f.name not in model.supports:
            raise _unsupported(model, f.name)
    values: dict[str, object] = {}
    for f in _READING:
        value = read[f.name]
        if f.kind is Kind.SOUND:
            values[f.name] = _sound(f.name, value, model)
        elif f.kind is Kind.RESOLUTION:
            values[f.name] = _resolution(value, model, duration)
        else:
            values[f.name] = _checked(f, value, model, given, max_text_chars)
    controls = Controls(**values)  # type: ignore[arg-type]
    refused = model.limits.refusal(controls, model.audio)
    if refused is not None:
        param, code, why = refused
        raise InvalidRequest(f"model {model.id}: {why}", code=code, param=param)
    return controls


def _read(body: Mapping[str, object], f: CreateField, model: ListedModel) -> object:
    """The control's value as given, of its type (None: absent)."""
    if f.json_type == "boolean":
        return fields.boolean(body, f.name)
    if f.kind is Kind.SEED:
        return _seed(body, f.name, model.limits.max_seed or MAX_SEED)
    return fields.string(body, f.name, required=False)


def _checked(
    f: CreateField,
    value: object,
    model: ListedModel,
    given: Mapping[str, object],
    max_text_chars: int,
) -> object:
    """An asked control's value once its kind's rules have passed."""
    if value is None:
        return None
    if f.kind is Kind.PROSE:
        assert isinstance(value, str)
        most = model.limits.max_negative_prompt_chars or max_text_chars
        return fields.prose(value, f.name, min(most, max_text_chars))
    if f.kind is Kind.IMAGE:
        assert isinstance(value, str)
        if f.rule.needs is not None and given.get(f.rule.needs) is None:
            raise InvalidRequest(
                f"{f.name} is {f.rule.needs_why}: give {f.rule.needs} too",
                code="image_required",
                param=f.name,
            )
        return fields.image_url(value, f.name)
    return value


def _sound(name: str, value: object, model: ListedModel) -> bool:
    if value is not None and value != model.audio and name not in model.supports:
        sound = "with sound" if model.audio else "without sound"
        raise InvalidRequest(
            f"model {model.id} makes videos {sound} only: {name} must be "
            f"{str(model.audio).lower()} or absent",
            code="control_unsupported",
            param=name,
        )
    return model.audio if value is None else bool(value)


def _seed(body: Mapping[str, object], name: str, most: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    # A JSON 7.0 is an integer to most clients; a bool is not a number to anyone.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise fields.invalid_type(name, "an integer", value)
    if not 0 <= value <= most:
        raise InvalidRequest(
            f"{name} must be an integer from 0 to {most}",
            code=f"{name}_invalid",
            param=name,
        )
    return value


def _resolution(value: object, model: ListedModel, duration: float) -> str | None:
    if value is None:
        return model.resolutions[0] if model.resolutions else None
    assert isinstance(value, str)
    if value not in model.resolutions:
        offered = (
            f"it offers {', '.join(model.resolutions)}"
            if model.resolutions
            else "it does not let you choose one"
        )
        raise InvalidRequest(
            f"resolution {_clip(value)!r} is not supported by model {model.id}; {offered}",
            code="resolution_unsupported",
            param="resolution",
        )
    allowed = model.durations_by_resolution.get(value)
    if allowed is not None and duration not in allowed:
        seconds = ", ".join(_num(d) for d in allowed)
        raise InvalidRequest(
            f"model {model.id} makes {value} videos of {seconds} s only, not {_num(duration)} s",
            code="duration_unsupported",
            param="resolution",
        )
    return value


def _unsupported(model: ListedModel, name: str) -> InvalidRequest:
    honoured = ", ".join(model.supports) or "none"
    return InvalidRequest(
        f"model {model.id} does not support {name} (the optional controls it honours: "
        f"{honoured}; GET /v1/models lists them as `supports`)",
        code="control_unsupported",
        param=name,
    )


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"
