"""`vidrouter generate "PROMPT" --model M`: create a generation on a running server, show
its progress live, and download the MP4.

Ctrl-C while waiting: with a terminal, it asks whether to cancel the generation (a canceled
one is not billed; one left running is, and can be fetched later with `vidrouter status`).
Without a terminal nobody can answer, so nothing is canceled unless `--on-interrupt cancel`
said so beforehand: a paid generation is never thrown away, nor silently left, without it
being said; the command prints which it did and exits 130 either way.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from types import FrameType
from typing import Annotated, NoReturn, cast

import click
import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from vidrouter.cli.remote import DEFAULT, ApiKey, BaseUrl, Json, client, err, fail, money
from vidrouter.client import Client, ClientError, Generation
from vidrouter.client.types import CreateControls
from vidrouter.domain.controls import MAX_SEED

INTERRUPTED = 130


class OnInterrupt(StrEnum):
    ask = "ask"
    cancel = "cancel"
    leave = "leave"


def generate(
    prompt: Annotated[str, typer.Argument(help="What the video shows.")],
    model: Annotated[
        str, typer.Option("--model", "-m", help="A model id (see `vidrouter models`).")
    ],
    duration: Annotated[float | None, typer.Option(help="Seconds (default: the model's).")] = None,
    aspect_ratio: Annotated[
        str | None,
        typer.Option("--aspect-ratio", help="16:9, 9:16, 1:1 ... (default: the model's first)."),
    ] = None,
    image: Annotated[
        str | None,
        typer.Option(
            help="First frame: an http(s) URL, or a local PNG/JPEG (sent as a data: URI)."
        ),
    ] = None,
    resolution: Annotated[
        str | None,
        typer.Option(help="480p, 540p, 720p, 768p, 1080p or 4k (default: the model's first)."),
    ] = None,
    audio: Annotated[
        bool | None,
        typer.Option("--audio/--no-audio", help="With or without sound (default: the model's)."),
    ] = None,
    negative_prompt: Annotated[
        str | None, typer.Option("--negative-prompt", help="What the video should not show.")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(min=0, max=MAX_SEED, help="Same seed, same video (mostly).")
    ] = None,
    end_image_url: Annotated[
        str | None,
        typer.Option("--end-image-url", help="Last frame (with --image): an http(s) URL."),
    ] = None,
    enhance_prompt: Annotated[
        bool | None,
        typer.Option(
            "--enhance-prompt/--no-enhance-prompt", help="Let the provider rewrite the prompt."
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Where to save the MP4 (default <id>.mp4)."),
    ] = None,
    on_interrupt: Annotated[
        OnInterrupt,
        typer.Option(help="Ctrl-C: ask (when there is a terminal, else leave), cancel, or leave."),
    ] = OnInterrupt.ask,
    api_key: ApiKey = None,
    base_url: BaseUrl = DEFAULT,
    as_json: Json = False,
) -> None:
    """Generate a video on a running server, watch it progress, and download it. The
    controls a model takes are in `vidrouter models` (resolutions, supports)."""
    asked = {
        "resolution": resolution,
        "generate_audio": audio,
        "negative_prompt": negative_prompt,
        "seed": seed,
        "end_image_url": end_image_url,
        "enhance_prompt": enhance_prompt,
    }
    controls = cast(CreateControls, {k: v for k, v in asked.items() if v is not None})
    with client(api_key, base_url, poll_interval=0.5) as api, _InterruptsHeld() as interrupts:
        try:
            # A Ctrl-C during the create is held until the generation's id is known, so the
            # question below is always about a generation we can name.
            first = api.create(
                model, prompt, duration=duration, aspect_ratio=aspect_ratio, image=image, **controls
            )
            err.print(
                f"Created [bold]{first.id}[/] ({first.model}, {first.duration:g} s, {first.aspect_ratio})"
            )
            try:
                final = _watch(api, first, interrupts, quiet=as_json)
            except KeyboardInterrupt:
                _interrupted(api, first, on_interrupt, interrupts)
            if final.status != "completed":
                _report_failure(final, as_json)
            try:
                with interrupts.released():
                    path = api.download(final.id, output or Path(f"{final.id}.mp4"))
            except KeyboardInterrupt:
                err.print(f"\nDownload interrupted; fetch it later: `vidrouter status {final.id}`.")
                raise typer.Exit(INTERRUPTED) from None
        except ClientError as exc:
            fail(exc, as_json=as_json)
    cost = money(final.cost.amount, final.cost.currency) if final.cost else "-"
    if as_json:
        typer.echo(json.dumps({**final.model_dump(mode="json"), "output": str(path)}))
    err.print(f"Saved [bold]{path}[/] ({final.id}, cost {cost})", highlight=False, soft_wrap=True)


def _watch(
    api: Client, first: Generation, interrupts: _InterruptsHeld, *, quiet: bool
) -> Generation:
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
    )
    with (
        Progress(*columns, console=err, transient=False, disable=quiet) as progress,
        interrupts.released(),
    ):
        task = progress.add_task(first.status, total=100)

        def show(g: Generation) -> None:
            done = 100 if g.status == "completed" else (g.progress or 0)
            progress.update(task, description=g.status.replace("_", " "), completed=done)

        return api.wait(first.id, on_progress=show)


class _InterruptsHeld:
    """Ctrl-C is held back except inside `released()` (one that came earlier is raised on
    entering it): during the create, so the generation's id is known when we ask, and
    while the progress display starts and stops, which a KeyboardInterrupt would leave
    holding the terminal (and the question after it unseen)."""

    def __init__(self) -> None:
        self._armed = False
        self._pending = False
        self._previous: signal._HANDLER = None

    def __enter__(self) -> _InterruptsHeld:
        self._previous = signal.signal(signal.SIGINT, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self._previous)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self._armed:
            raise KeyboardInterrupt
        self._pending = True

    @contextlib.contextmanager
    def released(self) -> Iterator[None]:
        self._armed = True
        try:
            if self._pending:
                self._pending = False
                raise KeyboardInterrupt
            yield
        finally:
            self._armed = False


def _interrupted(
    api: Client, generation: Generation, choice: OnInterrupt, interrupts: _InterruptsHeld
) -> NoReturn:
    if choice is OnInterrupt.ask:
        if sys.stdin.isatty():
            try:
                with interrupts.released():  # a second Ctrl-C at the question: leave it
                    cancel = typer.confirm(f"\nCancel {generation.id}?", default=True, err=True)
            except (KeyboardInterrupt, click.exceptions.Abort):
                cancel = False
            choice = OnInterrupt.cancel if cancel else OnInterrupt.leave
        else:
            err.print("\nInterrupted, and no terminal to ask whether to cancel.")
            choice = OnInterrupt.leave
    if choice is OnInterrupt.cancel:
        try:
            canceled = api.cancel(generation.id)
        except ClientError as exc:
            fail(exc)
        err.print(f"Canceled [bold]{canceled.id}[/].")
    else:
        err.print(
            f"Left [bold]{generation.id}[/] running (it is billed if it completes); "
            f"see it with `vidrouter status {generation.id}`.",
            highlight=False,
            soft_wrap=True,
        )
    raise typer.Exit(INTERRUPTED)


def _report_failure(g: Generation, as_json: bool) -> NoReturn:
    reason = f"{g.error.code}: {g.error.message}" if g.error else "no reason given"
    err.print(f"[red]Generation {g.id} {g.status}[/]: {reason}", highlight=False, soft_wrap=True)
    if as_json:
        typer.echo(g.model_dump_json())
    raise typer.Exit(1)
