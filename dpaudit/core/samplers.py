"""Samplers that are not dpaudit's vectorised ``mech(data, size, rng)``: a mechanism that draws its own
randomness (:func:`unseeded`), and a library function that returns one output per call (:func:`scalar`).

Libraries such as OpenDP draw from the operating system's entropy and cannot be seeded, and most
libraries' mechanisms return one value per call. Neither stops an audit: the statistical guarantees
hold for any independent draws, reproducible or not, and the per-call loop is dpaudit's to run, spread
over processes.

Randomized response on a yes/no answer, written as a library would write it::

    import random
    coin = dpaudit.scalar(lambda data: "yes" if random.random() < (0.75 if data else 0.25) else "no")
    dpaudit.audit_privacy(coin, dpaudit.PureDP(1.1), pairs=[(0, 1)])  # ln 3 = 1.0986 < 1.1: not refuted
"""

from __future__ import annotations

import inspect
import math
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .subjects import is_reproducible, subject_name

#: calls per chunk of a scalar sampler: each chunk is one task of the process pool and, for a sampler
#: that takes an rng, has its own child seed, so the outputs do not depend on the number of processes
CHUNK = 4096

UNSEEDED_NOTE = ("not reproducible from the run seed: the mechanism draws its own randomness; the statistical "
                 "guarantee does not need reproducibility (its samples are independent draws either way)")


class Unseeded:
    """A mechanism that declares it draws its own randomness: :func:`unseeded` makes one."""

    reproducible = False

    def __init__(self, mech: Any):
        sample = getattr(mech, "sample", None)
        if not callable(sample) and not callable(mech):
            raise TypeError(f"{mech!r} is not a mechanism: expected a callable mech(data, size, rng) or an object "
                            "with .sample(data, size, rng)")
        self.mech = mech
        self._sample = sample if callable(sample) else mech
        self.name = subject_name(mech)
        if callable(getattr(mech, "distribution", None)):
            self.distribution = mech.distribution

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        return self._sample(data, size, rng)

    def __repr__(self) -> str:
        return f"unseeded({self.name})"


def unseeded(mech: Any) -> Unseeded:
    """Declare that ``mech`` draws its own randomness (the operating system's, a library's own generator),
    so that the same generator state need not give the same outputs.

    The audit then skips its reproducibility check, still checks every output's shape and finiteness,
    and its record carries the note "not reproducible from the run seed". Statistical verdicts keep
    their confidence: they need independent draws, not reproducible ones. A re-run with the same seed
    gives another sample, so its certified bounds differ within their confidence. ``mech`` is
    ``mech(data, size, rng)`` (which may ignore ``rng``) or an object with ``.sample``; its
    ``.distribution`` is kept, so an exact audit of its stated law is still possible.
    """
    return mech if isinstance(mech, Unseeded) else Unseeded(mech)


