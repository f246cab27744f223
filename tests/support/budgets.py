"""What the budget tests share: a priced local model, its catalog file, the budget header."""

from __future__ import annotations

from pathlib import Path

from tests.support.catalogs import local_model

PRICE = 0.1  # USD per second of the local route below
SECONDS = 4  # the default duration: every create here costs an estimated $0.40
EACH = PRICE * SECONDS
HEADER = "X-Budget-Remaining-USD"
CATALOG = local_model(
    "house-paid",
    PRICE,
    name="House paid",
    description="The local renderer at a price, to spend money in tests.",
    max_duration=8,
    default_duration=SECONDS,
    aspect_ratios=["16:9", "1:1"],
)


def write_catalog(directory: Path) -> Path:
    path = directory / "catalog.toml"
    path.write_text(CATALOG)
    return path
