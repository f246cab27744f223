"""The optional controls of a create (issue 13, domain/controls.py), checked against what the
model offers: its `resolutions`, its default `audio` and the controls it `supports`.

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
from vidrouter.domain.controls import CONTROL_FIELDS, MAX_SEED, Controls
from vidrouter.domain.errors import InvalidRequest

__all__ = ["CONTROL_FIELDS", "parse_controls"]


def parse_controls(
    body: Mapping[str, object],
    model: ListedModel,
    *,
    duration: float,
    image_url: str | None,
    max_text_chars: int,
) -> Controls:
    resolution = fields.string(body, "resolution", required=False)
    audio = fields.boolean(body, "generate_audio")
    negative = fields.string(body, "negative_prompt", required=False)
    seed = _seed(body, model.limits.max_seed or MAX_SEED)
    end_image = fields.string(body, "end_image_url", required=False)
    enhance = fields.boolean(body, "enhance_prompt")
    asked = {
        "negative_prompt": negative,
        "seed": seed,
        "end_image_url": end_image,
        "enhance_prompt": enhance,
    }
    for name, value in asked.items():
        if value is not None and name not in model.supports:
            raise _unsupported(model, name)
    if audio is not None and audio != model.audio and "generate_audio" not in model.supports:
        sound = "with sound" if model.audio else "without sound"
        raise InvalidRequest(
            f"model {model.id} makes videos {sound} only: generate_audio must be "
            f"{str(model.audio).lower()} or absent",
            code="control_unsupported",
            param="generate_audio",
        )
    resolution = _resolution(resolution, model, duration)
    if negative is not None:
        most = model.limits.max_negative_prompt_chars or max_text_chars
        fields.prose(negative, "negative_prompt", min(most, max_text_chars))
    if end_image is not None:
        if image_url is None:
            raise InvalidRequest(
                "end_image_url is the last frame of a video that starts at image_url: give "
                "image_url too",
                code="image_required",
                param="end_image_url",
            )
        fields.image_url(end_image, "end_image_url")
    controls = Controls(
        resolution=resolution,
        generate_audio=model.audio if audio is None else audio,
        negative_prompt=negative,
        seed=seed,
        end_image_url=end_image,
        enhance_prompt=enhance,
    )
    refused = model.limits.refusal(controls, model.audio)
    if refused is not None:
        param, code, why = refused
        raise InvalidRequest(f"model {model.id}: {why}", code=code, param=param)
    return controls


def _seed(body: Mapping[str, object], most: int) -> int | None:
    value = body.get("seed")
    if value is None:
        return None
    # A JSON 7.0 is an integer to most clients; a bool is not a number to anyone.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise fields.invalid_type("seed", "an integer", value)
    if not 0 <= value <= most:
        raise InvalidRequest(
            f"seed must be an integer from 0 to {most}",
            code="seed_invalid",
            param="seed",
        )
    return value


def _resolution(value: str | None, model: ListedModel, duration: float) -> str | None:
    if value is None:
        return model.resolutions[0] if model.resolutions else None
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
