"""What the commands that talk to a running server share: where it is, the key, the client,
and how an error is shown."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Annotated, Any, NoReturn, TypeVar, get_type_hints

import typer
from rich.console import Console
from rich.markup import escape

from vidrouter.client import DEFAULT_BASE_URL, APIError, Client, ClientError
from vidrouter.domain.text import displayable

BaseUrl = Annotated[
    str,
    typer.Option(
        "--base-url",
        envvar="VIDROUTER_BASE_URL",
        help="The server's address.",
        show_default=True,
    ),
]
ApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key", envvar="VIDROUTER_API_KEY", help="The API key (vr_...).", show_default=False
    ),
]
Json = Annotated[
    bool, typer.Option("--json", help="Print JSON on stdout (messages stay on stderr).")
]
Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        envvar="VIDROUTER_TIMEOUT",
        min=0.001,
        max=86400,
        help="Seconds one request to the server may take, whole (the answer included).",
        show_default=True,
    ),
]
DEFAULT_TIMEOUT = 30.0

DEFAULT = DEFAULT_BASE_URL
T = TypeVar("T")
err = Console(stderr=True)
out = Console()


def client(
    api_key: str | None,
    base_url: str,
    *,
    poll_interval: float = 1.0,
    timeout: float = DEFAULT_TIMEOUT,
) -> Client:
    if not api_key:
        err.print(
            "[red]No API key[/]: pass --api-key or set VIDROUTER_API_KEY "
            "(make one with `vidrouter keys create --name NAME`)."
        )
        raise typer.Exit(2)
    return Client(api_key, base_url=base_url, poll_interval=poll_interval, timeout=timeout)


@dataclass(frozen=True)
class Server:
    """The running server a command talks to, as its options name it: the options every
    such command takes, declared once (`with_server` gives a command them)."""

    api_key: ApiKey = None
    base_url: BaseUrl = DEFAULT
    as_json: Json = False
    timeout: Timeout = DEFAULT_TIMEOUT

    def client(self, *, poll_interval: float = 1.0) -> Client:
        return client(
            self.api_key, self.base_url, poll_interval=poll_interval, timeout=self.timeout
        )

    def ask(self, call: Callable[[Client], T]) -> T:
        """One request to the server, `call(client)`'s answer; a failed one shown and exit 1."""
        with self.client() as api:
            try:
                return call(api)
            except ClientError as exc:
                fail(exc, as_json=self.as_json)


def with_server(command: Callable[..., None]) -> Callable[..., None]:
    """`command` as typer reads it: its `server: Server` parameter becomes `Server`'s fields,
    options after its own (typer reads a command's options off its signature, and has no
    other way to give many commands the same ones)."""
    hints = get_type_hints(Server, include_extras=True)
    options = [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name]
        )
        for f in fields(Server)
    ]
    own = inspect.signature(command, eval_str=True).parameters
    if "server" not in own:
        raise TypeError(f"{command.__name__} takes no `server: Server`")
    parameters = [p for name, p in own.items() if name != "server"] + options

    @functools.wraps(command)
    def run(**given: Any) -> None:
        server = Server(**{o.name: given.pop(o.name) for o in options})
        command(**given, server=server)

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run


def fail(exc: ClientError, *, as_json: bool = False) -> NoReturn:
    """Show the error on one line (the API's code and message when it has them) and exit 1.
    What the server sent is shown as text: never as markup, never more than one line."""
    if isinstance(exc, APIError):
        head = f"Error {exc.status_code} {shown(exc.code, 60)}"
        message = exc.message
        error = exc.error.model_dump()
    else:
        head, message = "Error", str(exc)
        error = {"code": "client_error", "message": message}
    err.print(f"[red]{head}[/]: {shown(message)}", highlight=False, soft_wrap=True)
    if as_json:
        typer.echo(json.dumps({"error": error}))
    raise typer.Exit(1)


def shown(text: str, limit: int = 300) -> str:
    """Text a server sent, safe to print: one line, clipped, its markup escaped."""
    return escape(displayable(" ".join(text.split()), limit))


def money(amount: float, currency: str = "USD") -> str:
    return f"{amount:.4f} {currency}".replace(".0000 ", ".00 ")
