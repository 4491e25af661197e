"""shuffle-lcb's LinUCB and its private variants with the constants of the authors' released code
(``LinBanditPrivate.py``, :data:`~dpaudit.mechanisms.released_code.linear_released_code.SOURCE`), the constant set a
preset runs under ``constants="released-code"``. The theorems' constants are
:mod:`~dpaudit.algorithms.linear.private_linucb`'s.

With n the horizon, d the dimension and L the largest feature norm (sqrt 2 on the code's own generator),
the code's constants (``LinBanditAlg`` and its subclasses, confidence-region scale crs = 1):

- Gamma: 1 (LinUCB); noise sqrt(n) sqrt(d) (LDP, SDP-Amp, their noise the per-user sigma);
  noise sqrt(log n) sqrt(d) (JDP); (1/4) noise sqrt(n) sqrt(d) (SDP-Vec, its noise log(d/delta)/(eps sqrt B));
- the regularizer: lambda = 1e-4 Gamma (LinUCB), 2 Gamma (the private variants);
- the width, computed once for the whole run at t = n: cew = sqrt(Gamma) S + R sqrt(d log((1 + n L^2 /
  Gamma) / alpha)), S = sqrt d, R = 0.5, alpha = 1/n;
- the index: <x_a, theta> + cew ||x_a||_{(G + lambda I)^{-1}}, theta = (G + lambda I)^{-1} u, G and u the
  released sums; the model changes every round (LinUCB, LDP, JDP) or at the end of every batch of B
  (SDP-Amp, SDP-Vec).

The noise comes from this package's releases (the mechanisms the suite audits) at the code's calibrations
(:mod:`dpaudit.mechanisms.released_code.linear_released_code`): R_Amp every round (LDP), P_Amp's sums of B users
(SDP-Amp), P_Vec (SDP-Vec, precision matched to the code's grid, b truncated as numpy does: at eps = 10 the code's b is
0.61, so no noise bits at all); LinUCB-JDP's is
the code's own, :class:`~dpaudit.mechanisms.released_code.linear_released_code.PseudoTreeNoise` (not a tree, and not
private: its docstring says why). A binary tree at the code's sigma instead gives regrets 28% higher
(4181 against the code's 3271 at the released setting, 13 s.e.); the pseudo-tree gives 3311 ± 87.
Not reproduced, because they are the code's mechanisms rather than constants (each variant's ``notes`` say
which applies):

- R_Amp noises the upper triangle of phi phi^T with N(0, sigma^2); the code adds a full Gaussian matrix
  symmetrised by averaging, (N + N^T)/2, whose off-diagonal entries have variance sigma^2/2;
- the code's first choice already carries noise (its JDP's first draw) or none; here the first round's model
  is lambda I, theta = 0, before any release;
- a released matrix that is not positive definite: the code's widths become NaN and ``np.argmax`` picks the
  first arm with a NaN index; here the run keeps its previous model;
- the code's noise comes from the global ``np.random`` stream, unseeded; here the policy's stream.

Every private variant accepts features of norm up to the first round's largest (the code's generator has
norm sqrt 2; the theorems' calibrations need ||phi|| <= 1, which these constants do not claim to meet).
:func:`released_code_one_run` is the plain per-run reference the tests hold the vectorised policy to.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from dpaudit.bandits.policies import checked_contexts
from dpaudit.core.validation import choice
from dpaudit.mechanisms.released_code import linear_released_code as code

from .linucb import ExactStatistics, LinUCB, first_best
from .private_linucb import PrivateLinUCB, largest_norm
from .statistics import GivenGaussianSums, GivenVectorSums, PseudoTreeSums

VARIANTS = ("linucb", "ldp", "jdp", "sdp-amp", "sdp-vec")
LABELS = {"linucb": "LinUCB", "ldp": "LinUCB-LDP", "jdp": "LinUCB-JDP", "sdp-amp": "LinUCB-SDP-Amp",
          "sdp-vec": "LinUCB-SDP-Vec"}
R, CRS, LINUCB_LAMBDA = 0.5, 1.0, 1e-4  # the code's reward scale sigma, confidence-region scale, LinUCB's lambda
SYMMETRISED = ("the released code symmetrises a full Gaussian matrix by averaging (off-diagonal variance sigma^2/2); "
               "R_Amp noises the upper triangle with sigma^2 (a mechanism difference, not reproduced)")
PSEUDO_TREE = ("the released code's JDP noise, reproduced: the first floor(ln(1 + t)) + 1 of floor(ln n) + 1 matrices "
               "drawn once (no tree, and not private: between two changes of that count consecutive Gram matrices "
               "differ by exactly x x^T)")


class ReleasedCodeLinUCB(PrivateLinUCB):
    """A variant of :data:`VARIANTS` with the released code's constants (module docstring): ``eps``,
    ``delta`` (the code's 0.1), batch size ``B`` (the SDP variants; 1 otherwise), SDP-Vec's ``scale``."""

    owner: ClassVar[str] = "ReleasedCodeLinUCB"

    def __init__(self, variant: str, eps: float | None = None, delta: float = 0.1, B: int = 1,
                 scale: float = 1.0, T: int | None = None):
        self.variant = choice(self.owner, "variant", variant, VARIANTS)
        if (self.variant == "linucb") != (eps is None):
            raise ValueError(f"{self.owner}: {'LinUCB takes no eps' if eps is not None else 'give eps'}")
        if self.variant not in ("sdp-amp", "sdp-vec") and B != 1:
            raise ValueError(f"{self.owner}: the released code's {LABELS[self.variant]} updates every round (B = 1)")
        self.eps, self.delta, self.scale = eps, delta, scale
        if eps is not None:  # the calibrations check eps, delta (and B, scale) now, not at the first round
            self._noise(B, 16, 1)
        label = LABELS[self.variant] + ("" if eps is None else f"(eps={eps:g}, delta={delta:g}"
                                        + (f", B={B})" if self.variant.startswith("sdp") else ")"))
        super().__init__(ExactStatistics(), B, f"{label} [released-code constants]", LINUCB_LAMBDA, None, T)
        self.feature_bound = 1.0
        if self.variant in ("ldp", "sdp-amp"):
            self.notes.append(SYMMETRISED)
        if self.variant == "jdp":
            self.notes.append(PSEUDO_TREE)

    def _noise(self, B: int, n: int, d: int) -> float:
        """The code's noise scale, from which Gamma follows."""
        if self.variant == "ldp":
            return code.ldp_sigma(self.eps, self.delta)
        if self.variant == "jdp":
            return code.jdp_sigma(self.eps, self.delta, n)
        if self.variant == "sdp-amp":
            return code.amp_sigma(self.eps, self.delta, B)
        if self.variant == "sdp-vec":
            code.vec_parameters(self.eps, self.delta, d, B, self.scale)
            return code.vec_noise(self.eps, self.delta, d, B)
        return 1.0

    def gamma(self, n: int, d: int) -> float:
        """The code's Gamma (module docstring)."""
        noise = self._noise(self.B, n, d)
        if self.variant == "linucb":
            return 1.0
        if self.variant == "jdp":
            return noise * math.sqrt(math.log(n)) * math.sqrt(d)
        return (0.25 if self.variant == "sdp-vec" else 1.0) * noise * math.sqrt(n) * math.sqrt(d)

    def width(self, n: int, d: int, feature_bound: float) -> float:
        """The code's cew: sqrt(Gamma) sqrt(d) + R sqrt(d log((1 + n L^2 / Gamma) n)), fixed for the run."""
        gamma = self.gamma(n, d)
        return CRS * (math.sqrt(gamma) * math.sqrt(d)
                      + R * math.sqrt(d * math.log((1 + n * feature_bound**2 / gamma) * n)))

    def _statistics(self, n: int, d: int) -> Any:
        bound, setting = self.feature_bound, "released code"
        if self.variant == "linucb":
            return ExactStatistics()
        if self.variant in ("ldp", "sdp-amp"):
            return GivenGaussianSums(self._noise(self.B, n, d), self.B, setting, norm_bound=bound)
        if self.variant == "jdp":
            return PseudoTreeSums(code.jdp_sigma(self.eps, self.delta, n), norm_bound=bound)
        g, b = code.vec_parameters(self.eps, self.delta, d, self.B, self.scale)
        return GivenVectorSums(code.vec_precision(g, bound), math.floor(b), self.B, setting, norm_bound=bound)

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        if self.T_run < 2:
            raise ValueError(f"{self.label}: the released code's constants need a horizon of at least 2 (log n)")

    def regularity(self, d: int) -> tuple[float, float, float, float]:
        lam = (LINUCB_LAMBDA if self.variant == "linucb" else 2.0) * self.gamma(self.T_run, d)
        return lam, lam, lam, 0.0

    def _begin(self, d: int) -> None:
        self.statistics = self._statistics(self.T_run, d)
        self.cew = self.width(self.T_run, d, self.feature_bound)  # the radius reads it from the first round on
        if self.variant == "linucb":
            self.lam = self.regularity(d)[0]
            LinUCB._begin(self, d)
        else:
            super()._begin(d)

    def radius(self, t_m: Any, d: int) -> np.ndarray:
        """The code's width, the same at every round (module docstring)."""
        return np.full(np.shape(t_m), self.cew)

    def radii(self, ends: np.ndarray, d: int) -> np.ndarray:
        return np.full(len(ends), self.cew)

    def choose(self, t: int, contexts: np.ndarray) -> np.ndarray:
        if self._d is None:
            self._read_feature_bound(t, contexts)
        return LinUCB.choose(self, t, contexts)

    def _read_feature_bound(self, t: int, contexts: np.ndarray) -> None:
        """L, the largest feature norm, as the code reads it from its (first) arm set."""
        self.feature_bound = max(1.0, largest_norm(checked_contexts(self.owner, contexts, self.runs, None, t)))

    @property
    def compiled_rounds(self) -> bool:
        """With numba, the code's LinUCB, LinUCB-LDP, LinUCB-SDP-Amp and LinUCB-JDP play LinUCB's compiled blocks
        (its fixed width is the radius every round reads, its regularizer and release are set at the first round;
        the private ones on releases whose noise is drawn ahead: R_Amp's Gaussian sums, and the pseudo-tree's noise
        of each round on the exact sums); SDP-Vec (P_Vec's rounding depends on the data) plays round by round."""
        return LinUCB.compiled_rounds.fget(self) and self.variant in ("linucb", "ldp", "sdp-amp", "jdp")

    def play_rounds(self, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
        if self._d is None:
            self._read_feature_bound(t, contexts if np.ndim(contexts) == 3 else contexts[0])
        if self.variant in ("ldp", "sdp-amp", "jdp"):  # every arm set within the release's bound
            largest = largest_norm(contexts)
            if largest > self.feature_bound + 1e-9:
                raise ValueError(f"{self.label}: features need ||phi|| <= "
                                 f"{self.feature_bound:.6g}, got {largest:.6g} at round {t} or later")
        return LinUCB.play_rounds(self, t, contexts, rewards)


def released_code_one_run(policy: ReleasedCodeLinUCB, features: np.ndarray, rewards: np.ndarray, horizon: int,
                          noise_V: np.ndarray, noise_u: np.ndarray) -> np.ndarray:
    """The plain per-run reference, written as the code's ``get_arm``: one run's arms over ``horizon``
    rounds on fixed ``features`` (K, d) and the reward table ``rewards`` (horizon, K), with the cumulative
    release noise after each batch (``noise_V`` (M, d, d), ``noise_u`` (M, d)) that the vectorised run
    drew. Before round t the model is (G + noise + lambda I)^{-1} over the batches ended so far; the index
    is <x, theta> + cew ||x||; a released matrix that is not positive definite keeps the previous model
    (the vectorised policy's guard; the code has none)."""
    d = features.shape[1]
    lam, cew, B = policy.lam, policy.cew, policy.B
    gram, u_exact = np.zeros((d, d)), np.zeros(d)
    inverse, theta = np.eye(d) / lam, np.zeros(d)
    played = np.empty(horizon, dtype=np.int64)
    m = 0
    for t in range(1, horizon + 1):
        widths = np.sqrt(np.maximum(((features @ inverse) * features).sum(axis=1), 0.0))
        a_t = int(first_best((features @ theta + cew * widths)[None])[0])
        played[t - 1] = a_t
        x = features[a_t]
        gram += np.outer(x, x)
        u_exact += rewards[t - 1, a_t] * x
        if t % B == 0:
            V = gram + noise_V[m] + lam * np.eye(d)
            if policy.statistics.noiseless or np.linalg.eigvalsh(V)[0] > 0:
                inverse = np.linalg.inv(V)
            theta = inverse @ (u_exact + noise_u[m])
            m += 1
    return played


__all__ = ["LABELS", "VARIANTS", "ReleasedCodeLinUCB", "released_code_one_run"]
