"""Run every benchmark module (``bench_*.py``) in this folder; each prints its own figures."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def main(names: list[str]) -> int:
    here = Path(__file__).parent
    found = pkgutil.iter_modules([str(here)])
    modules = sorted(m.name for m in found if m.name.startswith("bench_"))
    if names:
        modules = [m for m in modules if any(n in m for n in names)]
    sys.argv = sys.argv[:1]  # each benchmark then runs with its own defaults
    for name in modules:
        print(f"=== {name}", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"tests.bench.{name}").main()
        print(f"--- {name}: {time.perf_counter() - started:.1f} s\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
