"""The model catalog: public models and the routes (provider hosts) that serve them.

The catalog is data (a TOML file shipped in the package, replaceable or extendable by the
operator). A model is listed only when at least one of its routes is usable; the limits it
shows are those its usable routes share, its price that of the route that would be chosen.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any

from vidrouter.domain.controls import (
    OPTIONAL_CONTROLS,
    Limits,
    PriceVariant,
    narrow,
    parse_by_resolution,
    parse_limits,
    parse_resolutions,
    parse_supports,
    parse_variants,
)
from vidrouter.domain.route import InputCaps, offered_inputs, parse_input_caps
from vidrouter.domain.route import Route as Route

CURRENCY = "USD"


class CatalogError(ValueError):
    """The catalog file is malformed."""


@dataclass(frozen=True)
class ModelSpec:
    id: str
    name: str
    description: str
    provider: str  # the company that made the model
    type: str
    capabilities: tuple[str, ...]
    max_duration: float
    default_duration: float
    aspect_ratios: tuple[str, ...]
    routes: tuple[Route, ...]
    durations: tuple[float, ...] | None = None
    retired_on: date | None = None
    replacement: str | None = None
    min_duration: float | None = None  # shortest accepted; None: 1 s (or the least of durations)
    # What its routes make and honour unless they say otherwise (domain/controls.py).
    resolutions: tuple[str, ...] = ()
    audio: bool = False
    supports: frozenset[str] = frozenset()
    durations_by_resolution: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    inputs: InputCaps = field(default_factory=InputCaps)  # `capabilities` is its `types`


@dataclass(frozen=True)
class ListedModel:
    """A model as offered right now: its limits narrowed to what every usable route accepts,
    and its routes in the order the router will try them."""

    spec: ModelSpec
    routes: tuple[Route, ...]
    max_duration: float
    durations: tuple[float, ...] | None
    default_duration: float
    aspect_ratios: tuple[str, ...]
    resolutions: tuple[str, ...] = ()  # what every usable route makes, the default first
    supports: tuple[str, ...] = ()  # the optional controls every usable route honours
    durations_by_resolution: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)  # what every usable route takes
    inputs: InputCaps = field(default_factory=InputCaps)  # what some usable route takes

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def capabilities(self) -> tuple[str, ...]:
        """The types its usable routes make (`domain/inputs.py`)."""
        return self.inputs.types or ()

    @property
    def audio(self) -> bool:
        """Whether the default output has sound."""
        return self.spec.audio

    @property
    def variants(self) -> tuple[PriceVariant, ...]:
        """The priced configurations of the route that would be chosen, within what the
        model offers (the default configuration first)."""
        audios = {self.audio, not self.audio} if "generate_audio" in self.supports else {self.audio}
        return tuple(
            v
            for v in self.routes[0].variants
            if v.resolution in self.resolutions and v.audio in audios
        )

    @property
    def price_per_second(self) -> float:
        return self.routes[0].price_per_second


RouteFilter = Callable[[Route], bool]


@dataclass(frozen=True)
class Catalog:
    models: tuple[ModelSpec, ...]

    def get(self, model_id: str) -> ModelSpec | None:
        for model in self.models:
            if model.id == model_id:
                return model
        return None

    def listed(self, usable: RouteFilter) -> list[ListedModel]:
        out = []
        for model in self.models:
            listed = offer(model, usable)
            if listed is not None:
                out.append(listed)
        return out

    def find_listed(self, model_id: str, usable: RouteFilter) -> ListedModel | None:
        model = self.get(model_id)
        return offer(model, usable) if model is not None else None


def offer(model: ModelSpec, usable: RouteFilter) -> ListedModel | None:
    """The model as offered through its usable routes, or None when it cannot be served."""
    if model.retired_on is not None:
        return None
    routes = sorted(
        (r for r in model.routes if usable(r)), key=lambda r: (r.priority, r.price_per_second)
    )
    if not routes:
        return None
    max_duration = min([model.max_duration] + [r.max_duration for r in routes if r.max_duration])
    durations: tuple[float, ...] | None = model.durations
    for route in routes:
        if route.durations is not None:
            durations = (
                route.durations
                if durations is None
                else tuple(d for d in durations if d in route.durations)
            )
    if durations is not None:
        durations = tuple(sorted(d for d in durations if d <= max_duration))
    ratios = tuple(
        a
        for a in model.aspect_ratios
        if all(not r.aspect_ratios or a in r.aspect_ratios for r in routes)
    )
    if not ratios or (durations is not None and not durations):
        return None
    default = model.default_duration
    if durations is not None and default not in durations:
        default = durations[0]
    default = min(default, max_duration)
    order = model.resolutions or routes[0].resolutions or ()
    resolutions = tuple(x for x in order if all(x in (r.resolutions or ()) for r in routes))
    supports = tuple(c for c in OPTIONAL_CONTROLS if all(c in (r.supports or ()) for r in routes))
    by_resolution: dict[str, tuple[float, ...]] = {}
    for route in routes:
        for resolution, allowed in route.durations_by_resolution.items():
            known = by_resolution.get(resolution)
            by_resolution[resolution] = (
                allowed if known is None else tuple(d for d in known if d in allowed)
            )
    return ListedModel(
        model,
        tuple(routes),
        max_duration,
        durations,
        default,
        ratios,
        resolutions,
        supports,
        by_resolution,
        narrow((r.limits for r in routes), resolutions, supports),
        offered_inputs(r.inputs for r in routes),
    )


# --- loading --------------------------------------------------------------------------------


def load_catalog(extra: Path | None = None) -> Catalog:
    """The built-in catalog (every `*.toml` of the `vidrouter.catalog` package, in name order),
    extended (or replaced, with `replace = true`) by an operator's file.

    A file holds `[[models]]` (a model with its routes; a later entry with the same id
    replaces an earlier one) and `[[extra_routes]]` (more hosts for a model defined anywhere,
    named by `for_model`), so a host's routes can live in the host's own file."""
    documents: list[tuple[str, dict[str, Any]]] = []
    package = resources.files("vidrouter.catalog")
    for entry in sorted(package.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            documents.append((f"built-in {entry.name}", tomllib.loads(entry.read_text("utf-8"))))
    if extra is not None:
        try:
            data = tomllib.loads(extra.read_text("utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise CatalogError(f"cannot read catalog {extra}: {exc}") from exc
        if data.get("replace") is True:
            documents = []
        documents.append((str(extra), data))
    models: dict[str, ModelSpec] = {}
    for source, data in documents:
        for model in _parse(data, source):
            models[model.id] = model
    for source, data in documents:
        for model_id, route in _extra_routes(data, source):
            spec = models.get(model_id)
            # A route the model declares itself (e.g. an operator's re-declaration with its
            # own price) wins over an extra route of the same host and model name.
            if spec is not None and all(r.key != route.key for r in spec.routes):
                models[model_id] = replace(spec, routes=(*spec.routes, route))
    return Catalog(tuple(_settled(spec) for spec in models.values()))


def _settled(model: ModelSpec) -> ModelSpec:
    """The model with every route's controls and prices complete: what a route leaves out
    it inherits from the model; its variants cover every configuration it makes."""
    routes = []
    for route in model.routes:
        resolutions = route.resolutions if route.resolutions is not None else model.resolutions
        audio = route.audio if route.audio is not None else model.audio
        supports = route.supports if route.supports is not None else model.supports
        by_resolution = route.durations_by_resolution or model.durations_by_resolution
        audios = sorted({audio, not audio} if "generate_audio" in supports else {audio})
        # Without variants, one price for every configuration it makes; variants of one
        # type (an extension priced apart) come on top of those.
        typed = tuple(v for v in route.variants if v.type is not None)
        variants = tuple(v for v in route.variants if v.type is None) or tuple(
            PriceVariant(r, a, route.price_per_second) for r in resolutions for a in audios
        )
        priced = {(v.resolution, v.audio) for v in variants}
        missing = [f"{r} audio={a}" for r in resolutions for a in audios if (r, a) not in priced]
        if missing:
            raise CatalogError(
                f"model {model.id}: route {route.key} has no price for {', '.join(missing)}"
            )
        if resolutions:
            # The default configuration first; its price is the route's `price_per_second`.
            default = (resolutions[0], audio)
            variants = tuple(sorted(variants, key=lambda v: (v.resolution, v.audio) != default))
            route = replace(route, price_per_second=variants[0].per_second)
        variants += typed
        routes.append(
            replace(
                route,
                resolutions=resolutions,
                audio=audio,
                supports=supports,
                variants=variants,
                durations_by_resolution=by_resolution,
                limits=route.limits.over(model.limits),
                inputs=route.inputs.over(model.inputs),
            )
        )
    return replace(model, routes=tuple(routes))


def _extra_routes(data: Mapping[str, Any], source: str) -> Iterable[tuple[str, Route]]:
    entries = data.get("extra_routes", [])
    if not isinstance(entries, list):
        raise CatalogError(f"{source}: 'extra_routes' must be an array of tables")
    for index, entry in enumerate(entries):
        try:
            yield str(entry["for_model"]), _route(entry)
        except (KeyError, TypeError, ValueError) as exc:
            raise CatalogError(f"{source}: extra_routes[{index}]: {exc!r}") from exc


def _parse(data: Mapping[str, Any], source: str) -> Iterable[ModelSpec]:
    entries = data.get("models", [])
    if not isinstance(entries, list):
        raise CatalogError(f"{source}: 'models' must be an array of tables")
    for index, entry in enumerate(entries):
        try:
            yield _model(entry)
        except (KeyError, TypeError, ValueError) as exc:
            where = entry.get("id", index) if isinstance(entry, dict) else index
            raise CatalogError(f"{source}: model {where}: {exc!r}") from exc


def _model(entry: Mapping[str, Any]) -> ModelSpec:
    routes = tuple(_route(r) for r in entry.get("routes", []))
    if not routes and entry.get("retired_on") is None:
        raise ValueError("a model needs at least one route (or a retired_on date)")
    durations = entry.get("durations")
    retired = entry.get("retired_on")
    model_type = str(entry.get("type", "text-to-video"))
    inputs = parse_input_caps({"capabilities": [model_type], **entry})
    return ModelSpec(
        id=str(entry["id"]),
        name=str(entry["name"]),
        description=str(entry.get("description", "")),
        provider=str(entry["provider"]),
        type=model_type,
        capabilities=inputs.types or (),
        max_duration=float(entry["max_duration"]),
        default_duration=float(entry.get("default_duration", entry["max_duration"])),
        aspect_ratios=tuple(str(a) for a in entry["aspect_ratios"]),
        routes=routes,
        durations=tuple(float(d) for d in durations) if durations is not None else None,
        retired_on=retired
        if isinstance(retired, date) or retired is None
        else date.fromisoformat(str(retired)),
        replacement=entry.get("replacement"),
        min_duration=float(entry["min_duration"]) if "min_duration" in entry else None,
        resolutions=parse_resolutions(entry.get("resolutions")) or (),
        audio=bool(entry.get("audio", False)),
        supports=parse_supports(entry.get("supports")) or frozenset(),
        durations_by_resolution=parse_by_resolution(entry.get("durations_by_resolution")),
        limits=parse_limits(entry),
        inputs=inputs,
    )


def _route(entry: Mapping[str, Any]) -> Route:
    durations = entry.get("durations")
    ratios = entry.get("aspect_ratios")
    max_duration = entry.get("max_duration")
    resolutions = parse_resolutions(entry.get("resolutions"))
    variants = parse_variants(entry.get("variants"))
    price = entry.get("price_per_second")
    if price is None and variants:
        # The default configuration's price: the first resolution with the default audio.
        price = variants[0].per_second
    return Route(
        provider=str(entry["provider"]),
        provider_model=str(entry["model"]),
        price_per_second=float(price),  # type: ignore[arg-type]
        max_duration=float(max_duration) if max_duration is not None else None,
        durations=tuple(float(d) for d in durations) if durations is not None else None,
        aspect_ratios=tuple(str(a) for a in ratios) if ratios is not None else None,
        priority=int(entry.get("priority", 0)),
        options=dict(entry.get("options", {})),
        name=str(entry["id"]) if entry.get("id") is not None else None,
        resolutions=resolutions,
        audio=bool(entry["audio"]) if "audio" in entry else None,
        supports=parse_supports(entry.get("supports")),
        variants=variants,
        durations_by_resolution=parse_by_resolution(entry.get("durations_by_resolution")),
        limits=parse_limits(entry),
        inputs=parse_input_caps(entry),
    )
