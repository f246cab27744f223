"""The optional controls of a generation: what a user may ask beyond the seed's
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

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from vidrouter.domain.create_fields import CONTROLS

# Our vocabulary of output resolutions, smallest first (the order lists are shown in).
RESOLUTIONS = ("480p", "540p", "720p", "768p", "1080p", "4k")
# The controls, as the create request declares them (domain/create_fields.py), and those a
# model may or may not honour: the names `supports` lists. `resolution` is not among those:
# every model has one, and `resolutions` says which it takes.
CONTROL_FIELDS = tuple(f.name for f in CONTROLS)
OPTIONAL_CONTROLS = tuple(f.name for f in CONTROLS if f.rule.supports)
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
    """The price of one configuration a route makes; with a `type`, of that generation type
    only (domain/inputs.py: an extension priced apart, say), else of every type."""

    resolution: str
    audio: bool
    per_second: float
    type: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "resolution": self.resolution,
            "audio": self.audio,
            "per_second": self.per_second,
        }
        if self.type is not None:
            out["type"] = self.type
        return out


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
        PriceVariant(
            str(v["resolution"]),
            bool(v["audio"]),
            float(v["per_second"]),
            str(v["type"]) if v.get("type") is not None else None,
        )
        for v in value  # type: ignore[attr-defined]
    )


@dataclass(frozen=True)
class Limits:
    """A provider's limits on the controls it honours, beyond `supports` (catalog keys of the
    same names; None or empty: no limit of that kind):
    - `max_seed`: the largest seed it takes (ours is MAX_SEED);
    - `max_negative_prompt_chars`: the longest negative prompt;
    - `controls_by_resolution`: at a listed resolution, the only optional controls it honours
      (`generate_audio` here: sound may be switched at that resolution);
    - `exclusive_controls`: pairs it cannot take together (`generate_audio`: asking for sound).
    """

    max_seed: int | None = None
    max_negative_prompt_chars: int | None = None
    controls_by_resolution: Mapping[str, frozenset[str]] = field(default_factory=dict)
    exclusive_controls: tuple[tuple[str, str], ...] = ()

    def over(self, model: Limits) -> Limits:
        """A route's limits: its own, the model's where it declares none of a kind."""
        return Limits(
            model.max_seed if self.max_seed is None else self.max_seed,
            self.max_negative_prompt_chars or model.max_negative_prompt_chars,
            self.controls_by_resolution or model.controls_by_resolution,
            self.exclusive_controls or model.exclusive_controls,
        )

    def refusal(self, asked: Controls, audio: bool) -> tuple[str, str, str] | None:
        """`(param, code, why)` for the first control of `asked` these limits refuse (`audio`:
        whether the default output has sound), None when they take it all."""
        seed, negative = asked.seed, asked.negative_prompt
        if seed is not None and self.max_seed is not None and seed > self.max_seed:
            return "seed", "seed_invalid", f"seed must be an integer from 0 to {self.max_seed}"
        limit = self.max_negative_prompt_chars
        if negative is not None and limit is not None and len(negative) > limit:
            why = f"negative_prompt has {len(negative)} characters; the limit is {limit}"
            return "negative_prompt", "negative_prompt_too_long", why
        allowed = self.controls_by_resolution.get(asked.resolution or "")
        for name in _asked(asked, audio != asked.generate_audio):
            if allowed is not None and name not in allowed:
                there = ", ".join(c for c in OPTIONAL_CONTROLS if c in allowed) or "none"
                why = f"{name} is not available at {asked.resolution} (there: {there})"
                return name, "control_unsupported", why
        given = set(_asked(asked, asked.generate_audio is True))
        for first, second in self.exclusive_controls:
            if first in given and second in given:
                return second, "control_unsupported", f"{first} and {second} cannot go together"
        return None

    def to_json(self) -> dict[str, Any]:
        """The limits that are set, as GET /v1/models shows them."""
        out: dict[str, Any] = {}
        if self.max_seed is not None:
            out["max_seed"] = self.max_seed
        if self.max_negative_prompt_chars is not None:
            out["max_negative_prompt_chars"] = self.max_negative_prompt_chars
        if self.controls_by_resolution:
            out["controls_by_resolution"] = {
                r: [c for c in OPTIONAL_CONTROLS if c in allowed]
                for r, allowed in self.controls_by_resolution.items()
            }
        if self.exclusive_controls:
            out["exclusive_controls"] = [list(pair) for pair in self.exclusive_controls]
        return out


def _asked(asked: Controls, audio_asked: bool) -> list[str]:
    """The optional controls `asked` sets (`generate_audio` when `audio_asked`)."""
    return [
        name
        for name in OPTIONAL_CONTROLS
        if (audio_asked if name == "generate_audio" else getattr(asked, name) is not None)
    ]


def narrow(limits: Iterable[Limits], resolutions: Iterable[str], supports: Iterable[str]) -> Limits:
    """What several routes' limits allow together: the least of each maximum, at each
    resolution only what every route allows there, every route's exclusive pairs."""
    every = list(limits)
    seeds = [x.max_seed for x in every if x.max_seed is not None]
    chars = [x.max_negative_prompt_chars for x in every if x.max_negative_prompt_chars]
    offered, by_resolution = frozenset(supports), {}
    for resolution in resolutions:
        tables = [x.controls_by_resolution for x in every if resolution in x.controls_by_resolution]
        if tables:
            by_resolution[resolution] = offered.intersection(*(t[resolution] for t in tables))
    pairs = dict.fromkeys(pair for x in every for pair in x.exclusive_controls)
    return Limits(
        min(seeds) if seeds else None,
        min(chars) if chars else None,
        by_resolution,
        tuple(pairs),
    )


def parse_limits(entry: Mapping[str, Any]) -> Limits:
    """The limits a catalog entry (a model or a route) declares."""
    by_resolution = entry.get("controls_by_resolution", {})
    if not isinstance(by_resolution, Mapping):
        raise ValueError("controls_by_resolution must be a table of resolution = [controls]")
    parse_resolutions(list(by_resolution))
    pairs = tuple(tuple(str(c) for c in pair) for pair in entry.get("exclusive_controls", []))
    if any(len(p) != 2 or len(_known(p)) != 2 for p in pairs):
        raise ValueError(f"exclusive_controls {pairs!r}: each a pair of two controls")
    return Limits(
        _positive(entry, "max_seed", MAX_SEED),
        _positive(entry, "max_negative_prompt_chars", None),
        {str(r): _known(allowed) for r, allowed in by_resolution.items()},
        pairs,  # type: ignore[arg-type]
    )


def _known(value: object) -> frozenset[str]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"a list of controls is needed, not {value!r}")
    return parse_supports(value) or frozenset()


def _positive(entry: Mapping[str, Any], key: str, most: int | None) -> int | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{key} must be a positive integer, not {value!r}")
    if most is not None and value > most:
        raise ValueError(f"{key} {value} is beyond {most}")
    return value
