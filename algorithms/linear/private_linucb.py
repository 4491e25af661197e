"""shuffle-lcb's private LinUCB variants: Algorithm 1 on a private release of its batch statistics
(:mod:`~dpaudit.algorithms.linear.statistics`), with the regularizer and radius of Lemma A.4 set from
the release's noise scale once the dimension and the horizon are known.

Regularizer and radius (the spec's 4.1 and 6.2 [choice]: "use the beta_m and lambda of Section 4
with the stated constants set to 1"). With sigma_tot the release's cumulative noise scale (the
standard deviation of one entry of the summed noise after T rounds, ``statistics.sigma_total``) and
alpha = 1/T unless given:

    Sigma   = sigma_tot (sqrt d + sqrt log(T / (B alpha)))      (Lemma A.4's Sigma_n = Sigma_N, c1 = c2 = 1)
    lambda  = max{1, Sigma}
    lambda_min = lambda / 2,  lambda_max = 3 lambda / 2           (Lemma A.4's lambda = 2 Sigma_N)
    nu      = Sigma / sqrt(lambda_min)                             (Lemma A.4's nu = Sigma_n / sqrt(lambda_min))
    beta_m  = sqrt(2 log(1/alpha) + d log(1 + t_m / (d lambda_min))) + sqrt(lambda_max) + nu

An explicit ``lam`` replaces lambda (lambda_min, lambda_max and nu follow it as above).

Features must satisfy ||phi|| <= 1 (Assumption 3.1; the mechanisms' sensitivities rely on it): a
context of larger norm is refused with a ``ValueError`` naming the likely cause (the released code's
generator has norm sqrt 2; the paper's has norm 1); features are never rescaled silently.

:func:`private_linucb_one_run` is the plain per-run reference: one run, solving afresh at every batch
end, fed the same release noise as the vectorised run drew.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import integer

from .linucb import LinUCB, first_best

NORM_SLACK = 1e-9


def largest_norm(contexts: Any) -> float:
    """The largest feature norm ||phi|| of ``contexts`` (any leading axes, features on the last); 0 if empty."""
    x = np.asarray(contexts, dtype=float)
    return float(np.sqrt(np.einsum("...d,...d->...", x, x).max())) if x.size else 0.0


class PrivateLinUCB(LinUCB):
    """Algorithm 1 with batch size ``B`` on the private release ``statistics`` (module docstring).
    ``label`` is the paper's name of the variant, ``T`` the horizon the noise is calibrated for
    (the simulated horizon if None), ``notes`` what the theorems do not cover (each also warned)."""

    owner: ClassVar[str] = "PrivateLinUCB"

    def __init__(self, statistics: Any, B: int, label: str, lam: float | None = None, alpha: float | None = None,
                 T: int | None = None, notes: tuple[str, ...] = ()):
        super().__init__(B, 1.0 if lam is None else lam, alpha, statistics=statistics)
        self.given_lam = None if lam is None else self.lam
        self.T = None if T is None else integer(label, "T", T, 1)
        self.label = label
        self.name = label
        self.notes = []
        for text in notes:
            self._note(text)

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: the release's noise, lambda and
        alpha are calibrated to T, the horizon unless ``T`` is given (:func:`dpaudit.bandits.policies.horizon_use`)."""
        return self.T is not None

    def _note(self, text: str) -> None:
        if text not in self.notes:
            warnings.warn(f"{self.label}: {text}", stacklevel=3)
            self.notes.append(text)

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        self.T_run = horizon if self.T is None else self.T
        if self.T_run < horizon:
            raise ValueError(f"{self.label}: T = {self.T_run} is below the simulated horizon {horizon}; the "
                             "release is calibrated for T rounds")
        if self.B > self.T_run:
            raise ValueError(f"{self.label}: B must be in [T] = [1, {self.T_run}], got B = {self.B}")
        self._alpha = self.alpha if self.alpha is not None else 1 / max(self.T_run, 2)
        self._checked: Any = None

    def regularity(self, d: int) -> tuple[float, float, float, float]:
        """(lambda, lambda_min, lambda_max, nu) for dimension d (module docstring)."""
        sigma_total = self.statistics.sigma_total
        spread = sigma_total * (math.sqrt(d) + math.sqrt(math.log(self.T_run / (self.B * self._alpha))))
        lam = self.given_lam if self.given_lam is not None else max(1.0, spread)
        return lam, lam / 2, 3 * lam / 2, spread / math.sqrt(lam / 2)

    def _begin(self, d: int) -> None:
        self.statistics.prepare(d, self.T_run)
        for text in self.statistics.notes:
            self._note(text)
        self.lam, self.lam_min, self.lam_max, self.nu = self.regularity(d)
        super()._begin(d)

    def choose(self, t: int, contexts: np.ndarray) -> np.ndarray:
        self._check_norms(t, contexts)
        return super().choose(t, contexts)

    def _check_norms(self, t: int, contexts: Any) -> None:
        """Every feature of ``contexts`` (one round's, or a block's) within Assumption 3.1's ||phi|| <= 1."""
        if contexts is not self._checked:  # a fixed arm set is checked once
            x = np.asarray(contexts, dtype=float)
            if x.ndim in (3, 4) and x.size:
                largest = largest_norm(x)
                if largest > 1 + NORM_SLACK:
                    raise ValueError(
                        f"{self.label}: features must have ||phi|| <= 1 (Assumption 3.1; the mechanisms' noise is "
                        f"calibrated to it), got a context of norm {largest:.6g} at round {t}"
                        f"{' or later' if x.ndim == 4 else ''}. LinearBandit's 'released-code' generator has norm "
                        "sqrt 2: use generator='paper' (unit norm), or divide the features by their largest norm")
            self._checked = contexts

    @property
    def block_rounds(self) -> bool:
        """It plays a linear bandit's blocks of rounds (:meth:`LinUCB.play_rounds`), so that every LinUCB variant
        on a seed reads the same block draws: compiled (:attr:`compiled_rounds`) where the release can run in the
        kernel, otherwise one round at a time."""
        return True

    @property
    def compiled_rounds(self) -> bool:
        """Whether its blocks run compiled: numba is installed and the release's Gaussian noise can be drawn ahead,
        added to the batch's sums (P_Amp's sums, R_Amp per user with batches of one) or to the exact sums so far (the
        central tree's prefix noise, one leaf per batch), when no view is recorded for an audit; P_Vec plays round by
        round."""
        return super().compiled_rounds and type(self) is PrivateLinUCB and self.statistics.draws_ahead(self.B)

    def play_rounds(self, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
        self._check_norms(t, contexts)
        return super().play_rounds(t, contexts, rewards)


def private_linucb_one_run(policy: PrivateLinUCB, contexts: np.ndarray, rewards: np.ndarray, horizon: int,
                           noise_V: np.ndarray, noise_u: np.ndarray) -> np.ndarray:
    """The plain per-run reference of a (private) Algorithm 1: one run's arms over ``horizon`` rounds.

    ``contexts``: fixed features (K, d) or one set per round (horizon, K, d); ``rewards`` (horizon, K);
    ``noise_V`` (M, d, d) and ``noise_u`` (M, d): the cumulative release noise after each batch (the
    released V~, u minus the exact sums), as the vectorised run drew it. The regularity constants are
    the policy's (read after its run). At each batch end: V = lambda I + sum x x^T + noise_V[m],
    u = sum x y + noise_u[m]; a V that is not positive definite keeps the previous V, as the
    vectorised policy does; theta solves V theta = u afresh."""
    ctx = np.asarray(contexts, dtype=float)
    d = ctx.shape[-1]
    lam, lam_min, lam_max, nu, alpha, B = policy.lam, policy.lam_min, policy.lam_max, policy.nu, policy._alpha, policy.B

    def radius(t_m: int) -> float:
        return math.sqrt(2 * math.log(1 / alpha) + d * math.log1p(t_m / (d * lam_min))) + math.sqrt(lam_max) + nu

    V, theta, beta = lam * np.eye(d), np.zeros(d), radius(0)
    gram, u_exact = np.zeros((d, d)), np.zeros(d)
    played = np.empty(horizon, dtype=np.int64)
    m = 0
    for t in range(1, horizon + 1):
        features = ctx if ctx.ndim == 2 else ctx[t - 1]
        V_inv = np.linalg.inv(V)
        scores = [features[a] @ theta + beta * math.sqrt(max(features[a] @ V_inv @ features[a], 0.0))
                  for a in range(features.shape[0])]
        a_t = int(first_best(np.array(scores)[None])[0])
        played[t - 1] = a_t
        x = features[a_t]
        gram += np.outer(x, x)
        u_exact += rewards[t - 1, a_t] * x
        if t % B == 0:
            released_V = lam * np.eye(d) + gram + noise_V[m]
            u = u_exact + noise_u[m]
            if policy.statistics.noiseless or np.linalg.eigvalsh(released_V)[0] > 0:
                V = released_V
            theta = np.linalg.solve(V, u)
            beta = radius(t)
            m += 1
    return played


__all__ = ["PrivateLinUCB", "largest_norm", "private_linucb_one_run"]
