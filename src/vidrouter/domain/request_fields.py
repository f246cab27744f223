"""Checks of single request fields that several create rules share (`create_request.py`,
`create_controls.py`): types, texts, URLs and images. Each raises `InvalidRequest` naming
the field as `param`, with a stable `code`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from vidrouter.domain import text
from vidrouter.domain.errors import InvalidRequest

MAX_URL_CHARS = 2048
# An http(s) URL as the API takes it, the same rule in the OpenAPI document (`pattern`) and
# here: a host name, IPv4 address or IPv6 literal (RFC 3986's grammar; no credentials), a
# port 0-65535, then printable ASCII without spaces (non-ASCII is percent-encoded).
# `(?![\s\S])` is the end of the text in every regex dialect (`$` also matches before a
# final newline).
_H16 = "[0-9A-Fa-f]{1,4}"
_OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_LS32 = f"({_H16}:{_H16}|{_OCTET}(\\.{_OCTET}){{3}})"
_IPV6 = "|".join(
    [
        f"({_H16}:){{6}}{_LS32}",
        f"::({_H16}:){{5}}{_LS32}",
        f"({_H16})?::({_H16}:){{4}}{_LS32}",
        f"(({_H16}:){{0,1}}{_H16})?::({_H16}:){{3}}{_LS32}",
        f"(({_H16}:){{0,2}}{_H16})?::({_H16}:){{2}}{_LS32}",
        f"(({_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
        f"(({_H16}:){{0,4}}{_H16})?::{_LS32}",
        f"(({_H16}:){{0,5}}{_H16})?::{_H16}",
        f"(({_H16}:){{0,6}}{_H16})?::",
    ]
)
_PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0)"
URL_PATTERN = (
    "^[Hh][Tt][Tt][Pp][Ss]?://"
    f"([A-Za-z0-9._~-]+|\\[({_IPV6})(%25[A-Za-z0-9._~-]+)?\\])"
    f"(:{_PORT})?"
    "([/?#][!-~]*)?(?![\\s\\S])"
)
_URL = re.compile(URL_PATTERN)
IMAGE_DATA_PREFIXES = ("data:image/png;base64,", "data:image/jpeg;base64,")
# An image data URI that can be a PNG or JPEG: padded base64 whose bytes start with either
# signature (PNG's 8 bytes: "iVBORw0KGg" and a character that also holds 2 bits of the next
# byte; JPEG's 3: "/9j/"). One pattern for the check at accept and for the OpenAPI document,
# so that both say the same; what follows the signature is read when the image is used.
_B64_TAIL = "([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
_PNG = f"iVBORw0KGg(o=|[o-r][A-Za-z0-9+/]{_B64_TAIL})"
IMAGE_DATA_PATTERN = f"^data:image/(png|jpeg);base64,({_PNG}|/9j/{_B64_TAIL})$"
_IMAGE_DATA = re.compile(IMAGE_DATA_PATTERN)


def check_names(body: Mapping[str, object], accepted: tuple[str, ...]) -> None:
    for name in body:
        if name not in accepted:
            raise InvalidRequest(
                f"unknown parameter {str(name)[:80]!r}; accepted: {', '.join(accepted)}",
                code="parameter_unknown",
                param=str(name)[:80],
            )


def string(body: Mapping[str, object], name: str, *, required: bool) -> str | None:
    value = body.get(name)
    if value is None:
        if required:
            raise InvalidRequest(f"{name} is required", code="parameter_missing", param=name)
        return None
    if not isinstance(value, str):
        raise invalid_type(name, "a string", value)
    return value


def boolean(body: Mapping[str, object], name: str) -> bool | None:
    value = body.get(name)
    if value is None or isinstance(value, bool):
        return value
    raise invalid_type(name, "a boolean (true or false)", value)


def invalid_type(name: str, wanted: str, value: object) -> InvalidRequest:
    return InvalidRequest(
        f"{name} must be {wanted}, got {json_type(value)}",
        code="parameter_invalid_type",
        param=name,
    )


def prose(value: str, name: str, limit: int) -> str:
    """A text for the model (`prompt`, `negative_prompt`): at most `limit` characters,
    something visible, no NUL. Codes `<name>_too_long`, `<name>_empty`, `<name>_invalid`."""
    if len(value) > limit:
        raise InvalidRequest(
            f"{name} has {len(value)} characters; the limit is {limit}",
            code=f"{name}_too_long",
            param=name,
        )
    if text.is_blank(value):  # after the length: its loop stays short
        raise InvalidRequest(
            f"{name} must not be empty (it has only spaces or invisible characters)",
            code=f"{name}_empty",
            param=name,
        )
    if "\x00" in value:
        raise InvalidRequest(
            f"{name} must not contain NUL characters", code=f"{name}_invalid", param=name
        )
    return value


def image_url(url: str, param: str) -> str:
    """An image given by URL: an http(s) URL or a base64 PNG or JPEG data: URI."""
    if url.startswith("data:"):
        if not url.startswith(IMAGE_DATA_PREFIXES):
            raise InvalidRequest(
                f"{param} data URIs must be base64 PNG or JPEG",
                code="image_url_invalid",
                param=param,
            )
        if _IMAGE_DATA.match(url) is None:
            raise InvalidRequest(
                f"{param} is not a base64 PNG or JPEG (padded base64 that starts with the "
                "image's signature)",
                code="image_url_invalid",
                param=param,
            )
        return url
    http_url(url, param)
    return url


def http_url(url: str, param: str) -> str:
    """The URL's host; the URL must be an absolute http(s) URL without credentials."""
    if len(url) > MAX_URL_CHARS:
        raise InvalidRequest(
            f"{param} is longer than {MAX_URL_CHARS} characters", code="url_invalid", param=param
        )
    if not _URL.search(url):
        raise InvalidRequest(
            f"{param} must be an absolute http(s) URL: a host name or IPv4 address, no "
            "credentials, printable ASCII without spaces (percent-encode the rest)",
            code="url_invalid",
            param=param,
        )
    try:
        parts = urlsplit(url)
        host = parts.hostname
        _ = parts.port
    except ValueError:
        host = None
    if parts.scheme not in ("http", "https") or not host:
        raise InvalidRequest(
            f"{param} must be an absolute http(s) URL", code="url_invalid", param=param
        )
    if parts.username is not None or parts.password is not None:
        raise InvalidRequest(f"{param} must not carry credentials", code="url_invalid", param=param)
    if any(c.isspace() or ord(c) < 0x20 for c in url):
        raise InvalidRequest(
            f"{param} must not contain whitespace", code="url_invalid", param=param
        )
    return host


def json_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return "null"
