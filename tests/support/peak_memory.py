"""A child process's own peak memory, for the memory checks of the join (its test and its
benchmark), which run the join in a fresh Python: this text, put before the measuring
script, defines `status(field)` (a `/proc/self/status` value in bytes) and `start_peak()`.
`start_peak()` restarts the high-water mark (Linux: `5` to `clear_refs`), so that the
imports' own peak is not counted, and returns the RSS at that moment: `status("VmHWM")`
after the join is then the join's own peak."""

PEAK_MEMORY = """
from pathlib import Path as _Path
def status(field):
    for line in _Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
def start_peak():
    _Path("/proc/self/clear_refs").write_text("5")
    return status("VmRSS")
"""
