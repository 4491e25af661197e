"""A non-private batched ablation of shuffle-glm's Algorithm 1 (the one Remark 4.4 compares: the per-set G-optimal
design against the distributional optimal design), vectorised over runs.

Algorithm 1 with the privacy and the arm scaling taken out, and the design a parameter:

- Batches on a grid fixed in advance, eqs. (6)-(7)'s form with the warm-up's length replaced by alpha:
      M = max(2, ceil(log2 log2 T)),  alpha = T^(1 / (2 (1 - 2^(-M+1)))),
      B_1 = B_2 = alpha,  B_k = alpha sqrt(B_{k-1}),
  rounded up, the last cut so that the lengths add up to T (:func:`ablation_schedule`). Why: (6)'s B_1
  (sqrt(kappa) e^(3S) d^2 gamma^2 alpha / S)^(2/3) is the warm-up the arm scaling (11)-(12) needs, and its
  gamma is the private one; with no scaling, batch 1 is an ordinary batch of the grid B_2, B_3, ... (Gao et
  al.'s / Ruan et al.'s geometric-square-root grid, which (7) is).
- Batch k: the exact (unnoised) W_k = sum_{t in batch k} x_t x_t^T + lam I and the regularised MLE theta_k of the
  batch's own observations (:func:`~.mle.fit_mle`, penalty (lam/2) ||theta||^2), in place of P_2's A_2(...) + lambda
  I and P_GD; theta_k of the last batch is not computed (no decision uses it).
- Round t of batch k >= 2: eliminate, for j = 1..k-1 in turn, the arms with UCB_j(x) < max_y LCB_j(y) (eqs.
  (13)-(14): <x, theta_j> +- gamma sqrt(kappa) ||x||_{W_j^-1}), then play an arm of the survivors drawn from the
  design (the uniforms from the policy's stream; :func:`~.design.sample_design`):
  - ``design="g-optimal"``: pi^G of the round's surviving arms (Algorithm 1's design: Frank-Wolfe to Lemma 4.3's
    computable bound 2d, :func:`~.design.g_optimal_design`; on the spike family, and on any set of orthogonal
    arms, it stops at the uniform design, which is Kiefer-Wolfowitz's exact one, max g = d);
  - ``design="distributional"``: the log-det optimal policy on the family's sets restricted to the batch's
    survivors (:func:`distributional_policy`), looked up for the round's set.
- gamma (non-private, the choice): gamma = sqrt(2 log(2 N M / delta)), N the number of distinct arms of the
  family. The batch's MLE is computed on fresh data, so for a fixed arm x, <x, theta_k - theta*> is
  asymptotically N(0, x^T H_k^-1 x) with the Fisher information H_k >= W_k / kappa for both links (logistic:
  H = sum mu' x x^T; probit's information mu'^2/(mu (1 - mu)) >= mu'); a Gaussian tail and a union bound over
  the N arms and M batches give |<x, theta_k - theta*>| <= gamma sqrt(kappa) ||x||_{W_k^-1} for all of them
  w.p. about 1 - delta. Eq. (9) with its private terms set to zero, 30 R S sqrt(d R log T), is the
  self-normalised bound's (uniform over the ball, hence its sqrt(d), the source of the d^{3/2} and d of Remark
  4.4's leading terms); with it (gamma sqrt(kappa) = 280-360 at d = 2, T = 5000-10^6, S = 1) a batch must have
  n > 1.2 (gamma sqrt(kappa))^2 d rounds before the spike family's X_1 loses an arm (T ~ 10^6 at d = 2) and 100
  times more for its other sets, so the ablation would not leave its exploration at simulable T either. Both
  designs use the same gamma, so the comparison is about the design; with a gamma free of sqrt(d) the remark's
  rates d^{3/2} and d are upper bounds with room (the analysis then gives d and sqrt(d)).
- lam = 1 (W_k's ridge and the MLE's penalty); kappa defaults to 1/mu'(S) (the bound for ||theta*|| <= S);
  delta = 0.02 (the experiments'); T is the simulated horizon unless given (at least 5).

The learner knows the context distribution D: it is given the finite family ``sets`` (n, K, d) and its
``probabilities`` (uniform unless given), and every round's context set must be one of them (ValueError
otherwise), identified by a match to 1e-12. Ruan et al. learn the distributional design from samples of D; here it
is computed on D itself (the choice, which favours the distributional design by the cost of learning D). The
survivors of a set are fixed within a batch (the estimates change only between batches), so the
distributional policy is computed once per batch and run, on the family's sets with each set's surviving arms,
and cached by survivor pattern (on the spike family the patterns are few); likewise pi^G of every set's
survivors is solved once per batch for all runs and sets at once (the G-optimal design needs only the round's
own set, and the round's survivors are its set's), and each round looks its set's design up. When the survivors
of all sets span only a subspace, the log-det policy is computed in that subspace's coordinates (orthonormal basis from
an SVD; the span's dimension r replaces d, and every policy has Q >= r there), since W(pi) is singular on R^d.

:func:`~.batched_ablation_reference.batched_ablation_one_run` is the plain per-run reference (elimination arm by
arm, the G-optimal design by :func:`~.design.g_optimal_design_one_run`, the distributional policy solved anew at
every batch without the cache, the MLE by scipy).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import choice, positive
from dpaudit.mechanisms.glm.glm_links import Link

from .base import GLMPolicy, planned_horizon
from .design import g_optimal_design, sample_design
from .distributional_design import distributional_design
from .mle import fit_mle
from .shuffle_glm import grid_schedule

DESIGNS = ("g-optimal", "distributional")
#: how far a context set may be from the family's (max absolute coordinate difference) to be identified with it
MATCH_TOLERANCE = 1e-12
#: singular values below this share of the largest are dropped from the survivors' span
SPAN_TOLERANCE = 1e-10


def ablation_schedule(T: int) -> tuple[int, ...]:
    """The batch lengths (module docstring): eqs. (6)-(7) with B_1 = alpha, rounded up, the last cut at T."""
    return grid_schedule(T, lambda alpha: alpha)


def ablation_gamma(arms: int, batches: int, delta: float) -> float:
    """gamma = sqrt(2 log(2 N M / delta)) for N distinct arms and M batches (module docstring)."""
    return math.sqrt(2 * math.log(2 * arms * batches / delta))


def distinct_arms(sets: np.ndarray) -> int:
    """The number of distinct arm vectors of a family (n, K, d)."""
    return int(np.unique(sets.reshape(-1, sets.shape[-1]), axis=0).shape[0])


def distributional_policy(sets: np.ndarray, allowed: np.ndarray, probabilities: np.ndarray | None = None
                          ) -> np.ndarray:
    """The log-det optimal policy pi (n, K) on the family's sets restricted to the ``allowed`` arms (n, K), in the
    coordinates of the allowed arms' span (module docstring)."""
    allowed = np.asarray(allowed, dtype=bool)
    vectors = sets[allowed]
    _, singular, basis = np.linalg.svd(vectors, full_matrices=False)
    rank = int((singular > SPAN_TOLERANCE * singular[0]).sum())
    coordinates = sets @ basis[:rank].T
    return distributional_design(coordinates, probabilities, allowed)[0]


