"""The multipart bodies of OpenAI's video operations that carry a file (`/v1/videos/edits`,
`/extensions` and `/characters`): read as they arrive, the file part spooled to disk past
1 MiB (never whole in memory), then copied to a named file that storage takes. The body
limit of these paths is `max_upload_bytes` (api/middleware.py), not the JSON one."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request

from vidrouter.domain.errors import InvalidRequest

UPLOAD_PATHS = frozenset({"/v1/videos/edits", "/v1/videos/extensions", "/v1/videos/characters"})
_MAX_FIELDS = 16
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class UploadForm:
    fields: dict[str, str]
    file: Path | None  # the file part's content, removed when the form is left
    filename: str | None = None  # as the client named it (clipped, printable)


def is_multipart(request: Request) -> bool:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media == "multipart/form-data"


@contextlib.asynccontextmanager
async def upload_form(request: Request, *, file_field: str) -> AsyncIterator[UploadForm]:
    """The form's text fields and its one file part (named `file_field`); InvalidRequest
    for a malformed body, a second file, a repeated field."""
    try:
        form = await request.form(max_files=1, max_fields=_MAX_FIELDS)
    except HTTPException as exc:
        raise InvalidRequest(
            f"the multipart/form-data body is malformed: {str(exc.detail)[:200]}",
            code="invalid_body",
        ) from None
    try:
        with tempfile.TemporaryDirectory(prefix="vidrouter-upload-") as tmp:
            fields: dict[str, str] = {}
            path: Path | None = None
            filename: str | None = None
            for name, value in form.multi_items():
                if name in fields or (name == file_field and path is not None):
                    raise InvalidRequest(
                        f"parameter {name[:80]!r} is given more than once",
                        code="parameter_duplicated",
                        param=name[:80],
                    )
                if not isinstance(value, UploadFile):
                    if name == file_field:
                        raise InvalidRequest(
                            f"{file_field} must be a file part (an MP4), not a text field",
                            code="parameter_invalid_type",
                            param=file_field,
                        )
                    fields[name] = value
                elif name != file_field:
                    raise InvalidRequest(
                        f"unexpected file part {name[:80]!r}; the file goes in {file_field!r}",
                        code="parameter_unknown",
                        param=name[:80],
                    )
                else:
                    path = Path(tmp) / "upload"
                    filename = _shown_name(value.filename)
                    await asyncio.to_thread(_copy, value.file, path)
            yield UploadForm(fields, path, filename)
    finally:
        await form.close()


def _shown_name(name: str | None) -> str | None:
    """A client's file name as we may show it: its last path part, printable, clipped."""
    last = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(c for c in last if c.isprintable())[:100] or None


def _copy(source: BinaryIO, path: Path) -> None:
    source.seek(0)
    with path.open("wb") as out:
        shutil.copyfileobj(source, out, _CHUNK)
