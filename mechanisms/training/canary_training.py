"""DP-SGD on logistic regression with a canary, vectorised over runs: the training loop a canary audit audits
(:func:`dpaudit.audit_canaries` on its scores).

The data are n examples (x_i, y_i) with labels in {0, 1} and the canary, example n + 1, which is in a run's dataset
(``present=True``) or zeroed out (its clipped gradient replaced by 0: the zero-out relation, so that samplers whose
batches depend on the dataset's size draw from n + 1 examples either way). The model has d + 1 parameters: the
examples' features padded with a 0, so that coordinate d + 1 is a direction no example uses. Each of the config's
steps:

    w = the sampler's weights of the n + 1 examples (:mod:`.samplers`)
    g_i = clip_C((sigmoid(<x_i, theta>) - y_i) x_i),        computed as (w_i c_i r_i) @ X, never as (runs, n, d)
    g_canary = C e_{d+1} (``canary="gradient"``: white-box) or clip_C of its own loss gradient (``"input"``)
    s = sum_i w_i g_i + w_canary g_canary + N(0, (noise_scale z C)^2 I)
    theta <- theta - lr s / (expected batch size)

``noise_scale`` is 1 for the loop the config describes; another value plants a bug (0.5: half the noise the
accountant assumes). Scores (higher: more likely present), per run:

- ``observe="steps"`` (white-box, every noisy step released): the canary direction's coordinate of the steps'
  noisy sums, summed over the steps (``statistic="sum"``) or its largest (``"max"``, the statistic of the shuffle
  lower bound: a shuffled canary is in one batch);
- ``observe="final"``: the final model only: -theta_{d+1} for the gradient canary (each step it is in moves
  theta_{d+1} down by lr C / b), the canary's negative loss for the input canary.

The draws per step: the sampler's, then the noise (runs, d + 1): a run is reproducible from its seed, and the two
sides of an audit run on independent seeds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.core.dpsgd import ZERO_OUT, BallsAndBins, DPSGDConfig, PoissonBatches
from dpaudit.core.validation import choice, positive

from .samplers import drawer

CANARIES = ("gradient", "input")
OBSERVED = ("steps", "final")
STATISTICS = ("sum", "max")


class CanaryTraining:
    """DP-SGD on logistic regression over ``features`` (n, d) and ``labels`` (n,) as ``config`` runs it (its sampler
    on n + 1 examples, its noise multiplier and steps), with a canary (module docstring)."""

    owner = "CanaryTraining"

    def __init__(self, features: Any, labels: Any, config: DPSGDConfig, clip: float = 1.0, lr: float = 0.5,
                 canary: str = "gradient", canary_input: Any = None, noise_scale: float = 1.0):
        x = np.asarray(features, dtype=float)
        y = np.asarray(labels, dtype=float)
        if x.ndim != 2 or y.shape != (x.shape[0],) or not np.isfinite(x).all() or not np.isin(y, (0.0, 1.0)).all():
            raise ValueError(f"{self.owner}: features must be finite (n, d) and labels (n,) in {{0, 1}}, got shapes "
                             f"{x.shape} and {y.shape}")
        if not isinstance(config, DPSGDConfig):
            raise TypeError(f"{self.owner}: config must be a dpaudit.DPSGDConfig, got {config!r}")
        self.n, self.d = x.shape
        drawer(config.sampler, self.n + 1, 1)  # the sampler's size, if it has one, must count the canary
        self.X, self.y = x, y
        self.norms = np.linalg.norm(x, axis=1)
        self.config = config
        self.clip = positive(self.owner, "clip", clip)
        self.lr = positive(self.owner, "lr", lr)
        self.canary = choice(self.owner, "canary", canary, CANARIES)
        self.noise_scale = positive(self.owner, "noise_scale", noise_scale)
        if self.canary == "input":
            point = np.asarray(canary_input, dtype=float) if canary_input is not None else None
            if point is None or point.shape != (self.d + 1,) or not np.isfinite(point).all() or point[-1] not in (0, 1):
                raise ValueError(f"{self.owner}: an input canary needs canary_input = (x (d = {self.d}), label in "
                                 f"{{0, 1}}), got {canary_input!r}")
            self.canary_x, self.canary_y = point[:-1], float(point[-1])
        self.batch = self._expected_batch()

    def _expected_batch(self) -> float:
        sampler, size = self.config.sampler, self.n + 1
        if isinstance(sampler, PoissonBatches):
            return sampler.rate * size
        if isinstance(sampler, BallsAndBins):
            return size / sampler.batches
        return float(sampler.batch)

    def dpsgd_config(self) -> DPSGDConfig:
        """The run as its accountant sees it, about the zero-out relation the canary's absence is (with the noise the
        loop adds: ``noise_scale`` times the config's multiplier)."""
        c = self.config
        return DPSGDConfig(c.sampler, c.noise_multiplier * self.noise_scale, steps=c.steps, relation=ZERO_OUT,
                           label=c.label)

    def scores(self, runs: int, present: bool, rng: np.random.Generator, observe: str = "steps",
               statistic: str = "sum") -> np.ndarray:
        """Each of ``runs`` runs' score (module docstring), the canary in (``present``) or zeroed out."""
        choice(self.owner, "observe", observe, OBSERVED)
        choice(self.owner, "statistic", statistic, STATISTICS)
        if observe == "steps" and self.canary != "gradient":
            raise ValueError(f"{self.owner}: every step observed is scored on the gradient canary's direction; an "
                             "input canary is scored on the final model (observe='final')")
        runs = int(runs)
        if runs < 1:
            raise ValueError(f"{self.owner}: runs must be >= 1, got {runs}")
        config, d = self.config, self.d
        theta = np.zeros((runs, d + 1))
        sigma = self.noise_scale * config.noise_multiplier * self.clip
        batches = drawer(config.sampler, self.n + 1, runs)
        per_epoch = config.sampler.steps_per_epoch
        score = np.zeros(runs) if statistic == "sum" else np.full(runs, -np.inf)
        for step in range(config.steps):
            if step % per_epoch == 0:
                batches.start_epoch(step // per_epoch, rng)
            w = batches.weights(step % per_epoch, rng)
            z = theta[:, :d] @ self.X.T
            residual = 1.0 / (1.0 + np.exp(-z)) - self.y
            scale = np.minimum(1.0, self.clip / np.maximum(np.abs(residual) * self.norms, 1e-300))
            total = np.zeros((runs, d + 1))
            total[:, :d] = (w[:, :self.n] * residual * scale) @ self.X
            if present:
                total += w[:, self.n:] * self._canary_gradient(theta)
            total += rng.normal(0.0, sigma, (runs, d + 1))
            if observe == "steps":
                score = score + total[:, d] if statistic == "sum" else np.maximum(score, total[:, d])
            theta -= self.lr * total / self.batch
        if observe == "steps":
            return score
        if self.canary == "gradient":
            return -theta[:, d]
        z = theta[:, :d] @ self.canary_x
        return -np.logaddexp(0.0, z) + self.canary_y * z  # the canary's log-likelihood: minus its loss

    def _canary_gradient(self, theta: np.ndarray) -> np.ndarray:
        """The canary's clipped gradient in every run, (runs, d + 1)."""
        out = np.zeros_like(theta)
        if self.canary == "gradient":
            out[:, self.d] = self.clip
            return out
        z = theta[:, :self.d] @ self.canary_x
        residual = 1.0 / (1.0 + np.exp(-z)) - self.canary_y
        norm = np.abs(residual) * np.linalg.norm(self.canary_x)
        out[:, :self.d] = (residual * np.minimum(1.0, self.clip / np.maximum(norm, 1e-300)))[:, None] * self.canary_x
        return out


__all__ = ["CANARIES", "OBSERVED", "STATISTICS", "CanaryTraining"]
