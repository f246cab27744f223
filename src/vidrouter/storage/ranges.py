"""Range and conditional-request rules of RFC 9110 for one blob (pure functions).

An invalid `Range` (bad syntax, `last < first`, another unit) is ignored: the whole blob is
sent with 200, as RFC 9110 section 14.2 allows and browsers expect. A valid range that does
not overlap the blob is unsatisfiable (416). Several ranges are answered with the whole blob
too (a `<video>` element asks for one; multipart answers are rarely worth their cost).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPEC = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", re.IGNORECASE)
_MAX_DIGITS = 19  # beyond any blob size; keeps int() of a hostile header cheap


@dataclass(frozen=True)
class ByteRange:
    start: int
    end: int  # exclusive


class Unsatisfiable(Exception):
    pass


def parse_range(header: str | None, size: int) -> ByteRange | None:
    """The one range to send, or None for the whole blob; raises Unsatisfiable."""
    if header is None or len(header) > 200:
        return None
    match = _SPEC.match(header)
    if match is None:
        return None  # other units, several ranges, garbage: ignored
    first, last = match.group(1), match.group(2)
    if len(first) > _MAX_DIGITS or len(last) > _MAX_DIGITS or not (first or last):
        return None
    if not first:  # suffix: the last N bytes
        length = int(last)
        if length == 0 or size == 0:
            raise Unsatisfiable
        return ByteRange(max(0, size - length), size)
    start = int(first)
    if last and int(last) < start:
        return None  # invalid, not unsatisfiable
    if start >= size:
        raise Unsatisfiable
    end = size if not last else min(int(last) + 1, size)
    return ByteRange(start, end)


def _opaque(tag: str) -> str:
    tag = tag.strip()
    return tag[2:] if tag.startswith("W/") else tag


def none_match(header: str | None, etag: str) -> bool:
    """`If-None-Match` matches (so a GET/HEAD answers 304): `*`, or the tag listed (weak
    comparison, as RFC 9110 says for this header)."""
    if header is None:
        return False
    if header.strip() == "*":
        return True
    return any(_opaque(t) == _opaque(etag) for t in header.split(","))


def if_range_allows(header: str | None, etag: str) -> bool:
    """`If-Range` holding our current (strong) tag lets the range through; anything else
    (a date, an old tag) means the client's copy may be stale: send the whole blob."""
    if header is None:
        return True
    return header.strip() == etag and not etag.startswith("W/")
