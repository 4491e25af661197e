"""The noise calibrations of shuffle-lcb's released code (``LinBanditPrivate.py`` of
sayakrc/Differentially-Private-Bandits at ea7503b, the code behind the paper's Figs. 1-2), which are not
the theorems'. They set the noise of the same releases the suite audits (R_Amp, P_Amp, P_Vec, the
central tree) when a preset runs with ``constants="released-code"``; none of them carries a privacy
guarantee of the paper, and the suites audit the theorems' calibrations, not these.

Per variant, with n the horizon, (eps, delta) the privacy parameters, B the batch size, d the dimension
(natural logarithms, as the code's ``np.log``):

================ ================================================ =========================================
variant          noise standard deviation per entry               the code's form
================ ================================================ =========================================
LinUCB-LDP       sqrt(log(2.5/delta)) / eps                       every user, every round
LinUCB-JDP       sqrt(log n) log(2.5/delta) / eps                 per draw of :class:`PseudoTreeNoise`
LinUCB-SDP-Amp   sqrt(log(2.5 B/delta)) / (eps sqrt B)            every user, summed per batch
LinUCB-SDP-Vec   g = max{2 sqrt B, d, 4}, b = g^2 log^2(d/delta)  P_Vec's (g, b), neither rounded
                 / (eps^2 B), p = 1/4
================ ================================================ =========================================

The code's "noise" of LinUCB-SDP-Vec, log(d/delta) / (eps sqrt B), only sets its regularizer
(:func:`vec_noise`). A comment beside its ``scale = 1`` says 10 was tuned for eps = 1 and 10; the
shipped file has 1, and which scale produced which published panel is not known: ``scale`` is kept as a
parameter, 1 by default.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.core.validation import integer, positive

SOURCE = "sayakrc/Differentially-Private-Bandits at ea7503b (LinBanditPrivate.py); the paper cites no commit"


def _budget(owner: str, eps: float, delta: float) -> tuple[float, float]:
    eps, delta = positive(owner, "eps", eps), positive(owner, "delta", delta)
    if not delta < 1:
        raise ValueError(f"{owner}: delta must be in (0, 1), got {delta!r}")
    return eps, delta


def ldp_sigma(eps: float, delta: float) -> float:
    """LDPLinUCB's per-user noise: sqrt(log(2.5/delta)) / eps."""
    eps, delta = _budget("ldp_sigma", eps, delta)
    return math.sqrt(math.log(2.5 / delta)) / eps


def jdp_sigma(eps: float, delta: float, n: int) -> float:
    """JDPLinUCB's noise per pre-drawn matrix: sqrt(log n) log(2.5/delta) / eps."""
    eps, delta = _budget("jdp_sigma", eps, delta)
    n = integer("jdp_sigma", "n", n, 2)
    return math.sqrt(math.log(n)) * math.log(2.5 / delta) / eps


def amp_sigma(eps: float, delta: float, B: int) -> float:
    """SDPLinUCBPAmp's per-user noise: sqrt(log(2.5 B/delta)) / (eps sqrt B)."""
    eps, delta = _budget("amp_sigma", eps, delta)
    B = integer("amp_sigma", "B", B, 1)
    return math.sqrt(math.log(2.5 * B / delta)) / (eps * math.sqrt(B))


def vec_parameters(eps: float, delta: float, d: int, B: int, scale: float = 1.0) -> tuple[float, float]:
    """SDPLinUCBPVec's (g, b): g = max{2 sqrt B, d, 4}, b = scale g^2 log^2(d/delta) / (eps^2 B), as the
    code computes them (real numbers; its randomizer draws Binomial(b, 1/4), which numpy truncates to
    floor(b) trials)."""
    eps, delta = _budget("vec_parameters", eps, delta)
    d, B = integer("vec_parameters", "d", d, 1), integer("vec_parameters", "B", B, 1)
    scale = positive("vec_parameters", "scale", scale)
    g = max(2 * math.sqrt(B), d, 4)
    return g, scale * g**2 * math.log(d / delta) ** 2 / (eps**2 * B)


