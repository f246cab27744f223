"""Rows read back into the store's dataclasses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")


def from_row(cls: type[R], row: Mapping[Any, Any], **given: Any) -> R:
    """A `cls` whose fields are the row's columns of the same names, but for those `given`."""
    read = {f.name: row[f.name] for f in fields(cls) if f.name not in given}
    return cls(**read, **given)
