"""`vidrouter batch run FILE.jsonl`: submit a JSONL file of creates (each line a create body
with a `custom_id`) to a running server as one batch, follow it with a progress bar (done,
failed, cost) and write its results; `batch status ID`, `batch results ID`, `batch cancel
ID`.

`run` is resumable: the batch's id is kept beside the file (`FILE.jsonl.batch`, with the
file's hash), so running it again follows that batch instead of submitting the file twice
(`--new` submits it again). The batch itself runs on the server and survives the command
being stopped; Ctrl-C only stops following it.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from vidrouter.cli.remote import DEFAULT, ApiKey, BaseUrl, Json, client, err, fail, money, out
from vidrouter.client import Batch, BatchResult, Client, ClientError

app = typer.Typer(
    help="Run a JSONL file of creates as one batch, and follow it.", no_args_is_help=True
)

BatchId = Annotated[str, typer.Argument(help="The batch's id (batch_...).")]
Output = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Write the results JSONL here (default: stdout)."),
]
Poll = Annotated[float, typer.Option("--poll", help="Seconds between looks at the batch.")]


@app.command("run")
def run(
    file: Annotated[
        Path,
        typer.Argument(help="A JSONL file: a create body per line.", exists=True, dir_okay=False),
    ],
    output: Output = None,
    new: Annotated[
        bool, typer.Option("--new", help="Submit again, even if it ran before.")
    ] = False,
    api_key: ApiKey = None,
    base_url: BaseUrl = DEFAULT,
    poll: Poll = 1.0,
) -> None:
    """Submit FILE as one batch (or follow the one it made before), show its progress, and
    write its results when it ends."""
    data = file.read_bytes()
    state = Path(f"{file}.batch")
    digest = hashlib.sha256(data).hexdigest()
    batch: Batch | None = None
    with client(api_key, base_url, poll_interval=poll) as api:
        try:
            batch_id = None if new else _resumed(state, digest)
            if batch_id is None:
                batch = api.create_batch_file(data)
                state.write_text(json.dumps({"batch_id": batch.id, "sha256": digest}))
                err.print(f"batch [bold]{batch.id}[/] submitted: {batch.total} lines")
            else:
                batch = api.batch(batch_id)
                err.print(f"following batch [bold]{batch.id}[/] (from {state.name})")
            batch = _follow(api, batch, poll)
            _write(api.batch_results(batch.id), output)
        except ClientError as exc:
            fail(exc)
        except KeyboardInterrupt:
            if batch is not None:
                err.print(f"stopped following; the batch runs on: `vidrouter batch run {file}`")
            raise typer.Exit(130) from None
    err.print(_summary(batch))
    if batch.status != "completed":
        raise typer.Exit(1)


@app.command("status")
def status(
    batch_id: BatchId, api_key: ApiKey = None, base_url: BaseUrl = DEFAULT, as_json: Json = False
) -> None:
    """Where a batch is: status, counts per status, cost so far and estimated total."""
    with client(api_key, base_url) as api:
        try:
            batch = api.batch(batch_id)
        except ClientError as exc:
            fail(exc, as_json=as_json)
    if as_json:
        typer.echo(batch.model_dump_json())
        return
    out.print(_summary(batch), highlight=False)


@app.command("results")
def results(
    batch_id: BatchId, output: Output = None, api_key: ApiKey = None, base_url: BaseUrl = DEFAULT
) -> None:
    """Every line's result as JSONL: custom_id, generation id, status, video_url, cost, error."""
    with client(api_key, base_url) as api:
        try:
            _write(api.batch_results(batch_id), output)
        except ClientError as exc:
            fail(exc)


@app.command("cancel")
def cancel(batch_id: BatchId, api_key: ApiKey = None, base_url: BaseUrl = DEFAULT) -> None:
    """Cancel a batch: lines not started end canceled, its unfinished generations are canceled."""
    with client(api_key, base_url) as api:
        try:
            batch = api.cancel_batch(batch_id)
        except ClientError as exc:
            fail(exc)
    out.print(_summary(batch), highlight=False)


def _resumed(state: Path, digest: str) -> str | None:
    try:
        saved = json.loads(state.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("sha256") != digest:
        return None  # the file changed since: a new batch
    batch_id = saved.get("batch_id")
    return batch_id if isinstance(batch_id, str) else None


def _follow(api: Client, batch: Batch, poll: float) -> Batch:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("failed {task.fields[failed]}"),
        TextColumn("cost {task.fields[cost]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
        task = progress.add_task(batch.status, total=batch.total, failed=0, cost="-")
        while True:
            counts = batch.counts
            done = counts.get("completed", 0) + counts.get("failed", 0) + counts.get("canceled", 0)
            progress.update(
                task,
                description=batch.status.replace("_", " "),
                completed=done,
                failed=counts.get("failed", 0),
                cost=money(batch.cost.amount, batch.cost.currency),
            )
            if batch.done:
                return batch
            time.sleep(poll)
            batch = api.batch(batch.id)


def _write(lines: list[BatchResult], output: Path | None) -> None:
    text = "".join(line.model_dump_json() + "\n" for line in lines)
    if output is None:
        sys.stdout.write(text)
        return
    output.write_text(text)
    err.print(f"{len(lines)} results written to {output}")


def _summary(b: Batch) -> str:
    counts = ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in b.counts.items() if n)
    error = f" ({b.error.code}: {b.error.message})" if b.error else ""
    return (
        f"batch {b.id}: {b.status}{error}; {b.total} lines: {counts or 'none yet'}; cost "
        f"{money(b.cost.amount, b.cost.currency)} of an estimated "
        f"{money(b.estimated_total.amount, b.estimated_total.currency)}"
    )
