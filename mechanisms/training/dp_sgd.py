"""DP-SGD (Abadi et al. 2016) as shuffle-glm's experiments use it (Remark A.1: "the optimizer is DP-SGD, with
Renyi-DP accounting"), vectorised over runs: the optimizer of Private-GLM, the experimental form of Algorithm 2.

One call minimises the average loss of n points. Each step takes a batch, clips every per-point gradient
to l2 norm ``clip``, sums the clipped gradients and adds N(0, (z clip)^2 I) (z the noise multiplier), divides
by the expected batch size, adds the regulariser's gradient and steps with learning rate lr0 / sqrt(step).
The output is the average of the iterates at the ends of the epochs after the burn-in (post-processing).

    steps = epochs * ceil(n / batch),   q = batch / n (the sampling probability; 1 when n <= batch)
    z = the smallest noise multiplier whose RDP accounting of `steps` compositions of the (Poisson
        subsampled, when q < 1) Gaussian mechanism gives (eps, delta)

Any batch sampler of the family runs with ``sampler=`` (:mod:`.samplers`; the step's sum is then divided by the
sampler's nominal batch), and :meth:`DPSGD.dpsgd_config` describes the call for certified accounting
(:func:`dpaudit.audit_dpsgd`).

The release is one step's noisy gradient sum given the batch's clipped gradients (:meth:`DPSGD.sample`, the
exact law :meth:`DPSGD.distribution`: independent coordinates, N(sum_k, (z clip)^2)); :meth:`DPSGD.run` is
the optimizer built on it, for ``runs`` independent runs with their own data.

Settings of the public code the paper cites (the spec's 5.5): per-sample clip 0.2, batch 2048 (the whole set
when n is smaller), lr0 = 10, 50 epochs, regulariser 1e-5 (the loss is sum-free: mean clipped gradient plus
2 * 1e-5 * theta, the gradient of 1e-5 ||theta||^2), averaging of the epoch-end iterates after 10 burn-in
epochs, no projection.

Choices where the code differs from its accounting, and what is done here:
  - the code draws batches by shuffling (fixed-size batches), and accounts for them with the RDP of an
    unsubsampled Gaussian scaled by q^2 (an approximation, not an RDP bound); here batches are Poisson
    subsampled (each point in with probability q), which is what the subsampled-Gaussian RDP accounting of
    ``dp_accounting`` (``PoissonSampledDpEvent`` of a ``GaussianDpEvent``) bounds; the sum is divided by the
    expected batch size q n. With q = 1 (n <= batch, the full batch) the two coincide and no amplification
    is claimed. ``batches="shuffled"`` runs the code's batches instead (the released-code Private-GLM uses it):
    each epoch a fresh permutation per run, cut into ceil(n / batch) consecutive batches, the last one of
    m = n - (ceil(n / batch) - 1) batch points; each batch's clipped gradients are averaged over its own size and
    the noise N(0, (z clip / batch)^2 I) is added to that mean, as the code does. A last batch of m < batch points
    thus weighs each of its points batch / m times a full batch's point (at n = 2049 one point is a whole step),
    a sensitivity the code's accounting does not pay for. Here that is the release's noisy sum of the batch's
    clipped gradients scaled by batch / m, divided by batch;
  - the code's adaptation when the noise is large is not done by default (50 epochs, learning rate 10 and
    burn-in 10 always): both commits have one. At ab8fd160, when sigma clip / batch > 0.3, the epochs are cut by
    factors 0.8-0.95 towards 15, the burn-in with them, and the learning rate falls from 10 to 1.0; d9c93e11
    picks the epochs from the per-call epsilon and keeps the learning rate. :func:`released_code_schedule` is
    ab8fd160's rule, the schedule a Private-GLM run takes under the released code's constants;
  - RDP orders: the integers 2..32 and 40, 48, 56, 64, 80, 96, 128 (integer orders have the accountant's exact formula
    for the subsampled Gaussian; the best order is about 1 + log(1/delta)/eps, below 64 at the per-call
    budgets used); the multiplier is found by regula falsi (Illinois) on log z against log eps, to a
    relative 1e-4, and rounded up (the
    composed epsilon is never above the target), starting from the unsubsampled multiplier (subsampling
    only lowers it).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.dpsgd import (
    ADD_REMOVE,
    ZERO_OUT,
    BallsAndBins,
    BatchSampler,
    DPSGDConfig,
    PoissonBatches,
    ShuffledBatches,
)
from dpaudit.core.validation import integer, positive, probability, sample_size

from ..base import ExactRelease
from ..noise import Gaussian
from .samplers import drawer

RDP_ORDERS = (*range(2, 33), 40, 48, 56, 64, 80, 96, 128)


def _accountant():
    try:
        from dp_accounting import dp_event
        from dp_accounting.rdp import rdp_privacy_accountant
    except ImportError as err:  # pragma: no cover - a dependency of dpaudit
        raise ImportError("DP-SGD's noise calibration needs the dp-accounting package, a dependency of dpaudit "
                          "(pip install 'dp-accounting>=0.4')") from err
    return dp_event, rdp_privacy_accountant


def rdp_epsilon(noise_multiplier: float, steps: int, q: float, delta: float) -> float:
    """epsilon at ``delta`` of ``steps`` compositions of the Gaussian mechanism with noise multiplier z,
    Poisson subsampled with probability q (q = 1: no subsampling), by RDP accounting."""
    dp_event, rdp = _accountant()
    event = dp_event.GaussianDpEvent(noise_multiplier)
    if q < 1:
        event = dp_event.PoissonSampledDpEvent(q, event)
    accountant = rdp.RdpAccountant(list(RDP_ORDERS))
    accountant.compose(event, steps)
    return float(accountant.get_epsilon(delta))


@functools.lru_cache(maxsize=256)
def noise_multiplier(epsilon: float, delta: float, steps: int, q: float) -> float:
    """The smallest noise multiplier z (to a relative 1e-4, rounded up) with rdp_epsilon(z) <= epsilon."""
    owner = "noise_multiplier"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = probability(owner, "delta", delta)
    steps = integer(owner, "steps", steps, 1)
    q = probability(owner, "q", q, open_high=False)
    if q < 1:  # the unsubsampled multiplier bounds it above; bracket below it
        high = noise_multiplier(epsilon, delta, steps, 1.0)
        low = high / 64
        while low > 1e-2 and rdp_epsilon(low, steps, q, delta) <= epsilon:
            low, high = low / 64, low
        return _bisect(epsilon, delta, steps, q, max(low, 1e-2), high)
    low, high = 1e-2, 1.0
    while rdp_epsilon(high, steps, q, delta) > epsilon:
        low, high = high, high * 4
        if high > 1e9:
            raise ValueError(f"{owner}: no noise multiplier below 1e9 reaches eps={epsilon!r} at delta={delta!r}")
    return _bisect(epsilon, delta, steps, q, low, high)


def _bisect(epsilon: float, delta: float, steps: int, q: float, low: float, high: float) -> float:
    """The smallest z in [low, high] with rdp_epsilon(z) <= epsilon, to a relative 1e-4, rounded up (high
    meets the target): Illinois regula falsi on f(log z) = log rdp_epsilon(z) - log epsilon, decreasing."""

    def f(z: float) -> float:
        # the accountant reports 0 for noise so large that every order's bound is negative
        return math.log(max(rdp_epsilon(z, steps, q, delta), 1e-300)) - math.log(epsilon)

    f_low, f_high = f(low), f(high)
    if f_low <= 0:
        return low
    a, b, fa, fb, side = math.log(low), math.log(high), f_low, f_high, 0
    while b - a > 1e-4:
        c = (a * fb - b * fa) / (fb - fa)
        c = min(max(c, a + 1e-6 * (b - a)), b - 1e-6 * (b - a))
        if b - a > 1e-3 and side and abs(side) > 2:  # the false position stalls on one side: bisect once
            c, side = (a + b) / 2, 0
        fc = f(math.exp(c))
        if fc > 0:
            a, fa = c, fc
            fb, side = (fb / 2, side - 1) if side < 0 else (fb, -1)
        else:
            b, fb = c, fc
            fa, side = (fa / 2, side + 1) if side > 0 else (fa, 1)
    return math.exp(b)


ACCOUNTANTS = ("dp-accounting", "released-code")
#: the noise multipliers the cited code's root finder searches (ab8fd160, compute_noise_multiplier's sigma_bounds)
RELEASED_CODE_BOUNDS = (1e-5, 4e7)


@functools.lru_cache(maxsize=256)
def released_code_noise_multiplier(epsilon: float, delta: float, steps: int, q: float) -> float:
    """The noise multiplier of the code the paper cites (commit ab8fd160, ``compute_noise_multiplier``): with its
    orders A (the integers 2..63 when eps >= 0.3; else 2, 6, ..., 62 and 70, 76, ..., 508) its epsilon is
    eps(z) = min over a in A of steps a q^2 / (2 z^2) + log(1/delta) / (a - 1), and z solves eps(z) = eps:
    z^2 = min over the a with log(1/delta) / (a - 1) < eps of steps a q^2 / (2 (eps - log(1/delta) / (a - 1))),
    the closed form of the code's root finder (brentq to 1e-6). For q = 1 that is the Gaussian mechanism's RDP
    with the classical conversion to (eps, delta), looser than dp-accounting's (so z is larger: 1.3-1.6x at
    Private-GLM's per-call budgets); for q < 1 the q^2 scaling is not an RDP bound of the subsampled Gaussian.
    A multiplier outside the code's search interval [1e-5, 4e7], where the code falls back to fewer epochs,
    raises ValueError."""
    owner = "released_code_noise_multiplier"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = probability(owner, "delta", delta)
    steps = integer(owner, "steps", steps, 1)
    q = probability(owner, "q", q, open_high=False)
    orders = (np.arange(2.0, 64.0) if epsilon >= 0.3
              else np.concatenate([np.arange(2.0, 64.0, 4.0), np.arange(70.0, 512.0, 6.0)]))
    room = epsilon - math.log(1 / delta) / (orders - 1)
    if not (room > 0).any():
        raise ValueError(f"{owner}: no order of the code's reaches eps={epsilon!r} at delta={delta!r}")
    z = float(np.sqrt(np.min(steps * orders[room > 0] * q**2 / (2 * room[room > 0]))))
    if not RELEASED_CODE_BOUNDS[0] <= z <= RELEASED_CODE_BOUNDS[1]:
        raise ValueError(f"{owner}: the multiplier {z:.6g} is outside the code's search interval "
                         f"{RELEASED_CODE_BOUNDS}, where it falls back to fewer epochs (not reproduced)")
    return z


def multiplier(accountant: str, epsilon: float, delta: float, steps: int, q: float) -> float:
    """The noise multiplier by ``accountant``: "dp-accounting" (:func:`noise_multiplier`) or "released-code"
    (:func:`released_code_noise_multiplier`)."""
    if accountant == "released-code":
        return released_code_noise_multiplier(epsilon, delta, steps, q)
    if accountant == "dp-accounting":
        return noise_multiplier(epsilon, delta, steps, q)
    raise ValueError(f"accountant must be one of {ACCOUNTANTS}, got {accountant!r}")


#: ab8fd160's adaptation (glmbanditexp/utils/utils.py, adapt_training_parameters_for_noise): noise scales
#: sigma clip / batch above START are adapted, towards TARGET, never below MIN_EPOCHS epochs or 20 batches in all
ADAPT_START, ADAPT_TARGET, ADAPT_MIN_EPOCHS, ADAPT_MIN_BATCHES, ADAPT_ROUNDS = 0.3, 0.2, 15, 20, 10


def released_code_schedule(epsilon: float, delta: float, n: int, clip: float = 0.2, batch: int = 2048,
                           epochs: int = 50, burn_in: int = 10, lr0: float = 10.0,
                           accountant: str = "dp-accounting") -> tuple[int, int, float]:
    """(epochs, burn-in, lr0) of one optimizer call as the code the paper cites (commit ab8fd160) sets them: with
    the noise scale s(e) = z(e) clip / batch, z(e) the noise multiplier for e epochs by ``accountant``
    (:func:`multiplier`), nothing changes while s(epochs) <= 0.3; otherwise, for at
    most 10 rounds and while s > 0.2, epochs >= 15 and the call has at least 20 batches in all, the epochs and
    the burn-in are cut by the factor 0.8 (s > 2), 0.85 (s > 1), 0.9 (s > 0.5) or 0.95 (floors: 15 epochs, 1
    burn-in epoch), and at each cut a learning rate above 2 becomes min(1, 0.8 lr0) and one below 1 grows by
    10% (at most 1.5). The code's fallback when its accountant cannot reach the target at all (fewer epochs
    tried, 0.8 to 0.2 of them) is not reproduced."""
    owner = "released_code_schedule"
    n, batch = integer(owner, "n", n, 1), min(integer(owner, "batch", batch, 1), integer(owner, "n", n, 1))
    epochs, burn_in = integer(owner, "epochs", epochs, 1), integer(owner, "burn_in", burn_in, 0)
    per_epoch, q = math.ceil(n / batch), batch / n

    def scale(e: int) -> float:
        return multiplier(accountant, epsilon, delta, e * per_epoch, q) * clip / batch

    if scale(epochs) <= ADAPT_START:
        return epochs, burn_in, lr0
    for _ in range(ADAPT_ROUNDS):
        current = scale(epochs)
        if current <= ADAPT_TARGET or epochs <= ADAPT_MIN_EPOCHS or epochs * per_epoch < ADAPT_MIN_BATCHES:
            break
        factor = 0.8 if current > 2 else 0.85 if current > 1 else 0.9 if current > 0.5 else 0.95
        cut = max(ADAPT_MIN_EPOCHS, int(epochs * factor))
        if cut >= epochs:
            break
        epochs, burn_in = cut, max(1, int(burn_in * factor))
        if lr0 > 2.0:
            lr0 = min(1.0, lr0 * 0.8)
        elif lr0 < 1.0:
            lr0 = min(lr0 * 1.1, 1.5)
    return epochs, burn_in, lr0


#: how a step's batch is drawn when n > batch: Poisson sampling (what the accounting bounds) or the released
#: code's shuffled fixed-size batches (module docstring)
BATCHES = ("poisson", "shuffled")


class DPSGD(ExactRelease):
    """DP-SGD for ``n`` points in R^``d`` at budget (eps, delta) (module docstring). Data of :meth:`sample` /
    :meth:`distribution`: one step's clipped per-point gradients, shape (m, d) (each of norm <= ``clip``)."""

    paper = "shuffle-glm"
    source = "Remark A.1: the experiments' optimizer, DP-SGD with Renyi-DP accounting (the cited code's settings)"

    def __init__(self, epsilon: float, delta: float, n: int, d: int, clip: float = 0.2, batch: int = 2048,
                 epochs: int = 50, lr0: float = 10.0, regulariser: float = 1e-5, burn_in: int = 10,
                 accountant: str = "dp-accounting", batches: str = "poisson", sampler: BatchSampler | None = None):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.delta = probability(self.owner, "delta", delta)
        self.n = integer(self.owner, "n", n, 1)
        self.d = integer(self.owner, "d", d, 1)
        self.clip = positive(self.owner, "clip", clip)
        self.batch = min(integer(self.owner, "batch", batch, 1), self.n)
        self.epochs = integer(self.owner, "epochs", epochs, 1)
        self.burn_in = integer(self.owner, "burn_in", burn_in, 0)
        if not self.burn_in < self.epochs:
            raise ValueError(f"{self.owner}: burn_in must be < epochs = {self.epochs}, got {burn_in!r}")
        self.lr0 = positive(self.owner, "lr0", lr0)
        self.regulariser = float(regulariser)
        self.accountant = accountant
        if batches not in BATCHES:
            raise ValueError(f"{self.owner}: batches must be one of {BATCHES}, got {batches!r}")
        self.batches = batches
        self.sampler = self._sampler(sampler)
        # Poisson "epochs" are ceil(n / batch) steps each, as the code counts them
        self.batches_per_epoch = (math.ceil(self.n / self.batch) if isinstance(self.sampler, PoissonBatches)
                                  else self.sampler.steps_per_epoch)
        self.steps = self.epochs * self.batches_per_epoch
        self.q = self.batch / self.n
        self.noise_multiplier = multiplier(accountant, self.epsilon, self.delta, self.steps, self.q)
        self.sigma = self.noise_multiplier * self.clip  # noise std of one step's gradient sum, per coordinate
        self.name = (f"DPSGD(eps={self.epsilon:.6g}, delta={self.delta:.6g}, n={self.n}, d={self.d}, "
                     f"clip={self.clip:g}, batch={self.batch}, q={self.q:.4g}, steps={self.steps}; "
                     f"z={self.noise_multiplier:.6g}" + ("" if accountant == "dp-accounting" else
                                                         ", the released code's accountant")
                     + ("" if batches == "poisson" or sampler is not None else ", the released code's shuffled batches")
                     + ("" if sampler is None else f", {sampler.describe()}") + ")")

    def __repr__(self) -> str:
        return self.name

    def _sampler(self, sampler: BatchSampler | None) -> BatchSampler:
        """The batch sampler run: ``sampler`` if given (its nominal batch becomes the optimizer's), else the one
        ``batches`` names: Poisson at rate batch / n, or the released code's shuffled batches (a fresh order each
        epoch, the last partial batch averaged over its own size); one full batch when n <= batch."""
        if sampler is not None:
            if not isinstance(sampler, BatchSampler):
                raise TypeError(f"{self.owner}: sampler must be a dpaudit batch sampler, got {sampler!r}")
            drawer(sampler, self.n, 1)  # checks the sampler's size against n
            nominal = (sampler.rate * self.n if isinstance(sampler, PoissonBatches)
                       else self.n / sampler.batches if isinstance(sampler, BallsAndBins) else sampler.batch)
            self.batch = max(1, round(nominal))
            return sampler
        if self.batch >= self.n or self.batches == "poisson":
            return PoissonBatches(self.batch / self.n)
        return ShuffledBatches(self.batch, self.n, reshuffle=True, partial="own")

    def dpsgd_config(self, relation: str | None = None) -> DPSGDConfig:
        """This call as its accountant sees it (:class:`~dpaudit.core.dpsgd.DPSGDConfig`): the sampler it draws
        from, its noise multiplier, its steps (or epochs), about ``relation`` (default: add-remove, or zero-out for
        a sampler whose batches depend on the dataset's size)."""
        if relation is None:
            relation = ADD_REMOVE if ADD_REMOVE in self.sampler.relations else ZERO_OUT
        if self.sampler.per_epoch:
            return DPSGDConfig(self.sampler, self.noise_multiplier, epochs=self.epochs, relation=relation,
                               label=self.name)
        return DPSGDConfig(self.sampler, self.noise_multiplier, steps=self.steps, relation=relation, label=self.name)

    @property
    def subsampled(self) -> bool:
        """Whether the accounting uses Poisson-subsampling amplification (q < 1)."""
        return self.q < 1

    # -- the release: one step's noisy gradient sum ------------------------------------------------

    def _input(self, data: Any) -> np.ndarray:
        g = np.asarray(data, dtype=float)
        if g.ndim != 2 or g.shape[1] != self.d or not np.isfinite(g).all():
            raise ValueError(f"{self.owner}: data must be clipped gradients of shape (m, {self.d}), got {g.shape}")
        if (np.linalg.norm(g, axis=1) > self.clip * (1 + 1e-9)).any():
            raise ValueError(f"{self.owner}: every clipped gradient needs norm <= clip = {self.clip:g}")
        return g

    def _sample(self, clipped: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.noisy_sums(np.broadcast_to(clipped, (size, *clipped.shape)), rng)

    def _distribution(self, clipped: np.ndarray) -> ProductDistribution:
        return ProductDistribution(tuple(Gaussian(self.sigma, loc=float(s)) for s in clipped.sum(axis=0)))

    def noisy_sums(self, clipped: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Each run's noisy gradient sum: clipped (runs, m, d) (rows of points left out of a run's batch are
        zero) -> sum over m plus N(0, sigma^2 I), shape (runs, d). The entry point :meth:`run` uses."""
        return clipped.sum(axis=1) + rng.normal(0.0, self.sigma, (clipped.shape[0], self.d))

    def clip_gradients(self, gradients: np.ndarray) -> np.ndarray:
        """Per-point clipping to l2 norm ``clip`` (last axis)."""
        norms = np.linalg.norm(gradients, axis=-1, keepdims=True)
        return gradients * np.minimum(1.0, self.clip / np.maximum(norms, 1e-300))

    # -- the optimizer -----------------------------------------------------------------------------

    def run(self, gradient: Callable[[np.ndarray, Any], np.ndarray], data: Any, theta_init: np.ndarray,
            rng: np.random.Generator, project: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
        """DP-SGD from ``theta_init`` (runs, d) for every run at once. ``gradient(theta (runs, d), data)``
        returns the per-point loss gradients (runs, n, d) (without the regulariser); ``project`` (optional)
        maps every iterate back into a domain (post-processing of the noisy steps: the privacy is the same).
        Returns the average of the epoch-end iterates after the burn-in, shape (runs, d)."""
        theta = np.array(theta_init, dtype=float)
        runs = sample_size(self.owner, theta.shape[0])
        if theta.shape != (runs, self.d):
            raise ValueError(f"{self.owner}: theta_init must have shape (runs, {self.d}), got {theta.shape}")
        expected_batch = self.q * self.n
        batches = drawer(self.sampler, self.n, runs)
        total, kept, step = np.zeros_like(theta), 0, 0
        for epoch in range(self.epochs):
            batches.start_epoch(epoch, rng)
            for j in range(self.batches_per_epoch):
                step += 1
                grads = np.asarray(gradient(theta, data), dtype=float)
                if grads.shape != (runs, self.n, self.d):
                    raise ValueError(f"{self.owner}: gradient must return shape {(runs, self.n, self.d)}, "
                                     f"got {grads.shape}")
                clipped = self.clip_gradients(grads) * batches.weights(j, rng)[..., None]
                noisy = self.noisy_sums(clipped, rng) / expected_batch
                theta = theta - self.lr0 / math.sqrt(step) * (noisy + 2 * self.regulariser * theta)
                if project is not None:
                    theta = project(theta)
            if epoch >= self.burn_in:
                total += theta
                kept += 1
        return total / kept

    def composed_epsilon(self) -> float:
        """dp-accounting's epsilon at delta for this call's steps, q and multiplier (<= eps by construction under
        the default accountant; under the released code's, whatever its multiplier gives)."""
        return rdp_epsilon(self.noise_multiplier, self.steps, self.q, self.delta)


__all__ = ["ACCOUNTANTS", "BATCHES", "DPSGD", "RDP_ORDERS", "multiplier", "noise_multiplier", "rdp_epsilon",
           "released_code_noise_multiplier", "released_code_schedule"]
