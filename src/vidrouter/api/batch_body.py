"""The body of `POST /v1/batches`: a JSONL file as a multipart upload (`file`, with
optional `webhook_url` and `metadata` fields), JSONL as the body itself
(`application/jsonl`), or JSON `{"lines": [...], "webhook_url", "metadata"}`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from vidrouter.api import openai_videos_forms as forms
from vidrouter.api.body import parse_json
from vidrouter.domain import text
from vidrouter.domain.batch import line_error
from vidrouter.domain.errors import InvalidRequest

_JSONL = ("application/jsonl", "application/x-ndjson", "application/x-jsonlines")
_FIELDS = ("lines", "webhook_url", "metadata")


@dataclass(frozen=True)
class BatchBody:
    lines: list[tuple[int, object]]  # each line's JSON value, with its line number
    webhook_url: object = None
    metadata: object = None


def parse_batch_body(content_type: str, raw: bytes) -> BatchBody:
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "multipart/form-data":
        return _from_form(forms.parse_multipart(content_type, raw))
    if media in _JSONL:
        return BatchBody(_jsonl(raw, "body"))
    body = parse_json(raw)
    if not isinstance(body, dict):
        raise InvalidRequest("the request body must be a JSON object", code="invalid_body")
    for name in body:
        if name not in _FIELDS:
            raise InvalidRequest(
                f"unknown parameter {str(name)[:80]!r}; accepted: {', '.join(_FIELDS)} (or "
                "upload the JSONL file as multipart/form-data `file`)",
                code="parameter_unknown",
                param=str(name)[:80],
            )
    lines = body.get("lines")
    if not isinstance(lines, list):
        raise InvalidRequest(
            "lines must be an array of create bodies, each with a custom_id",
            code="parameter_missing" if lines is None else "parameter_invalid_type",
            param="lines",
        )
    return BatchBody(
        [(n, v) for n, v in enumerate(lines, start=1)],
        body.get("webhook_url"),
        body.get("metadata"),
    )


def _from_form(parts: list[forms.FormPart]) -> BatchBody:
    values: dict[str, Any] = {}
    lines: list[tuple[int, object]] | None = None
    for part in parts:
        if part.name == "file":
            lines = _jsonl(part.data, "file")
        elif part.name == "webhook_url":
            values["webhook_url"] = forms.text(part)
        elif part.name == "metadata":
            try:
                values["metadata"] = json.loads(forms.text(part))
            except ValueError:
                raise InvalidRequest(
                    "metadata must be a JSON object",
                    code="parameter_invalid_type",
                    param="metadata",
                ) from None
        else:
            raise InvalidRequest(
                f"unknown form field {part.name[:80]!r}; accepted: file, webhook_url, metadata",
                code="parameter_unknown",
                param=part.name[:80],
            )
    if lines is None:
        raise InvalidRequest(
            "upload the JSONL file as `file`", code="parameter_missing", param="file"
        )
    text.check_json(values)
    return BatchBody(lines, values.get("webhook_url"), values.get("metadata"))


def _jsonl(raw: bytes, param: str) -> list[tuple[int, object]]:
    """Each non-blank line's JSON value (as strict as a create's body), with its number."""
    out: list[tuple[int, object]] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, parse_json(line)))
        except InvalidRequest as exc:
            raise line_error(number, exc) from None
    if not out:
        raise InvalidRequest(f"the {param} has no lines", code="batch_empty", param=param)
    return out
