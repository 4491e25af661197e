"""shuffle-glm's lower bound (Sec. 7, Lemma 7.1; Appendix Q, Lemmas Q.1-Q.4): the constants of its proof and
the exact law of a small private algorithm on its hard instance, so that the proof's quantities (KL, mutual
information, Bayes errors, expected regret) can be computed exactly.

**Hard instance** (Appendix Q): the fixed public arm set {+r e_j, -r e_j : j in [d]}, theta_V = theta_0 +
a sum_j V_j e_j, V in {+1, -1}^d (:func:`dpaudit.algorithms.environments.assouad_family` builds the
environments). The standing regularity is m <= b'' <= M and |b'''| <= L on [-tau, tau]; for the logistic
link b'' = mu' and b''' = mu'' = mu' (1 - 2 mu), so m = mu'(tau) (mu' is even and falls in |z|), M = 1/4 and
L = |mu''(min(tau, log(2 + sqrt 3)))| (|mu''| rises on [0, log(2 + sqrt 3)] and falls after).

**Constants of the proof** (:func:`proof_constants`; the paper names them but leaves them unspecified):
  - Lemma Q.1: r = tau / (2 (B_0 + a_max)), c_gap = m r / 2, valid while r a <= m / (2 L);
  - Lemma 7.1: a = gamma eps, gamma "universal, small enough": the largest value that keeps Lemma Q.1's
    conditions a <= a_max and r a <= m/(2L) for every eps <= 1, gamma = min(a_max, m/(2 L r)) (a choice);
  - Lemma Q.4: C_DP = 1/2 [derived for pure DP: two e^eps-close laws have KL <= eps tanh(eps/2) <= eps^2/2
    per row]; the paper cites a universal C without a value; for delta > 0 the same C is used (a choice);
  - T_0 = c_0 d / (eps^2 + delta log(1/delta)) with c_0 = 1/(16 C_DP), the largest c_0 for which
    4 C_DP T_0 (eps^2 + delta log(1/delta)) / (2d) <= 1/8 (the proof's Step 2 through Lemma Q.3);
  - c_Ham = (1 - sqrt(1/8)) / 2, from Lemma Q.3's Hamming bound at (1/(2d)) sum KL = 1/8;
  - (116): E[R_{T_0}] >= c_gap gamma eps (T_0/d) c_Ham d = c' eps T_0, c' = c_gap gamma c_Ham, printed as
    = c' d/eps; Lemma 7.1's constants then read c = c' c_0 and C = c_0.

**A private algorithm with an exact law** (:class:`SignFollowingRR`): draw a coordinate J uniformly (the
symmetrisation of the proof's Step 3), play +r e_J at round 1, and at round t >= 2 play s_t r e_J with
s_t = s_{t-1} if RR_eps(y_{t-1}) = 1 and -s_{t-1} otherwise ("win-stay, lose-shift" on a randomized response
of the last reward: RR_eps keeps the bit with probability e^eps/(1 + e^eps)). Its action sequence
X_{1:T} = (J, s_1..s_T) is eps-DP with respect to the reward sequence (one reward row enters one randomized
response; the arm read at every round is a function of the public past actions), so it is in Lemma 7.1's
class for every delta >= 0. Given V its transcript depends on V only through V_J:

  Q_v(y, s) = prod_t P(y_t | s_t, v) prod_{t>=2} P(s_t | s_{t-1}, y_{t-1}),   A_v(s) = sum_y Q_v(y, s),

over y in {0,1}^T and s in {+1,-1}^{T-1} (s_1 = +1), and P(J = j, y, s | V) = Q_{V_j}(y, s)/d. Then, exactly:
  - Lemma Q.3's KL_j-bar = KL(P(X | V_j = +) || P(X | V_j = -)) = KL(A_+ || A_-)/d, so sum_j KL_j-bar =
    KL(A_+ || A_-); I(V; X) = JS(A_+, A_-) (the Jensen-Shannon divergence with equal weights);
  - the Bayes (MAP) decoder of V from the actions errs on coordinate j with probability
    (d-1)/(2d) + sum_s min(A_+, A_-)/(2d); from the full transcript (actions and rewards, Lemma Q.2's
    decoder) with (d-1)/(2d) + sum_{y,s} min(Q_+, Q_-)/(2d); n_j = T 1{J = j};
  - E[R_T] = Delta E_v[sum_s A_v(s) #{t : s_t != v}], Delta = mu(r a) - mu(-r a) (theta_0 = 0);
  - I(D; X) = H(X) - H(X | D) = H(A-bar) - (T-1) h(e^eps/(1 + e^eps)), A-bar = (A_+ + A_-)/2, D the reward
    table (given D, X's only randomness is J and the T-1 randomized responses).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from dpaudit.core.validation import integer, positive
from dpaudit.mechanisms.glm.glm_links import logistic_mean, logistic_slope

#: where |mu''| of the logistic link peaks: mu''' = 0 at z = log(2 + sqrt 3)
LOGISTIC_CURVATURE_PEAK = math.log(2 + math.sqrt(3))


def logistic_curvature(z):
    """mu''(z) = mu'(z) (1 - 2 mu(z)) of the logistic link (= b''' of the logistic GLM)."""
    z = np.asarray(z, dtype=float)
    return logistic_slope(z) * (1 - 2 * logistic_mean(z))


@dataclass(frozen=True)
class ProofConstants:
    """The constants of shuffle-glm's lower-bound proof at one choice of the free ones (module docstring)."""

    tau: float
    m: float
    M: float
    L: float
    B0: float
    a_max: float
    r: float
    c_gap: float
    gamma: float
    C_dp: float
    c0: float
    c_ham: float

    @property
    def c_prime(self) -> float:
        """(116)'s c' = c_gap gamma c_Ham: E[R_{T_0}] >= c' eps T_0."""
        return self.c_gap * self.gamma * self.c_ham

    @property
    def c(self) -> float:
        """Lemma 7.1's c as (116) writes it: c' eps T_0 = c' c_0 d/(eps^2 + delta log(1/delta)) read as c d/eps."""
        return self.c_prime * self.c0

    def T0(self, d: int, eps, delta):
        """T_0 = c_0 d / (eps^2 + delta log(1/delta)) (delta = 0 allowed: the pure-DP limit)."""
        eps, delta = np.asarray(eps, dtype=float), np.asarray(delta, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            leak = np.where(delta > 0, delta * np.log(1 / np.where(delta > 0, delta, 1.0)), 0.0)
        return self.c0 * d / (eps**2 + leak)


def proof_constants(tau: float = 1.0, a_max: float = 1.0, B0: float = 0.0, C_dp: float = 0.5) -> ProofConstants:
    """The proof's constants for the logistic link (module docstring): tau the regular region (choice: 1),
    a_max the largest perturbation (1, the lemma's bound), B_0 = max_j |theta_0j| (0: theta_0 = 0),
    C_DP of Lemma Q.4 (1/2, derived for pure DP). gamma is the largest value keeping a = gamma eps within
    Lemma Q.1's conditions for every eps <= 1: a <= a_max and r a <= m / (2 L)."""
    owner = "proof_constants"
    tau, a_max, C_dp = positive(owner, "tau", tau), positive(owner, "a_max", a_max), positive(owner, "C_dp", C_dp)
    if not 0 < a_max <= 1:
        raise ValueError(f"{owner}: Lemma Q.1 takes a_max in (0, 1], got {a_max!r}")
    if B0 < 0:
        raise ValueError(f"{owner}: B0 = max_j |theta_0j| is >= 0, got {B0!r}")
    m = float(logistic_slope(tau))
    L = float(abs(logistic_curvature(min(tau, LOGISTIC_CURVATURE_PEAK))))
    r = tau / (2 * (B0 + a_max))
    gamma = min(a_max, m / (2 * L * r))
    return ProofConstants(tau, m, 0.25, L, B0, a_max, r, m * r / 2, gamma, C_dp, 1 / (16 * C_dp),
                          (1 - math.sqrt(1 / 8)) / 2)


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    mask = p > 0
    return float(np.sum(p[mask] * np.log(p[mask] / q[mask])))


def _entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


class SignFollowingRR:
    """The eps-DP algorithm of the module docstring on Appendix Q's hard instance with theta_0 = 0 (logistic
    link): its exact transcript law and the quantities of Lemmas Q.2-Q.4 and the proof of Lemma 7.1."""

    def __init__(self, d: int, T: int, eps: float, a: float, r: float):
        owner = "SignFollowingRR"
        self.d = integer(owner, "d", d, 1)
        self.T = integer(owner, "T", T, 2)
        if self.T > 14:
            raise ValueError(f"{owner}: the exact law enumerates 2^(2T-1) paths; T <= 14, got {T!r}")
        self.eps, self.a, self.r = positive(owner, "eps", eps), positive(owner, "a", a), positive(owner, "r", r)
        self.keep = math.exp(eps) / (1 + math.exp(eps)) if eps < 700 else 1.0
        self.gap = float(logistic_mean(r * a) - logistic_mean(-r * a))
        y = np.array(list(itertools.product((0, 1), repeat=self.T)), dtype=float)  # (2^T, T)
        tail = np.array(list(itertools.product((1, -1), repeat=self.T - 1)), dtype=float).reshape(-1, self.T - 1)
        self.signs = np.concatenate([np.ones((len(tail), 1)), tail], axis=1)  # (2^(T-1), T), s_1 = +1
        stay = self.signs[:, 1:] == self.signs[:, :-1]  # (S, T-1)
        # P(s_t | s_{t-1}, y_{t-1}): stay iff the randomized response of y_{t-1} is 1
        response = np.where(y[:, None, :-1] == 1, np.where(stay[None], self.keep, 1 - self.keep),
                            np.where(stay[None], 1 - self.keep, self.keep)).prod(axis=2)  # (Y, S)
        self.Q = {}
        for v in (1, -1):
            p1 = logistic_mean(r * a * v * self.signs)  # P(y_t = 1 | s_t, v), (S, T)
            rewards = np.where(y[:, None, :] == 1, p1[None], 1 - p1[None]).prod(axis=2)  # (Y, S)
            self.Q[v] = rewards * response
        self.A = {v: self.Q[v].sum(axis=0) for v in (1, -1)}  # law of s given V_J = v
        self.A_bar = (self.A[1] + self.A[-1]) / 2

    # -- Lemma Q.3 ---------------------------------------------------------------------------------
    def bit_kls(self) -> np.ndarray:
        """KL_j-bar = KL(P(X | V_j = +1) || P(X | V_j = -1)), j = 1..d (all equal: KL(A_+ || A_-)/d)."""
        return np.full(self.d, _kl(self.A[1], self.A[-1]) / self.d)

    def mutual_information(self) -> float:
        """I(V; X_{1:T}) with V uniform on {+1, -1}^d: the Jensen-Shannon divergence of A_+ and A_-."""
        return 0.5 * _kl(self.A[1], self.A_bar) + 0.5 * _kl(self.A[-1], self.A_bar)

    def action_map_hamming(self) -> float:
        """E[Ham(V, V-hat(X))] of the MAP decoder of V from the actions (the best decoder of Lemma Q.3)."""
        return (self.d - 1) / 2 + 0.5 * float(np.minimum(self.A[1], self.A[-1]).sum())

    # -- Lemma Q.2 and the proof's Step 4 ---------------------------------------------------------
    def transcript_map_hamming(self) -> float:
        """E[Ham(V, V-hat(T_T))] of Lemma Q.2's decoder, the MAP of V from the full transcript (actions and
        rewards)."""
        return (self.d - 1) / 2 + 0.5 * float(np.minimum(self.Q[1], self.Q[-1]).sum())

    def pulls_times_errors(self) -> float:
        """sum_j E[n_j 1{V-hat_j(T_T) != V_j}]: n_j = T on the drawn coordinate J, 0 elsewhere; off J the
        decoder errs with probability 1/2 but n_j = 0."""
        return self.T / 2 * float(np.minimum(self.Q[1], self.Q[-1]).sum())

    def expected_pulls(self) -> np.ndarray:
        """E[n_j], j = 1..d (T/d each: J is uniform)."""
        return np.full(self.d, self.T / self.d)

    def expected_regret(self) -> float:
        """E[R_T] with V uniform: Delta times the expected number of wrong signs."""
        wrong = {v: (self.signs != v).sum(axis=1) for v in (1, -1)}
        return self.gap * 0.5 * sum(float(self.A[v] @ wrong[v]) for v in (1, -1))

    # -- Lemma Q.4 ---------------------------------------------------------------------------------
    def reward_information(self) -> float:
        """I(D; X_{1:T}), D the reward table: H(X) - H(X | D) = H(A-bar) - (T-1) h(keep)."""
        keep = self.keep
        h = 0.0 if keep in (0.0, 1.0) else -(keep * math.log(keep) + (1 - keep) * math.log(1 - keep))
        return _entropy(self.A_bar) - (self.T - 1) * h


__all__ = ["LOGISTIC_CURVATURE_PEAK", "ProofConstants", "SignFollowingRR", "logistic_curvature", "proof_constants"]
