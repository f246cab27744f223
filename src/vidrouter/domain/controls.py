"""The optional controls of a generation (issue 13): what a user may ask beyond the seed's
fields, what a route declares it honours, and the price of each configuration.

A route declares, in its catalog entry:
- `resolutions`: the output resolutions it can make, the default first;
- `audio`: whether its default output has sound;
- `supports`: which optional controls it honours (`OPTIONAL_CONTROLS`); `generate_audio`
  here means the user may choose either way, otherwise only the default can be asked for;
- `variants`: the price per second of each configuration (resolution x audio) it makes;
- `durations_by_resolution`: where a resolution allows only some durations.
A route that says nothing of these inherits its model's declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

# Our vocabulary of output resolutions, smallest first (the order lists are shown in).
RESOLUTIONS = ("480p", "540p", "720p", "768p", "1080p", "4k")
# The controls a model may or may not honour: the names `supports` lists. `resolution` is
# not here: every model has one, and `resolutions` says which it takes.
OPTIONAL_CONTROLS = (
    "negative_prompt",
    "seed",
    "generate_audio",
    "end_image_url",
    "enhance_prompt",
)
CONTROL_FIELDS = ("resolution", *OPTIONAL_CONTROLS)
MAX_SEED = 4_294_967_295  # an unsigned 32-bit integer: the widest range every provider takes


@dataclass(frozen=True)
class Controls:
    """What a generation asked for, its model's defaults filled in (resolution and audio are
    always set on a stored generation; the others are None when not asked for)."""

    resolution: str | None = None
    generate_audio: bool | None = None
    negative_prompt: str | None = None
    seed: int | None = None
    end_image_url: str | None = None
    enhance_prompt: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Controls:
        if not data:
            return cls()
        return cls(**{name: data.get(name) for name in CONTROL_FIELDS})


@dataclass(frozen=True)
class PriceVariant:
    """The price of one configuration a route makes."""

    resolution: str
    audio: bool
    per_second: float

    def to_json(self) -> dict[str, Any]:
        return {"resolution": self.resolution, "audio": self.audio, "per_second": self.per_second}


# The catalog's declarations, from TOML values.


def parse_resolutions(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    out = tuple(str(r) for r in value)  # type: ignore[attr-defined]
    unknown = [r for r in out if r not in RESOLUTIONS]
    if unknown or len(set(out)) != len(out):
        raise ValueError(f"resolutions {out!r}: each once, from {', '.join(RESOLUTIONS)}")
    return out


def parse_supports(value: object) -> frozenset[str] | None:
    if value is None:
        return None
    out = frozenset(str(c) for c in value)  # type: ignore[attr-defined]
    unknown = sorted(out - set(OPTIONAL_CONTROLS))
    if unknown:
        raise ValueError(f"supports: unknown controls {unknown}; known: {OPTIONAL_CONTROLS}")
    return out


def parse_by_resolution(value: object) -> dict[str, tuple[float, ...]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError("durations_by_resolution must be a table of resolution = [seconds]")
    return {str(k): tuple(float(d) for d in v) for k, v in value.items()}


def parse_variants(value: object) -> tuple[PriceVariant, ...]:
    if value is None:
        return ()
    return tuple(
        PriceVariant(str(v["resolution"]), bool(v["audio"]), float(v["per_second"]))
        for v in value  # type: ignore[attr-defined]
    )
