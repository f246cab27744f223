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
import re
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

from vidrouter.cli.remote import Server, err, fail, money, shown, with_server
from vidrouter.client import Client, ClientError, Generation
from vidrouter.client.images import image_url
from vidrouter.client.types import CreateControls
from vidrouter.domain.controls import MAX_SEED
from vidrouter.domain.create_fields import Inputs

INTERRUPTED = 130
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_NAME_CHARS = 80


def _inputs(references: list[str], video: str | None, extend: str | None) -> Inputs:
    """The create's `references`, `video` and `type` from the options."""
    if video is not None and extend is not None:
        fail(ClientError("give --video (an edit) or --extend (more of it), not both"))
    out: Inputs = {}
    if references:
        out["references"] = [_reference(r) for r in references]
    source = video if video is not None else extend
    if source is not None:
        out["type"] = "video-to-video" if video is not None else "video-extend"
        out["video"] = {"generation_id" if source.startswith("gen_") else "url": source}
    return out


def _reference(given: str) -> dict[str, str]:
    kind, _, url = given.partition("=")
    if kind in ("video", "audio") and url:
        return {"type": kind, "url": url}
    if kind == "character" and url:  # kept with `vidrouter characters create`
        return {"type": "character", "id": url}
    try:
        return {"type": "image", "url": image_url(given)}
    except ClientError as exc:
        fail(ClientError(f"--reference {given}: {exc}"))


class OnInterrupt(StrEnum):
    ask = "ask"
    cancel = "cancel"
    leave = "leave"


@with_server
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
    reference: Annotated[
        list[str] | None,
        typer.Option(
            help="A reference image (repeatable): an http(s) URL or a local PNG/JPEG; "
            "video=URL or audio=URL for other media, character=ID for a character. "
            "Makes a reference-to-video."
        ),
    ] = None,
    video: Annotated[
        str | None,
        typer.Option(
            help="Re-render this video (video-to-video): a generation id (gen_...) or an "
            "http(s) URL of an MP4."
        ),
    ] = None,
    extend: Annotated[
        str | None,
        typer.Option(
            help="Extend this video by --duration seconds (video-extend; the whole video is "
            "returned): a generation id (gen_...) or an http(s) URL of an MP4."
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
        typer.Option(
            "--output",
            "-o",
            help="Where to save the MP4 (default: <id>.mp4 in the working directory).",
        ),
    ] = None,
    on_interrupt: Annotated[
        OnInterrupt,
        typer.Option(help="Ctrl-C: ask (when there is a terminal, else leave), cancel, or leave."),
    ] = OnInterrupt.ask,
    *,
    server: Server,
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
    inputs = _inputs(reference or [], video, extend)
    with (
        server.client(poll_interval=0.5) as api,
        _InterruptsHeld() as interrupts,
    ):
        try:
            # A Ctrl-C during the create is held until the generation's id is known, so the
            # question below is always about a generation we can name.
            first = api.create(
                model,
                prompt,
                duration=duration,
                aspect_ratio=aspect_ratio,
                image=image,
                **inputs,
                **controls,
            )
            err.print(
                f"Created [bold]{shown(first.id)}[/] ({shown(first.model)}, "
                f"{first.duration:g} s, {shown(first.aspect_ratio)})",
                highlight=False,
            )
            try:
                final = _watch(api, first, interrupts, quiet=server.as_json)
            except KeyboardInterrupt:
                _interrupted(api, first, on_interrupt, interrupts)
            if final.status != "completed":
                _report_failure(final, server.as_json)
            try:
                with interrupts.released():
                    path = api.download(final.id, output or default_output(final.id))
            except KeyboardInterrupt:
                err.print(
                    f"\nDownload interrupted; fetch it later: `vidrouter status {shown(final.id)}`.",
                    highlight=False,
                )
                raise typer.Exit(INTERRUPTED) from None
        except ClientError as exc:
            fail(exc, as_json=server.as_json)
    cost = money(final.cost.amount, final.cost.currency) if final.cost else "-"
    if server.as_json:
        typer.echo(json.dumps({**final.model_dump(mode="json"), "output": str(path)}))
    err.print(
        f"Saved [bold]{shown(str(path))}[/] ({shown(final.id)}, cost {shown(cost)})",
        highlight=False,
        soft_wrap=True,
    )


def default_output(generation_id: str) -> Path:
    """`<id>.mp4` in the working directory, the id reduced to the id alphabet: the id is the
    server's word, and a name like `../x` or `/etc/x` must never choose where the file goes."""
    safe = _UNSAFE.sub("_", generation_id)[:_NAME_CHARS].lstrip("._-")
    return Path(f"{safe or 'video'}.mp4")


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
                    cancel = typer.confirm(
                        f"\nCancel {shown(generation.id)}?", default=True, err=True
                    )
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
        err.print(f"Canceled [bold]{shown(canceled.id)}[/].", highlight=False)
    else:
        gid = shown(generation.id)
        err.print(
            f"Left [bold]{gid}[/] running (it is billed if it completes); "
            f"see it with `vidrouter status {gid}`.",
            highlight=False,
            soft_wrap=True,
        )
    raise typer.Exit(INTERRUPTED)


def _report_failure(g: Generation, as_json: bool) -> NoReturn:
    reason = f"{g.error.code}: {g.error.message}" if g.error else "no reason given"
    err.print(
        f"[red]Generation {shown(g.id)} {g.status}[/]: {shown(reason)}",
        highlight=False,
        soft_wrap=True,
    )
    if as_json:
        typer.echo(g.model_dump_json())
    raise typer.Exit(1)
