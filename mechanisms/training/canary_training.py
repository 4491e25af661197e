"""DP-SGD on logistic regression with a canary, vectorised over runs: the training loop a canary audit audits
(:func:`dpaudit.audit_canaries` on its scores).

The data are n examples (x_i, y_i) with labels in {0, 1} and k canaries, examples n + 1 .. n + k, each in a run's
dataset (``present``) or zeroed out (its clipped gradient replaced by 0: the zero-out relation, so that samplers whose
batches depend on the dataset's size draw from n + k examples either way). The model has d + k parameters: the
examples' features padded with zeros, so that coordinate d + j is a direction no example and no other canary uses
(gradient canaries; an input canary is one, k = 1). Each of the config's steps:

    w = the sampler's weights of the n + 1 examples (:mod:`.samplers`)
    g_i = clip_C((sigmoid(<x_i, theta>) - y_i) x_i),        computed as (w_i c_i r_i) @ X, never as (runs, n, d)
    g_canary j = C e_{d+j} (``canary="gradient"``: white-box) or clip_C of its own loss gradient (``"input"``)
    s = sum_i w_i g_i + sum_j w_canary_j present_j g_canary_j + N(0, (noise_scale z C)^2 I)
    theta <- theta - lr s / (expected batch size)

``noise_scale`` is 1 for the loop the config describes; another value plants a bug (0.5: half the noise the
accountant assumes). ``background="opposite"`` replaces every example's clipped gradient by -C along the (one)
gradient canary's direction: the adversary's dataset of Chua et al.'s shuffling lower bound (and Nasr et al.'s
strongest white-box adversary), under which a present canary's step stands 2C above the others and a zeroed one's C.
Scores (higher: more likely present), per run:

- ``observe="steps"`` (white-box, every noisy step released): each canary direction's coordinate of the steps'
  noisy sums, summed over the steps (``statistic="sum"``), its largest (``"max"``, the statistic of the shuffle
  lower bound: a shuffled canary is in one batch), or every step's (``"all"``: shape (runs, steps) for one canary,
  (runs, k, steps) for k, for a score of one's own, e.g. a likelihood ratio);
- ``observe="final"``: the final model only: -theta_{d+j} for gradient canary j (each step it is in moves
  theta_{d+j} down by lr C / b), the canary's negative loss for the input canary.

Many gradient canaries in one run are the one-run audit's design (:func:`dpaudit.audit_canaries` with
``runs="one"``): each included independently with probability 1/2 (``present`` drawn so), their scores one per
canary.

The draws per step: the sampler's, then the noise (runs, d + 1): a run is reproducible from its seed, and the two
sides of an audit run on independent seeds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.core.dpsgd import ZERO_OUT, BallsAndBins, DPSGDConfig, PoissonBatches
from dpaudit.core.validation import choice, integer, positive

from .samplers import drawer

CANARIES = ("gradient", "input")
OBSERVED = ("steps", "final")
STATISTICS = ("sum", "max", "all")
BACKGROUNDS = ("data", "opposite")


class CanaryTraining:
    """DP-SGD on logistic regression over ``features`` (n, d) and ``labels`` (n,) as ``config`` runs it (its sampler
    on n + 1 examples, its noise multiplier and steps), with a canary (module docstring)."""

    owner = "CanaryTraining"

    def __init__(self, features: Any, labels: Any, config: DPSGDConfig, clip: float = 1.0, lr: float = 0.5,
                 canary: str = "gradient", canary_input: Any = None, noise_scale: float = 1.0, canaries: int = 1,
                 background: str = "data"):
        x = np.asarray(features, dtype=float)
        y = np.asarray(labels, dtype=float)
        if x.ndim != 2 or y.shape != (x.shape[0],) or not np.isfinite(x).all() or not np.isin(y, (0.0, 1.0)).all():
            raise ValueError(f"{self.owner}: features must be finite (n, d) and labels (n,) in {{0, 1}}, got shapes "
                             f"{x.shape} and {y.shape}")
        if not isinstance(config, DPSGDConfig):
            raise TypeError(f"{self.owner}: config must be a dpaudit.DPSGDConfig, got {config!r}")
        self.n, self.d = x.shape
        self.canary = choice(self.owner, "canary", canary, CANARIES)
        self.k = integer(self.owner, "canaries", canaries, 1)
        if self.canary == "input" and self.k != 1:
            raise ValueError(f"{self.owner}: an input canary is one canary (canaries=1), got canaries={canaries!r}")
        self.background = choice(self.owner, "background", background, BACKGROUNDS)
        if self.background == "opposite" and (self.canary != "gradient" or self.k != 1):
            raise ValueError(f"{self.owner}: the opposite background is along one gradient canary's direction "
                             f"(canary='gradient', canaries=1), got canary={canary!r}, canaries={canaries!r}")
        drawer(config.sampler, self.n + self.k, 1)  # the sampler's size, if it has one, must count the canaries
        self.X, self.y = x, y
        self.norms = np.linalg.norm(x, axis=1)
        self.config = config
        self.clip = positive(self.owner, "clip", clip)
        self.lr = positive(self.owner, "lr", lr)
        self.noise_scale = positive(self.owner, "noise_scale", noise_scale)
        if self.canary == "input":
            point = np.asarray(canary_input, dtype=float) if canary_input is not None else None
            if point is None or point.shape != (self.d + 1,) or not np.isfinite(point).all() or point[-1] not in (0, 1):
                raise ValueError(f"{self.owner}: an input canary needs canary_input = (x (d = {self.d}), label in "
                                 f"{{0, 1}}), got {canary_input!r}")
            self.canary_x, self.canary_y = point[:-1], float(point[-1])
        self.batch = self._expected_batch()

    def _expected_batch(self) -> float:
        sampler, size = self.config.sampler, self.n + self.k
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

    def scores(self, runs: int, present: Any, rng: np.random.Generator, observe: str = "steps",
               statistic: str = "sum") -> np.ndarray:
        """Each of ``runs`` runs' scores (module docstring): ``present`` True or False for every canary of every run,
        or (runs, k) booleans; shape (runs,) for one canary given a bool, else (runs, k)."""
        choice(self.owner, "observe", observe, OBSERVED)
        choice(self.owner, "statistic", statistic, STATISTICS)
        if statistic == "all" and observe != "steps":
            raise ValueError(f"{self.owner}: statistic='all' returns every observed step: it needs observe='steps'")
        if observe == "steps" and self.canary != "gradient":
            raise ValueError(f"{self.owner}: every step observed is scored on the gradient canary's direction; an "
                             "input canary is scored on the final model (observe='final')")
        runs = int(runs)
        if runs < 1:
            raise ValueError(f"{self.owner}: runs must be >= 1, got {runs}")
        single = isinstance(present, (bool, np.bool_))
        inside = np.broadcast_to(np.asarray(present, dtype=bool), (runs, self.k)) if single else np.asarray(present)
        if inside.shape != (runs, self.k) or inside.dtype != bool:
            raise ValueError(f"{self.owner}: present must be a bool or ({runs}, {self.k}) booleans, got "
                             f"{np.shape(present)}")
        config, d, n, k = self.config, self.d, self.n, self.k
        theta = np.zeros((runs, d + k))
        sigma = self.noise_scale * config.noise_multiplier * self.clip
        batches = drawer(config.sampler, n + k, runs)
        per_epoch = config.sampler.steps_per_epoch
        score = np.zeros((runs, k)) if statistic == "sum" else np.full((runs, k), -np.inf)
        steps = np.empty((config.steps, runs, k)) if statistic == "all" and observe == "steps" else None
        for step in range(config.steps):
            if step % per_epoch == 0:
                batches.start_epoch(step // per_epoch, rng)
            w = batches.weights(step % per_epoch, rng)
            total = np.zeros((runs, d + k))
            if self.background == "opposite":  # every example's clipped gradient -C along the canary's direction
                total[:, d] = -self.clip * w[:, :n].sum(axis=1)
            else:
                z = theta[:, :d] @ self.X.T
                residual = 1.0 / (1.0 + np.exp(-z)) - self.y
                scale = np.minimum(1.0, self.clip / np.maximum(np.abs(residual) * self.norms, 1e-300))
                total[:, :d] = (w[:, :n] * residual * scale) @ self.X
            total += self._canary_gradients(theta, w[:, n:] * inside)
            total += rng.normal(0.0, sigma, (runs, d + k))
            if steps is not None:
                steps[step] = total[:, d:]
            elif observe == "steps":
                score = score + total[:, d:] if statistic == "sum" else np.maximum(score, total[:, d:])
            theta -= self.lr * total / self.batch
        if steps is not None:
            score = np.moveaxis(steps, 0, -1)  # (runs, k, steps)
            return score[:, 0] if k == 1 else score
        if observe == "final" and self.canary == "gradient":
            score = -theta[:, d:]
        elif observe == "final":
            z = theta[:, :d] @ self.canary_x
            score = (-np.logaddexp(0.0, z) + self.canary_y * z)[:, None]  # the canary's log-likelihood: minus its loss
        return score[:, 0] if single and k == 1 else score

    def _canary_gradients(self, theta: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The canaries' clipped gradients in every run, weighted (``weights`` (runs, k): the batch's weight of a
        present canary, 0 for an absent one), as (runs, d + k)."""
        out = np.zeros_like(theta)
        if self.canary == "gradient":
            out[:, self.d:] = self.clip * weights
            return out
        z = theta[:, :self.d] @ self.canary_x
        residual = 1.0 / (1.0 + np.exp(-z)) - self.canary_y
        norm = np.abs(residual) * np.linalg.norm(self.canary_x)
        factor = residual * np.minimum(1.0, self.clip / np.maximum(norm, 1e-300)) * weights[:, 0]
        out[:, :self.d] = factor[:, None] * self.canary_x
        return out


__all__ = ["BACKGROUNDS", "CANARIES", "OBSERVED", "STATISTICS", "CanaryTraining"]
