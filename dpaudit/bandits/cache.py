"""Simulations cached by content, so that several claims about one simulation run it once.

The key is a SHA-256 of everything the result depends on: the pickled policy and environment (their
classes and parameters), the seed sequence (entropy and spawn key), the horizon, the runs, the
recorded rounds, the path, and the code (a hash of the source of ``dpaudit`` and its installed
subpackages, so an edited algorithm never reuses a stale result). The worker count is not part of
the key: :func:`dpaudit.simulate` gives the same result for every worker count.

Results are kept in memory (the last :data:`MEMORY_ENTRIES` of the process) and, when a directory is
given, on disk as pickles named by their key, which processes of one suite run share (the runner
keeps them under ``<out>/.cache/simulations``). An object that cannot be pickled (a policy defined
in a notebook cell's closure, say) is simulated every time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import tempfile
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .._version import __version__
from ..core.seeding import as_seed_sequence

#: simulations kept in memory per process
MEMORY_ENTRIES = 16
_memory: OrderedDict[str, Any] = OrderedDict()


@cache
def code_version() -> str:
    """A hash of the source of dpaudit and its subpackages (algorithms, mechanisms, ...).

    The folders are located, not imported (``find_spec``): the cache sits below the package's public
    face and the algorithms, and must not import them."""
    digest = hashlib.sha256(__version__.encode())
    root = Path(__file__).resolve().parent
    roots = [root] + [Path(p) for name in ("algorithms", "mechanisms")
                      for p in (importlib.util.find_spec(f"dpaudit.{name}").submodule_search_locations or [])]
    for base in dict.fromkeys(roots):
        for path in sorted(base.rglob("*.py")):
            digest.update(str(path.relative_to(base)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def simulation_key(policy: Any, environment: Any, horizon: int, runs: int, seed: np.random.SeedSequence,
                   grid: Any, path: str = "auto") -> str | None:
    """The cache key of a simulation, or None if the policy or the environment cannot be pickled."""
    try:
        blob = pickle.dumps((policy, environment), protocol=4)
    except Exception:  # noqa: BLE001 - an unpicklable object is simply not cached
        return None
    entropy = seed.entropy if not isinstance(seed.entropy, (list, tuple)) else tuple(seed.entropy)
    rounds = None if grid is None else tuple(int(t) for t in np.asarray(grid).ravel())
    digest = hashlib.sha256(code_version().encode())
    digest.update(blob)
    digest.update(repr((entropy, tuple(seed.spawn_key), int(horizon), int(runs), rounds, path)).encode())
    return digest.hexdigest()


def cached_simulate(policy: Any, environment: Any, horizon: int, runs: int, seed: Any = None, *, grid: Any = None,
                    path: str = "auto", workers: int = 1, directory: str | os.PathLike | None = None) -> Any:
    """:func:`dpaudit.simulate`, answered from the cache when the same simulation ran before (module
    docstring). ``seed`` None draws fresh entropy, which no earlier simulation can share."""
    from .simulation import simulate

    seq = as_seed_sequence(seed)
    key = simulation_key(policy, environment, horizon, runs, seq, grid, path)
    if key is None:
        return simulate(policy, environment, horizon, runs, seq, grid=grid, path=path, workers=workers)
    if key in _memory:
        _memory.move_to_end(key)
        return _memory[key]
    file = Path(directory) / f"{key}.pickle" if directory is not None else None
    result = _load(file) if file is not None else None
    if result is None:
        result = simulate(policy, environment, horizon, runs, seq, grid=grid, path=path, workers=workers)
        if file is not None:
            _store(file, result)
    _memory[key] = result
    while len(_memory) > MEMORY_ENTRIES:
        _memory.popitem(last=False)
    return result


def clear_memory() -> None:
    """Forget the simulations kept in this process's memory (the disk cache is left alone)."""
    _memory.clear()


def _load(file: Path) -> Any:
    try:
        with open(file, "rb") as fh:
            return pickle.load(fh)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - a damaged entry is recomputed and overwritten
        return None


def _store(file: Path, result: Any) -> None:
    # written under a temporary name and renamed, so a reader never sees half a file
    file.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".partial-")
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(result, fh, protocol=4)
        os.replace(tmp, file)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["MEMORY_ENTRIES", "cached_simulate", "clear_memory", "code_version", "simulation_key"]
