"""Every non-2xx response has one shape:
`{"error": {"type": ..., "code": ..., "message": ..., "param": ...}}`."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Send

from vidrouter.api import methods
from vidrouter.domain.errors import ERROR_TYPES, RequestError, Unavailable
from vidrouter.store import outage

log = logging.getLogger(__name__)


def error_body(
    status: int, code: str, message: str, param: str | None = None, error_type: str | None = None
) -> dict[str, dict[str, str | None]]:
    return {
        "error": {
            "type": error_type or ERROR_TYPES.get(status, "api_error"),
            "code": code,
            "message": _encodable(message),
            "param": None if param is None else _encodable(param),
        }
    }


def _encodable(text: str) -> str:
    """A last guard (domain/text.py checks requests first): a lone surrogate echoed from a
    request would make the answer itself unencodable."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def error_response(
    status: int,
    code: str,
    message: str,
    param: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(
        error_body(status, code, message, param), status_code=status, headers=headers
    )


async def send_error(
    send: Send, status: int, code: str, message: str, param: str | None = None
) -> None:
    """The error response, sent by a pure ASGI middleware (one that answers before FastAPI)."""
    body = json.dumps(error_body(status, code, message, param)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class AuthError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class PermissionDenied(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def _request_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestError)
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, Unavailable) else None
    return JSONResponse(
        error_body(exc.status_code, exc.code, exc.message, exc.param, exc.error_type),
        status_code=exc.status_code,
        headers=headers,
    )


async def _auth_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AuthError)
    return error_response(401, exc.code, exc.message, headers={"WWW-Authenticate": "Bearer"})


async def _permission_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, PermissionDenied)
    return error_response(403, exc.code, exc.message)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    if status == 404:
        return error_response(404, "route_not_found", "no such endpoint")
    if status == 405:
        if methods.not_implemented(request):
            return error_response(404, "route_not_found", "no such endpoint")
        allow = ", ".join(methods.allowed(request))
        message = f"method {request.method[:20]} not allowed here; allowed: {allow}"
        return error_response(405, "method_not_allowed", message, headers={"Allow": allow})
    return error_response(status, "http_error", str(exc.detail), headers=exc.headers)


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    loc = [str(p) for p in first.get("loc", ()) if p not in ("query", "path", "body", "header")]
    param = ".".join(loc) or None
    message = f"{param}: {first.get('msg', 'invalid value')}" if param else "invalid request"
    return error_response(400, "parameter_invalid", message, param)


def _outage_response(request: Request, exc: Exception) -> JSONResponse | None:
    down = outage.classify(exc)  # a dependency down is an outage to wait out, not a bug
    if down is None:
        return None
    log.warning("dependency_unavailable", extra={"path": request.url.path, "code": down.code})
    return error_response(
        503, down.code, down.message, headers={"Retry-After": str(outage.RETRY_AFTER_SECONDS)}
    )


async def _outage(request: Request, exc: Exception) -> JSONResponse:
    """Database and storage errors raised by a route: 503 when they mean an outage."""
    response = _outage_response(request, exc)
    if response is None:
        raise exc  # a bug: the 500 handler logs it
    return response


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    response = _outage_response(request, exc)  # raised outside the routes (middleware)
    if response is not None:
        return response
    log.exception("unhandled_error", extra={"path": request.url.path}, exc_info=exc)
    return error_response(500, "internal_error", "an internal error occurred; it has been logged")


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestError, _request_error)
    app.add_exception_handler(AuthError, _auth_error)
    app.add_exception_handler(PermissionDenied, _permission_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    for kind in outage.OUTAGE_CANDIDATES:
        app.add_exception_handler(kind, _outage)
    app.add_exception_handler(Exception, _unexpected)
