"""`make bench`: every benchmark, one after the other (see docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    for script, args in [
        ("bench_render.py", ["--runs", "3"]),
        ("bench_join.py", ["--mb", "500"]),
        ("bench_api.py", ["--seconds", "10"]),
        # The lifecycle, the /v1/videos shape, the content host and LiteLLM's proxy (in its
        # own environment, benchmarks/.venv-litellm, made on first use), one run.
        ("bench_lifecycle.py", ["--count", "2000", "--litellm"]),
        ("bench_lifecycle.py", ["--count", "2000", "--database", "postgres"]),
        ("bench_waiting.py", ["--rows", "100000", "--seconds", "60"]),
        # Interactive creates alone, then while a 1,000-line batch runs, then alone again.
        ("bench_batch.py", ["--lines", "1000", "--seconds", "15", "--rate", "8", "--rounds", "2"]),
    ]:
        print(f"== {script}", flush=True)
        code = subprocess.call([sys.executable, str(HERE / script), *args])
        if code:
            sys.exit(code)
