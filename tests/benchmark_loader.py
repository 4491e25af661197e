"""Load a script of benchmarks/ as a module, as running it would: with benchmarks/ on sys.path, where the scripts
import their siblings from (_timing, opacus_driver)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_script(name: str):
    if str(BENCHMARKS) not in sys.path:
        sys.path.append(str(BENCHMARKS))  # last: the scripts' siblings never shadow an installed package
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