def vec_noise(eps: float, delta: float, d: int, B: int) -> float:
    """SDPLinUCBPVec's "noise", which only sets its regularizer: log(d/delta) / (eps sqrt B)."""
    eps, delta = _budget("vec_noise", eps, delta)
    return math.log(integer("vec_noise", "d", d, 1) / delta) / (eps * math.sqrt(integer("vec_noise", "B", B, 1)))


def vec_precision(g: float, feature_bound: float) -> int:
    """The precision of this package's P_Vec whose grid matches the code's. The code rounds an entry w in
    [-L, L] (L the largest feature norm) on the grid L/g: floor((w + L) g / L); P_Vec rounds entries of
    [-1, 1] on the grid 1/g' (Delta = 1). The same spacing needs g' = g / L: its nearest integer, at least
    1 (at the experiments' B = 20, d = 5 and L = sqrt 2: g = 8.944, g' = 6, a spacing 5% coarser)."""
    return max(1, round(positive("vec_precision", "g", g) / positive("vec_precision", "feature_bound", feature_bound)))


class PseudoTreeNoise:
    """The released code's LinUCB-JDP noise (``JDPLinUCB``), which stands in for a tree but is not one: with
    N = floor(ln n) + 1 Gaussian matrices and vectors drawn once per run (entries N(0, sigma^2), sigma =
    :func:`jdp_sigma`), the Gram matrix and the vector used for the choice at round t (0-based) carry the
    sum of the first c(t) = floor(ln(1 + t)) + 1 of them, the matrix part symmetrised by averaging,
    (S + S^T)/2, after the sum.

    Not private: c(t) changes only at the rounds t = ceil(e^k) - 1, about ln n times in a run, so between two
    changes the noise is the same and two consecutive released Gram matrices differ by exactly the round's
    x x^T (a change of one round's data is seen without noise). The suites audit the theorems' tree, not
    this; it is here so that a released-code run reproduces what the authors ran."""

    def __init__(self, sigma: float, n: int, d: int):
        self.sigma = positive("PseudoTreeNoise", "sigma", sigma)
        self.n = integer("PseudoTreeNoise", "n", n, 2)
        self.d = integer("PseudoTreeNoise", "d", d, 1)
        self.draws = math.floor(math.log(self.n)) + 1
        self.name = f"PseudoTreeNoise(n={self.n}, d={self.d}, sigma={self.sigma:.6g}: {self.draws} draws)"

    @staticmethod
    def used(t: int) -> int:
        """c(t) = floor(ln(1 + t)) + 1, the draws in the noise of the choice at 0-based round t."""
        return math.floor(math.log(1 + integer("PseudoTreeNoise", "t", t, 0))) + 1

    def draw(self, runs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The N matrices (runs, N, d, d) and vectors (runs, N, d) of ``runs`` runs, drawn once."""
        runs = integer("PseudoTreeNoise", "runs", runs, 1)
        return (rng.normal(0.0, self.sigma, (runs, self.draws, self.d, self.d)),
                rng.normal(0.0, self.sigma, (runs, self.draws, self.d)))

    def noise(self, matrices: np.ndarray, vectors: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray]:
        """The noise of the choice at 0-based round t: the symmetrised sum of the first c(t) matrices and the
        sum of the first c(t) vectors (c(t) at most N: the code's rounds end at n)."""
        used = min(self.used(t), self.draws)
        total = matrices[:, :used].sum(axis=1)
        return (total + total.transpose(0, 2, 1)) / 2, vectors[:, :used].sum(axis=1)


__all__ = ["SOURCE", "PseudoTreeNoise", "amp_sigma", "jdp_sigma", "ldp_sigma", "vec_noise", "vec_parameters",
           "vec_precision"]
