"""A response turned into what the client returns, or into a `ClientError` that carries it:
the server is not trusted to answer in the API's shape (a proxy's login page, a newer or
broken server, a hostile one)."""

from __future__ import annotations

from typing import TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from vidrouter.client.errors import APIError, UnexpectedResponseError, error_class
from vidrouter.client.retry import retry_after
from vidrouter.client.types import ErrorObject
from vidrouter.domain import json_text, text

M = TypeVar("M", bound=BaseModel)
_SHOWN = 200  # characters of a body quoted in an error message


def parse(model: type[M], response: httpx.Response) -> M:
    """The 2xx body as `model`, else UnexpectedResponseError (never pydantic's error)."""
    try:
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        raise unexpected(response, f"is not {_article(model.__name__)}", exc) from None


def unexpected(
    response: httpx.Response, what: str, exc: ValidationError | None = None
) -> UnexpectedResponseError:
    """The error for a response that `what` (e.g. "is not a Generation")."""
    request = response.request
    kind = response.headers.get("content-type", "no content type").split(";")[0].strip()
    detail = ""
    if exc is not None:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        detail = f" ({where + ': ' if where else ''}{first['msg']})"
    message = (
        f"{request.method} {request.url.path}: the server's {response.status_code} answer "
        f"({kind}) {what}{detail}; is something other than vidrouter answering at this address?"
    )
    return UnexpectedResponseError(one_line(message), response)


def api_error(response: httpx.Response) -> APIError:
    """The typed error of a non-2xx response, carrying the API's error object."""
    try:
        body = json_text.loads(response.text)
        error = ErrorObject.model_validate(body.get("error") if isinstance(body, dict) else None)
    except (ValueError, ValidationError):  # JsonTextError is a ValueError
        # Not the API's shape (a proxy's page, say): keep what is there, on one line.
        error = ErrorObject(
            type="api_error",
            code=f"http_{response.status_code}",
            message=one_line(response.text, _SHOWN) or response.reason_phrase or "no message",
        )
    return error_class(response.status_code)(
        response.status_code,
        error,
        request_id=response.headers.get("x-request-id"),
        retry_after=retry_after(response),
        response=response,
    )


def one_line(shown: str, limit: int = 500) -> str:
    """`shown` on one line, clipped, control characters escaped (it may reach a terminal)."""
    return text.displayable(" ".join(shown.split()), limit)


def _article(name: str) -> str:
    return f"an {name}" if name[0] in "AEIOU" else f"a {name}"
