"""A route: one host serving one model, with what it makes and honours (its controls,
`domain/controls.py`) and what it takes beyond the prompt (its types and inputs,
`InputCaps`). The catalog (`catalog.py`) reads routes from its files; routing
(`routing.route_candidates`) asks each whether it can serve a generation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from vidrouter.domain.controls import OPTIONAL_CONTROLS, Controls, Limits, PriceVariant
from vidrouter.domain.generation import JsonScalar
from vidrouter.domain.inputs import REFERENCE_KINDS, TYPES, VIDEO_EXTEND, reference_counts

__all__ = ["InputCaps", "Route", "offered_inputs", "parse_input_caps"]


@dataclass(frozen=True)
class InputCaps:
    """What a route takes beyond the prompt (catalog keys, on a model or a route; a route
    inherits what it leaves out):
    - `capabilities`: the types it makes (`domain/inputs.py`);
    - `max_references`: how many reference media of each kind it takes (`{image = 3}`);
    - `extends_own_output`: it extends only videos it made itself (by its own job id), so an
      extension of one of our generations goes to the route that made it;
    - `max_source_seconds`, `max_source_mb`: the longest and largest source video it takes;
    - `receives_media`: how its adapter hands media to the provider: "url" (the provider
      fetches a URL: the default), "upload" (through the provider's own upload API),
      "inline" (the bytes in the request, as a data: URI) or "file" (read on this machine:
      the local renderer). A generation whose media only this server can serve, while its
      public URL is a loopback one, goes only to routes that upload, inline or read files
      (`RouteAsk.local_media`);
    - `extend_durations`: the seconds one extension adds, where the provider fixes them
      (Veo: 7); a `video-extend` asks one of these instead of the model's `durations`.
    """

    types: tuple[str, ...] | None = None  # None: not declared here
    references: Mapping[str, int] | None = None
    extends_own_only: bool | None = None
    max_source_seconds: float | None = None
    max_source_bytes: int | None = None
    receives: tuple[str, ...] | None = None
    extend_durations: tuple[float, ...] | None = None

    def over(self, model: InputCaps) -> InputCaps:
        """A route's: its own, the model's where it declares none."""
        return InputCaps(
            self.types if self.types is not None else model.types,
            self.references if self.references is not None else model.references,
            self.extends_own_only if self.extends_own_only is not None else model.extends_own_only,
            self.max_source_seconds or model.max_source_seconds,
            self.max_source_bytes or model.max_source_bytes,
            self.receives if self.receives is not None else model.receives,
            self.extend_durations if self.extend_durations is not None else model.extend_durations,
        )

    def takes(
        self,
        key: str,
        kind: str,
        references: Iterable[str],
        source_route: str | None,
        local_media: bool = False,
    ) -> bool:
        """Whether the route `key` can make `kind` from these reference kinds and (for an
        extension) a source made on `source_route` (None: not made by one of our routes);
        `local_media`: its media cannot be fetched by URL from outside."""
        if kind not in (self.types or ()):
            return False
        allowed, kinds = self.references or {}, tuple(references)
        for name, count in reference_counts(kinds).items():
            if count > allowed.get(name, 0):
                return False
        own = kind == VIDEO_EXTEND and self.extends_own_only
        if own and source_route not in (key, "*"):  # "*": routing.ANY_ROUTE
            return False
        # An extension of its own output goes by the provider's job id, not by the video.
        needs_media = bool(kinds) if own else True
        reaches = set(self.receives or ("url",)) & {"upload", "inline", "file"}
        return not (local_media and needs_media and not reaches)

    def to_json(self) -> dict[str, Any]:
        """The limits that are set, as GET /v1/models shows them under `limits`."""
        out: dict[str, Any] = {}
        if self.references:
            out["references"] = dict(self.references)
        if self.max_source_seconds is not None:
            out["max_source_seconds"] = self.max_source_seconds
        if self.max_source_bytes is not None:
            out["max_source_bytes"] = self.max_source_bytes
        if self.extend_durations is not None:
            out["extend_durations"] = list(self.extend_durations)
        if self.extends_own_only:  # an extension only of what this model made on that route
            out["extends_own_output"] = True
        return out


def offered_inputs(caps: Iterable[InputCaps]) -> InputCaps:
    """What a model offers through several routes: every type one of them makes, and of
    each reference kind the most one takes (a request within that goes to the routes that
    take it: `routing.route_candidates`); the longest and largest source one takes."""
    every = list(caps)
    types = {t for c in every for t in c.types or ()}
    references: dict[str, int] = {}
    for c in every:
        for name, count in (c.references or {}).items():
            references[name] = max(references.get(name, 0), count)
    seconds = [c.max_source_seconds for c in every if c.max_source_seconds is not None]
    sizes = [c.max_source_bytes for c in every if c.max_source_bytes is not None]
    fixed = {d for c in every for d in c.extend_durations or ()}
    return InputCaps(
        tuple(t for t in TYPES if t in types),
        {k: references[k] for k in REFERENCE_KINDS if k in references},
        any(c.extends_own_only for c in every),
        max(seconds) if seconds else None,
        max(sizes) if sizes else None,
        None,
        tuple(sorted(fixed)) if fixed else None,
    )


def parse_input_caps(entry: Mapping[str, Any]) -> InputCaps:
    """What a catalog entry (a model or a route) declares of its inputs."""
    types = entry.get("capabilities")
    if types is not None:
        types = tuple(str(t) for t in types)
        unknown = [t for t in types if t not in TYPES]
        if unknown:
            raise ValueError(f"capabilities: unknown types {unknown}; known: {TYPES}")
    references = entry.get("max_references")
    if references is not None:
        if not isinstance(references, Mapping) or any(
            k not in REFERENCE_KINDS or isinstance(v, bool) or not isinstance(v, int) or v < 0
            for k, v in references.items()
        ):
            raise ValueError(f"max_references must be a table of {REFERENCE_KINDS} = count")
        references = {str(k): int(v) for k, v in references.items()}
    own = entry.get("extends_own_output")
    seconds = entry.get("max_source_seconds")
    size = entry.get("max_source_mb")
    receives = entry.get("receives_media")
    if receives is not None:
        receives = tuple(str(r) for r in receives)
        if not set(receives) <= {"url", "upload", "inline", "file"}:
            raise ValueError(f"receives_media {receives!r}: each of url, upload, inline, file")
    extend = entry.get("extend_durations")
    if extend is not None and (
        not isinstance(extend, list)
        or not extend
        or any(isinstance(d, bool) or not isinstance(d, int | float) or d <= 0 for d in extend)
    ):
        raise ValueError("extend_durations must be a list of positive numbers of seconds")
    return InputCaps(
        types,
        references,
        bool(own) if own is not None else None,
        float(seconds) if seconds is not None else None,
        int(float(size) * 1024 * 1024) if size is not None else None,
        receives,
        tuple(float(d) for d in extend) if extend is not None else None,
    )


@dataclass(frozen=True)
class Route:
    provider: str  # the adapter that serves it ("local", "runway", "fal", ...)
    provider_model: str  # the host's name for the model
    price_per_second: float
    max_duration: float | None = None
    durations: tuple[float, ...] | None = None
    aspect_ratios: tuple[str, ...] | None = None
    priority: int = 0  # lower first; ties are broken by price
    options: Mapping[str, JsonScalar] = field(default_factory=dict)
    name: str | None = None  # tells apart two routes of one provider with one model name
    # What it makes and honours (domain/controls.py); None until the model's are inherited.
    resolutions: tuple[str, ...] | None = None  # the default first
    audio: bool | None = None  # whether its default output has sound
    supports: frozenset[str] | None = None
    variants: tuple[PriceVariant, ...] = ()
    durations_by_resolution: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    inputs: InputCaps = field(default_factory=InputCaps)

    @property
    def key(self) -> str:
        return f"{self.provider}:{self.name or self.provider_model}"

    def price_for(
        self, resolution: str | None, audio: bool | None, kind: str | None = None
    ) -> float:
        """USD per second of the configuration (the default one's where none matches), of
        generation type `kind` where a variant prices that type apart."""
        # A price of the type first (at any resolution for a model that lets none be chosen).
        for variant in self.variants:
            typed = variant.type is not None and variant.type == kind and variant.audio == audio
            if typed and resolution in (None, variant.resolution):
                return variant.per_second
        for variant in self.variants:
            if variant.type is None and (variant.resolution, variant.audio) == (resolution, audio):
                return variant.per_second
        return self.price_per_second

    def honours(self, controls: Controls, duration: float | None = None) -> bool:
        """Whether this route can make what `controls` ask (and at this duration)."""
        supports = self.supports or frozenset()
        if controls.resolution is not None and controls.resolution not in (self.resolutions or ()):
            return False
        if (
            controls.generate_audio is not None
            and controls.generate_audio != self.audio
            and "generate_audio" not in supports
        ):
            return False
        for name in OPTIONAL_CONTROLS:
            asked = name != "generate_audio" and getattr(controls, name) is not None
            if asked and name not in supports:
                return False
        allowed = self.durations_by_resolution.get(controls.resolution or "")
        if duration is not None and allowed is not None and duration not in allowed:
            return False
        return self.limits.refusal(controls, bool(self.audio)) is None

    def takes(
        self,
        kind: str,
        references: Iterable[str],
        source_route: str | None,
        local_media: bool = False,
    ) -> bool:
        """Whether it can make a generation of type `kind` from these reference kinds (and,
        for an extension, a source made on `source_route`; `local_media`: see InputCaps)."""
        return self.inputs.takes(self.key, kind, references, source_route, local_media)

    @property
    def max_concurrent(self) -> int | None:
        """Jobs the provider account runs at once on this route (None: no cap of ours)."""
        value = self.options.get("max_concurrent")
        return int(value) if isinstance(value, int | float) and value > 0 else None
