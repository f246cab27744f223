"""`make bench`: every benchmark, one after the other (see docs/performance.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    for script, args in [
        ("bench_render.py", ["--runs", "3"]),
        ("bench_api.py", ["--seconds", "10"]),
    ]:
        print(f"== {script}", flush=True)
        code = subprocess.call([sys.executable, str(HERE / script), *args])
        if code:
            sys.exit(code)
