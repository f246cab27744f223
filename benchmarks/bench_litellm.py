"""LiteLLM's proxy on the same fake upstream: create, status and content of `/v1/videos`.

LiteLLM lives in its own virtual environment, `benchmarks/.venv-litellm` (gitignored),
made here on first use (`pip install 'litellm[proxy]' py-spy`; py-spy is the profiler
`bench_lifecycle.py --profile` uses). The proxy runs with no database (a master key in its
config, nothing else), one worker process, its `sora-2` model pointed at the fake.
`bench_lifecycle.py --litellm` calls `measure` in the same run as ours; alone:

    python benchmarks/bench_litellm.py [--seconds 5] [--connections 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from loadgen import run_load  # noqa: E402

VENV = HERE / ".venv-litellm"
MASTER_KEY = "sk-litellm-bench"


def ensure_venv() -> Path:
    """The `litellm` command of the benchmark's own environment, installed if missing."""
    binary = VENV / "bin" / "litellm"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "litellm[proxy]", "py-spy"], check=True)
    return binary


def version() -> str:
    out = subprocess.run(
        [
            str(VENV / "bin" / "python"),
            "-c",
            "import importlib.metadata as m;"
            "print(m.version('litellm'), m.version('uvicorn'), m.version('fastapi'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return f"litellm {out[0]} (uvicorn {out[1]}, fastapi {out[2]})"


async def measure(fake: str, seconds: float, connections: int) -> dict[str, Any]:
    from bench_lifecycle import free_port, stop, wait_ready

    binary = ensure_venv()
    tmp = Path(tempfile.mkdtemp(prefix="vr-litellm-"))
    config = tmp / "config.yaml"
    config.write_text(
        f"""model_list:
  - model_name: sora-2
    litellm_params:
      model: openai/sora-2
      api_base: {fake}/v1
      api_key: sk-bench
general_settings:
  master_key: {MASTER_KEY}
"""
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(binary), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp,
        stdout=(tmp / "litellm.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    headers = {"Authorization": f"Bearer {MASTER_KEY}"}
    try:
        await wait_ready(f"{base}/health/liveliness", timeout=120)
        async with httpx.AsyncClient(timeout=30, headers=headers) as client:
            made = await client.post(f"{base}/v1/videos", json={"model": "sora-2", "prompt": "p"})
            video_id = made.json()["id"]
        body = json.dumps({"model": "sora-2", "prompt": "p"}).encode()
        results: dict[str, Any] = {"version": version()}
        for name, path, payload in [
            ("create", "/v1/videos", body),
            ("status", f"/v1/videos/{video_id}", None),
            ("content", f"/v1/videos/{video_id}/content", None),
        ]:
            load = await run_load(
                base + path,
                seconds=seconds,
                connections=connections,
                headers=headers,
                body=(lambda b=payload: b) if payload else None,
            )
            results[name] = load.summary()
        return results
    finally:
        stop(proc)


async def _alone(seconds: float, connections: int) -> dict[str, Any]:
    from bench_lifecycle import free_port, start_fake, stop, wait_ready

    port = free_port()
    fake = start_fake(port)
    try:
        await wait_ready(f"http://127.0.0.1:{port}/hook/count")
        return await measure(f"http://127.0.0.1:{port}", seconds, connections)
    finally:
        stop(fake)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(_alone(args.seconds, args.connections)), indent=1))
