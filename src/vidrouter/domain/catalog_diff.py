"""Differences between our catalog's routes and what their host publishes now."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from vidrouter.domain.catalog import ModelSpec, Route

PRICE_TOLERANCE = 0.0005  # USD per second: rounding in published prices is not a difference


@dataclass(frozen=True)
class PublishedLimits:
    price_per_second: float | None = None
    durations: tuple[float, ...] | None = None
    max_duration: float | None = None
    aspect_ratios: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Difference:
    model: str
    route: str
    field: str
    ours: str
    theirs: str


def compare(
    routes: Iterable[tuple[ModelSpec, Route]], published: Mapping[str, PublishedLimits]
) -> list[Difference]:
    """One Difference per field where a route and its host disagree; a route the host does
    not publish at all is a difference too (the model may be gone)."""
    out: list[Difference] = []
    for model, route in routes:
        theirs = published.get(route.provider_model)
        if theirs is None:
            out.append(Difference(model.id, route.key, "listed", "yes", "not published"))
            continue
        price = theirs.price_per_second
        if price is not None and abs(price - route.price_per_second) > PRICE_TOLERANCE:
            out.append(
                Difference(
                    model.id,
                    route.key,
                    "price_per_second",
                    f"{route.price_per_second:g}",
                    f"{price:g}",
                )
            )
        max_ours = route.max_duration or model.max_duration
        if theirs.max_duration is not None and theirs.max_duration != max_ours:
            out.append(
                Difference(
                    model.id, route.key, "max_duration", f"{max_ours:g}", f"{theirs.max_duration:g}"
                )
            )
        ours_durations = route.durations or model.durations
        if (
            theirs.durations is not None
            and ours_durations is not None
            and set(theirs.durations) != set(ours_durations)
        ):
            out.append(
                Difference(
                    model.id,
                    route.key,
                    "durations",
                    _list(ours_durations),
                    _list(theirs.durations),
                )
            )
        ours_ratios = route.aspect_ratios or model.aspect_ratios
        if theirs.aspect_ratios is not None:
            missing = [a for a in ours_ratios if a not in theirs.aspect_ratios]
            if missing:
                out.append(
                    Difference(
                        model.id,
                        route.key,
                        "aspect_ratios",
                        ", ".join(ours_ratios),
                        ", ".join(theirs.aspect_ratios),
                    )
                )
    return out


def _list(values: Iterable[float]) -> str:
    return ", ".join(f"{v:g}" for v in sorted(values))