def _takes_rng(fn: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: called as fn(data)
        return False
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    return len(required) >= 2 or (len(positional) >= 2 and positional[1].name == "rng")


def _chunk(fn: Callable[..., Any], data: Any, calls: int, seed: np.random.SeedSequence | None) -> np.ndarray:
    """``calls`` outputs of ``fn``, as one array (built in the worker, so only the array travels back)."""
    if seed is None:
        outputs = [fn(data) for _ in range(calls)]
    else:
        rng = np.random.default_rng(seed)
        outputs = [fn(data, rng) for _ in range(calls)]
    return np.asarray(outputs)


class ScalarSampler:
    """A vectorised sampler made from a one-output-per-call function; :func:`scalar` makes one."""

    def __init__(self, fn: Callable[..., Any], *, rng: bool | None = None, n_jobs: int | None = None,
                 chunk: int = CHUNK, progress: bool | None = None, name: str | None = None):
        if not callable(fn):
            raise TypeError(f"scalar needs a function fn(data) or fn(data, rng) returning one output, got {fn!r}")
        if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0):
            raise ValueError(f"n_jobs must be a number of processes, -1 for all cores, or None; got {n_jobs!r}")
        if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk <= 0:
            raise ValueError(f"chunk must be a positive number of calls, got {chunk!r}")
        self.fn = fn
        self.takes_rng = _takes_rng(fn) if rng is None else bool(rng)
        self.reproducible = self.takes_rng
        self.n_jobs = n_jobs
        self.chunk = chunk
        self.progress = progress
        self.name = name or subject_name(fn)

    def _seeds(self, chunks: int, rng: np.random.Generator) -> list[np.random.SeedSequence | None]:
        if not self.takes_rng:
            return [None] * chunks
        # one entropy draw from the audit's generator, then a child per chunk: reproducible from the
        # audit's seed and the same whatever the number of processes
        root = np.random.SeedSequence(rng.integers(0, 2**63, size=4).tolist())
        return root.spawn(chunks)

    def _workers(self, chunks: int) -> int:
        cores = os.cpu_count() or 1
        wanted = cores if self.n_jobs in (None, -1) else (self.n_jobs if self.n_jobs > 0 else cores + 1 + self.n_jobs)
        return max(1, min(wanted, chunks))

    def _show_progress(self, size: int) -> bool:
        if self.progress is not None:
            return self.progress
        return size >= 50 * self.chunk and sys.stderr.isatty()

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs of ``fn`` on ``data``, in chunks of :attr:`chunk` calls over :attr:`n_jobs`
        processes (in this process when there is one chunk or one process)."""
        chunks = max(1, math.ceil(size / self.chunk))
        calls = [min(self.chunk, size - i * self.chunk) for i in range(chunks)]
        seeds = self._seeds(chunks, rng)
        workers = self._workers(chunks)
        if workers == 1:
            parts: Iterator[np.ndarray] = (_chunk(self.fn, data, c, s) for c, s in zip(calls, seeds))
        else:
            from joblib import Parallel, delayed

            parts = Parallel(n_jobs=workers, backend="loky", return_as="generator")(
                delayed(_chunk)(self.fn, data, c, s) for c, s in zip(calls, seeds))
        if self._show_progress(size):
            from tqdm.auto import tqdm

            parts = tqdm(parts, total=chunks, desc=f"sampling {self.name}", unit="chunk", leave=False)
        out = list(parts)
        return out[0] if chunks == 1 else _concatenate(out)

    def __repr__(self) -> str:
        return f"scalar({self.name})"


def _concatenate(parts: list[np.ndarray]) -> np.ndarray:
    """Chunks' outputs as one array; strings of different lengths share the widest string dtype."""
    if all(p.dtype.kind == "U" for p in parts):
        width = max(p.dtype.itemsize for p in parts) // 4
        parts = [p.astype(f"<U{width}") for p in parts]
    return np.concatenate(parts)


def scalar(fn: Callable[..., Any], *, rng: bool | None = None, n_jobs: int | None = None, chunk: int = CHUNK,
           progress: bool | None = None, name: str | None = None) -> ScalarSampler:
    """A vectorised sampler ``sample(data, size, rng)`` made from ``fn``, which returns one output per call.

    Parameters
    ----------
    fn
        ``fn(data, rng)`` (draws from the numpy Generator it is given: reproducible from the audit's
        seed) or ``fn(data)`` (draws its own randomness: the sampler is :func:`unseeded`). Told apart by
        its signature (two required positional parameters, a second one named ``rng``, or ``*args``:
        it takes an rng), or by ``rng=True/False``. It must
        be picklable by cloudpickle (lambdas and closures are) when it runs in other processes. An
        output is a number, a tuple or array of numbers (one row), or a string or other hashable
        category, which the audit maps to integer codes.
    n_jobs
        Processes that run the calls (joblib's loky backend): ``None`` or ``-1`` all cores, 1 this
        process only. A sample of one chunk runs in this process.
    chunk
        Calls per task. With an rng, each chunk draws from its own child of one seed taken from the
        audit's generator, so the outputs are the same for any ``n_jobs``.
    progress
        Show a progress bar (tqdm, on stderr); by default only for long samples on a terminal.
    """
    return ScalarSampler(fn, rng=rng, n_jobs=n_jobs, chunk=chunk, progress=progress, name=name)


__all__ = ["CHUNK", "UNSEEDED_NOTE", "ScalarSampler", "Unseeded", "is_reproducible", "scalar", "unseeded"]
