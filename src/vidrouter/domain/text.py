"""Request text that UTF-8 or the databases refuse, checked in one place.

A JSON string may hold a lone UTF-16 surrogate (`"\\ud800"`): Python decodes it, but it has
no UTF-8 encoding, so hashing, storing or even answering with it fails. PostgreSQL's `text`
refuses NUL. Every entry point (JSON bodies, forms, query parameters) calls the checks here
before any of its strings reaches a hash, a query or an error message; path ids are checked
against the id alphabet instead (`domain/ids.py`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from vidrouter.domain.errors import InvalidRequest

# Characters that show nothing although Python's isspace() says they are not space.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Error codes of fields that have their own; every other field gets `string_invalid`.
_CODES = {"prompt": "prompt_invalid", "metadata": "metadata_invalid"}
# The longest integer a request may spell out: more than any field needs, few enough that
# int() stays cheap (Python refuses over 4300 digits, in words naming its internals).
MAX_INT_DIGITS = 30


def unstorable(value: str) -> str | None:
    """Why `value` cannot be stored or encoded, or None when it can."""
    if "\x00" in value:
        return "a NUL character"
    if value.isascii():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone UTF-16 surrogate"
    return None


def check_string(value: str, param: str) -> None:
    reason = unstorable(value)
    if reason is not None:
        raise _invalid(param, f"{displayable(param)} contains {reason}", param)


def check_json(value: object) -> None:
    """Every key and string of a decoded JSON document (iteratively: no recursion limit)."""
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            check_string(item, path or "body")
        elif isinstance(item, Mapping):
            for key, child in item.items():
                name = str(key)
                where = f"{path}.{name}" if path else name
                reason = unstorable(name)
                if reason is not None:
                    shown = displayable(where)
                    raise _invalid(where, f"the field name {shown!r} contains {reason}", shown)
                stack.append((child, where))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]") for i, child in enumerate(item))


def is_blank(value: str) -> bool:
    """True when `value` shows nothing: only spaces, zero-width or other invisible marks."""
    return all(
        c in _INVISIBLE or unicodedata.category(c) in _INVISIBLE_CATEGORIES
        for c in value.strip()  # visible text ends the loop at its first character
    )


def displayable(text: str, limit: int = 80) -> str:
    """`text` clipped and safe to put in a JSON answer: surrogates and control characters
    written as `\\uXXXX`."""
    clipped = text if len(text) <= limit else text[:limit] + "…"
    if clipped.isprintable():
        return clipped
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in clipped)


def _invalid(path: str, what: str, param: str) -> InvalidRequest:
    top = path.split(".", 1)[0].split("[", 1)[0]
    return InvalidRequest(
        f"{what}; text must be valid Unicode without NUL characters",
        code=_CODES.get(top, "string_invalid"),
        param=displayable(param),
    )
