"""JSON text from outside, parsed with bounds: one parser for every entry point (JSON bodies,
the JSON inside form fields), so they refuse alike and in our words.

Python's `json` recurses once per nesting level: a document 3,000 deep raises RecursionError
(an uncaught one is a 500 and a reset connection), and one that is caught says "maximum
recursion depth exceeded", which names Python, not the request. The depth is therefore
counted first, without recursion, and a document deeper than any request needs is refused
before `json` sees it. `json` also keeps the last of duplicate keys, so `{"sort": "price",
"sort": "speed"}` would silently mean `speed`; a duplicate is refused instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

from vidrouter.domain import text

# Deeper than any request field nests (the routing policy is an object of lists of objects).
MAX_DEPTH = 32
# A JSON string (escapes included); its brackets are text, not nesting.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonTextError(ValueError):
    """The text is not JSON we accept; the message says why, in the request's terms."""


def loads(document: str, *, max_depth: int = MAX_DEPTH) -> object:
    """The value of `document`: no NaN or Infinity, no duplicate keys, integers of at most
    `text.MAX_INT_DIGITS` digits, nested at most `max_depth` deep; else JsonTextError."""
    _check_depth(document, max_depth)
    try:
        return json.loads(
            document,
            parse_constant=_no_constants,
            parse_int=_bounded_int,
            object_pairs_hook=_no_duplicates,
        )
    except JsonTextError:
        raise
    except (ValueError, RecursionError) as exc:  # RecursionError: never, after the depth check
        raise JsonTextError(text.displayable(str(exc), 200)) from exc


def _check_depth(document: str, max_depth: int) -> None:
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub('""', document)):
        if bracket[0] in "[{":
            depth += 1
            if depth > max_depth:
                raise JsonTextError(f"it nests deeper than {max_depth} levels")
        else:
            depth -= 1


def _no_constants(name: str) -> Any:
    raise JsonTextError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonTextError(f"duplicate key {text.displayable(key)!r}")
        out[key] = value
    return out


def _bounded_int(digits: str) -> int:
    # int() of thousands of digits is slow and its error names Python internals.
    if len(digits.lstrip("-")) > text.MAX_INT_DIGITS:
        raise JsonTextError(f"a number has more than {text.MAX_INT_DIGITS} digits")
    return int(digits)
