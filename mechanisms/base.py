"""The base of every release in ``dpaudit.mechanisms``: the public methods once, private kernels per class.

A *release* is what a mechanism publishes about its input: ``release.sample(data, size, rng)``
draws ``size`` outputs (first axis ``size``), and a release with an exact law also answers
``release.distribution(data)``, the exact output distribution the exact auditor analyses. As in
scipy.stats, the public methods check their arguments and call private kernels that a subclass
overrides:

- ``_input(data)``: check and convert the input, once, for both kernels (default: unchanged);
- ``_sample(x, size, rng)``: draw ``size`` outputs from the checked input ``x`` (``size`` already
  checked);
- ``_distribution(x)``: the exact output distribution (:class:`ExactRelease` only).

:class:`Release` has no ``distribution`` method at all, so a release without an exact law is audited
from samples (the harness looks for the method); :class:`ExactRelease` adds it. :class:`Adapter` is
a release that transforms its input and hands it to an inner release (a different input layout,
user-major data, a whitened view). ``name`` is the release's readable name (its ``repr``) and
``paper`` / ``source`` its provenance: the paper key (or textbook) and the algorithm or equation it
implements.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import sample_size


class Release:
    """A vectorised sampler of what a mechanism releases (module docstring)."""

    paper: ClassVar[str | None] = None
    """The paper key (``dist-mab``, ...) or textbook reference the release implements."""
    source: ClassVar[str] = ""
    """Where in it: the algorithm, equation or section."""
    name: str = ""

    @property
    def owner(self) -> str:
        """How error messages name this release."""
        return type(self).__name__

    @property
    def provenance(self) -> dict[str, str | None]:
        return {"paper": self.paper, "source": self.source}

    def _input(self, data: Any) -> Any:
        return data

    def _sample(self, x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} defines no _sample kernel")

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs on ``data``: an array whose first axis has length ``size``."""
        x = self._input(data)
        return self._sample(x, sample_size(self.owner, size), rng)

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)

    def __repr__(self) -> str:
        return self.name or type(self).__name__


class ExactRelease(Release):
    """A release with an exact output distribution."""

    def _distribution(self, x: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no _distribution kernel")

    def distribution(self, data: Any) -> Any:
        """The exact distribution of the output on ``data``."""
        return self._distribution(self._input(data))


class Adapter(ExactRelease):
    """A release that transforms its input (``_input``) and hands it to ``inner``: the same outputs,
    drawn with the same randomness, and the same exact law (if ``inner`` has one)."""

    inner: Release

    def _sample(self, x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.inner.sample(x, size, rng)

    def _distribution(self, x: Any) -> Any:
        return self.inner.distribution(x)  # type: ignore[attr-defined]


class AsPrinted(Release):
    """A release drawn by its step-by-step path as its paper prints it, instead of its fast sampler: user by user
    (``sample_per_user``: each user's randomizer and share, the secure sum, an analyzer's own draw) or pull by pull
    (``sample_per_pull``: each array's or p-sum's noise drawn when the algorithm releases it). The law is the
    release's (its tests hold the two paths to it), but only this path runs those draws, which the exact law and
    the fast sampler never call: an audit of it reaches a bug there. It has no exact law of its own, so an audit of
    it is from samples."""

    PATHS = ("sample_per_user", "sample_per_pull")

    def __init__(self, release: Release):
        methods = [name for name in self.PATHS if callable(getattr(release, name, None))]
        if not methods:
            raise TypeError(f"{self.owner}: {release!r} has no step-by-step path ({' or '.join(self.PATHS)})")
        self.release, self._draw = release, getattr(release, methods[0])
        self.paper = getattr(release, "paper", None)
        self.source = getattr(release, "source", "")
        self.name = f"{release!r}, drawn {'user by user' if methods[0] == 'sample_per_user' else 'pull by pull'}"

    def _sample(self, x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self._draw(x, size, rng)


__all__ = ["Adapter", "AsPrinted", "ExactRelease", "Release"]