def eliminate(x: np.ndarray, estimates: list[tuple[np.ndarray, np.ndarray]], width: float) -> np.ndarray:
    """The surviving arms (..., K) of contexts x (..., K, d) after eqs. (13)-(14) with estimates (theta_j
    (..., d), W_j^-1 (..., d, d)), j = 1..k-1 in turn, widths ``width`` ||x||_{W_j^-1}."""
    allowed = np.ones(x.shape[:-1], dtype=bool)
    for theta, W_inv in estimates:
        centre = np.einsum("...kd,...d->...k", x, theta)
        spread = width * np.sqrt(np.maximum(np.einsum("...kd,...de,...ke->...k", x, W_inv, x), 0.0))
        best_lcb = np.where(allowed, centre - spread, -np.inf).max(axis=-1, keepdims=True)
        allowed &= centre + spread >= best_lcb
    return allowed


class BatchedGLMAblation(GLMPolicy):
    """Remark 4.4's non-private batched ablation of Algorithm 1 on a known finite family of context sets, with the
    per-set G-optimal or the distributional optimal design (module docstring); a contextual policy."""

    owner: ClassVar[str] = "BatchedGLMAblation"
    source: ClassVar[str] = ("Remark 4.4's ablation: Algorithm 1 without privacy or arm scaling (unnoised design "
                             "matrices and MLE), per-set G-optimal or distributional optimal design")

    def __init__(self, sets: Any, design: str = "g-optimal", probabilities: Any = None, link: str | Link = "logistic",
                 S: float = 1.0, kappa: float | None = None, delta: float = 0.02, lam: float = 1.0,
                 gamma: float | None = None, T: int | None = None, record: bool = False):
        super().__init__(link, S, kappa, delta, T)
        owner = self.owner
        sets = np.array(sets, dtype=float)
        if sets.ndim != 3 or sets.shape[0] < 1 or sets.shape[1] < 2 or sets.shape[2] < 1:
            raise ValueError(f"{owner}: sets must be a family of context sets, shape (n, K, d) with K >= 2, got "
                             f"shape {sets.shape}")
        if not np.all(np.isfinite(sets)):
            raise ValueError(f"{owner}: sets must be finite")
        n = sets.shape[0]
        p = np.full(n, 1.0 / n) if probabilities is None else np.array(probabilities, dtype=float)
        if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0) or not np.isclose(p.sum(), 1.0):
            raise ValueError(f"{owner}: probabilities must be a distribution on the {n} sets, got {probabilities!r}")
        self.sets, self.probabilities = sets, p
        self.design = choice(owner, "design", design, DESIGNS)
        self.lam = positive(owner, "lam", lam)
        self.gamma = None if gamma is None else positive(owner, "gamma", gamma)
        if self.T is not None and self.T < 5:
            raise ValueError(f"{owner}: T must be an integer >= 5, got T={T!r}")
        self.record = bool(record)
        self.name = (f"BatchedGLMAblation({self.design}, {self.link.name}, S={self.S:g}, kappa={self.kappa:.4g}, "
                     f"delta={self.delta:g}, lam={self.lam:g}, {n} sets)")

    def settings(self, T: int) -> tuple[tuple[int, ...], float]:
        """(batch lengths, gamma) at horizon T."""
        batches = ablation_schedule(T)
        gamma = self.gamma if self.gamma is not None else ablation_gamma(distinct_arms(self.sets), len(batches),
                                                                         self.delta)
        return batches, gamma

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: its batches and gamma are planned for T,
        the horizon unless ``T`` is given (:func:`dpaudit.bandits.policies.horizon_use`)."""
        return self.T is not None

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        if arms != self.sets.shape[1]:
            raise ValueError(f"{self.owner}: the environment has {arms} arms, the family's sets {self.sets.shape[1]}")
        self._T = planned_horizon(self.owner, self.T, horizon, 5)
        self.rng = rng
        self.batches, gamma = self.settings(self._T)
        self.width = gamma * math.sqrt(self.kappa)
        self.ends = np.cumsum(self.batches)
        self.cache: dict[bytes, np.ndarray] = {}
        self.trace: dict[str, list] = {"uniforms": [], "estimates": [], "policies": []}

    def _begin(self, d: int) -> None:
        if d != self.sets.shape[2]:
            raise ValueError(f"{self.owner}: contexts have dimension {d}, the family's sets {self.sets.shape[2]}")
        self.batch = 0
        self.estimates: list[tuple[np.ndarray, np.ndarray]] = []
        self._new_batch()

    def _new_batch(self) -> None:
        n = int(self.batches[self.batch])
        self.points = np.zeros((self.runs, n, self._d))
        self.rewards = np.zeros((self.runs, n))
        runs, (n, K, d) = self.runs, self.sets.shape
        family = np.broadcast_to(self.sets, (runs, n, K, d))
        estimates = [(theta[:, None], W_inv[:, None]) for theta, W_inv in self.estimates]
        masks = eliminate(family, estimates, self.width)  # (runs, n, K): fixed within the batch
        if self.design == "distributional":
            self.policy = self._distributional(masks)
        else:  # pi^G of every set's survivors, all runs and sets in one solve
            self.policy = g_optimal_design(family.reshape(runs * n, K, d), masks.reshape(runs * n, K))[0].reshape(
                runs, n, K)
        if self.record:
            self.trace["policies"].append(self.policy.copy())

    def _distributional(self, masks: np.ndarray) -> np.ndarray:
        """Each run's policy (runs, n, K) on the family restricted to its survivors, cached by pattern."""
        out = np.empty(masks.shape)
        runs = self.runs
        for r in range(runs):  # a design solve per survivor pattern, not per run: patterns are few
            key = np.packbits(masks[r]).tobytes()
            if key not in self.cache:
                self.cache[key] = distributional_policy(self.sets, masks[r], self.probabilities)
            out[r] = self.cache[key]
        return out

    def set_index(self, x: np.ndarray) -> np.ndarray:
        """The family index of each run's context set (runs,); ValueError for a set not in the family."""
        gap = np.abs(x[:, None] - self.sets[None]).max(axis=(2, 3))  # (runs, n)
        index = gap.argmin(axis=1)
        if (gap[np.arange(x.shape[0]), index] > MATCH_TOLERANCE).any():
            raise ValueError(f"{self.owner}: a context set is not in the family the policy was given (the learner "
                             "knows D: give the environment's sets)")
        return index

    def _choose(self, t: int, x: np.ndarray) -> np.ndarray:
        pi = self.policy[self._rows, self.set_index(x)]
        uniforms = self.rng.random(self.runs)
        if self.record:
            self.trace["uniforms"].append(uniforms)
        return sample_design(pi, uniforms)

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        start = 0 if self.batch == 0 else int(self.ends[self.batch - 1])
        i = t - 1 - start
        self.points[:, i] = self._x
        self.rewards[:, i] = np.asarray(rewards, dtype=float)
        if t != self.ends[self.batch] or self.batch + 1 == len(self.batches):
            return  # the last batch's estimate is used by no decision
        d = self._d
        W = np.einsum("rnd,rne->rde", self.points, self.points) + self.lam * np.eye(d)
        theta = fit_mle(self.link, self.points, self.rewards, None, np.zeros((self.runs, d)), self.lam).theta
        self.estimates.append((theta, np.linalg.inv(W)))
        if self.record:
            self.trace["estimates"].append((theta.copy(), W))
        self.batch += 1
        self._new_batch()


__all__ = ["BatchedGLMAblation", "DESIGNS", "ablation_gamma", "ablation_schedule", "distinct_arms",
           "distributional_policy", "eliminate"]
