"""Run every benchmark module (``bench_*.py``) in this folder, each in a process of its own so
that the memory it reports is its own; each prints its own figures."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import time
from pathlib import Path


def main(names: list[str]) -> int:
    here = Path(__file__).parent
    found = pkgutil.iter_modules([str(here)])
    modules = sorted(m.name for m in found if m.name.startswith("bench_"))
    if names:
        modules = [m for m in modules if any(n in m for n in names)]
    failed = []
    for name in modules:  # each with its own defaults
        print(f"=== {name}", flush=True)
        started = time.perf_counter()
        if subprocess.run([sys.executable, "-m", f"tests.bench.{name}"]).returncode:
            failed.append(name)
        print(f"--- {name}: {time.perf_counter() - started:.1f} s\n", flush=True)
    if failed:
        print("failed:", ", ".join(failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
