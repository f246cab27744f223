"""Form bodies of `POST /v1/videos` (what OpenAI's SDK sends): `multipart/form-data`
(RFC 7578) and `application/x-www-form-urlencoded`, as a list of parts, byte for byte."""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.parser import HeaderParser
from email.utils import collapse_rfc2231_value
from urllib.parse import parse_qsl

from vidrouter.domain.errors import InvalidRequest

_BOUNDARY = re.compile(r'boundary=(?:"([^"]{1,200})"|([^;\s]{1,200}))', re.IGNORECASE)


@dataclass(frozen=True)
class FormPart:
    name: str
    filename: str | None
    content_type: str
    data: bytes

    @property
    def is_file(self) -> bool:
        """A file part: one with a filename, or (as `curl -F name=<file` and some generators
        send it) without one but carrying an image or bytes that are no text."""
        if self.filename is not None or self.content_type.startswith("image/"):
            return True
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False


def text(part: FormPart) -> str:
    try:
        return part.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidRequest(
            f"{part.name} is not valid UTF-8", code="parameter_invalid", param=part.name
        ) from exc


def parse_multipart(content_type: str, body: bytes) -> list[FormPart]:
    """The parts of a `multipart/form-data` body (RFC 7578), byte for byte."""
    match = _BOUNDARY.search(content_type)
    if match is None:
        raise _malformed("the multipart/form-data body has no boundary")
    delimiter = b"\r\n--" + (match[1] or match[2]).encode("latin-1")
    sections = (b"\r\n" + body).split(delimiter)
    parts: list[FormPart] = []
    for section in sections[1:]:
        if section.startswith(b"--"):
            return parts
        padding, newline, rest = section.partition(b"\r\n")
        if not newline or padding.strip(b" \t"):
            raise _malformed("a multipart/form-data part is malformed")
        if rest.startswith(b"\r\n"):
            head, data = b"", rest[2:]
        else:
            head, separator, data = rest.partition(b"\r\n\r\n")
            if not separator:
                raise _malformed("a multipart/form-data part has no end of headers")
        parts.append(_part(head, data))
    raise _malformed("the multipart/form-data body is truncated (no closing boundary)")


def _part(head: bytes, data: bytes) -> FormPart:
    headers = HeaderParser().parsestr(head.decode("utf-8", "replace"))
    if headers.get_content_disposition() != "form-data":
        raise _malformed("each multipart part needs 'Content-Disposition: form-data'")
    name = headers.get_param("name", header="content-disposition")
    if not name:
        raise _malformed("a multipart part has no name")
    filename = headers.get_filename()
    return FormPart(
        name=collapse_rfc2231_value(name),
        filename=filename,
        content_type=headers.get_content_type(),
        data=data,
    )


def parse_urlencoded(body: bytes) -> list[FormPart]:
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError as exc:
        raise _malformed("the form body is not valid UTF-8") from exc
    return [FormPart(k, None, "text/plain", v.encode("utf-8")) for k, v in pairs]


def _malformed(message: str) -> InvalidRequest:
    return InvalidRequest(message, code="invalid_body")
