"""The sparse vector technique (SVT) and its known-broken variants, after Lyu, Su & Li,
"Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6), 2017
(Figure 1, Algorithms 1 and 3-6), in the parameterisation of the StatDP benchmarks (Ding et al.,
CCS 2018: ``SVT``, ``iSVT1``-``iSVT4``).

Input (``data``): the answers q_1..q_k of a stream of queries, each of sensitivity Delta; the
stream may have any length k >= 1 (SVT is defined on unbounded streams, so the true epsilon of a
variant is the supremum over all lengths). Neighbouring relation: every answer moves by at most
Delta (``QueryDistance(Delta)``, answers may move in different directions).

Every variant draws a threshold noise rho once, compares each noisy answer q_i + nu_i with the
noisy threshold T + rho, and answers "above" (top) or "below" (bottom); with a cutoff c it stops
after the c-th "above". Output encoding (numeric, one row per run, shape (size, k)):
**1 = above (top), 0 = below (bottom), -1 = not answered** (the run stopped at the cutoff).
The Roth variant also releases the noisy answer of each "above" query: its rows are
``[codes (k), values (k)]``, shape (size, 2k), with value q_i + nu_i where the code is 1 and 0
elsewhere. A tie q_i + nu_i = T + rho has probability zero (rho is continuous); ">=" is used.

Variants (epsilon_1 + epsilon_2 = epsilon the claimed budget; c the cutoff):

============ ========================= ===================== ============ ====================
variant      source                    rho scale             nu scale     true epsilon
============ ========================= ===================== ============ ====================
lyu-alg1     Lyu Alg. 1 (c = 1: Dwork   Delta/eps1, eps1=eps/2 2c Delta/eps2 eps (c = 1: sup,
             & Roth AboveThreshold)                                       not attained)
roth         Lyu Alg. 3 (Roth 2011)     Delta/eps1, eps1=eps/2 c Delta/eps2  infinite
lee-clifton  Lyu Alg. 4 (Lee & Clifton) Delta/eps1, eps1=eps/4 Delta/eps2   (1 + 6c) eps / 4
stoddard     Lyu Alg. 5 (Stoddard+)     Delta/eps1, eps1=eps/2 none (0)     infinite (attained)
chen         Lyu Alg. 6 (Chen+)         Delta/eps1, eps1=eps/2 Delta/eps2   infinite
============ ========================= ===================== ============ ====================

Stoddard and Chen have no cutoff (every query is answered); the others stop after c "above".
The derivations are in :class:`SparseVector`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution
from dpaudit.core.validation import choice, exact_vector, finite_number, integer, positive, query_vector

from ..base import ExactRelease
from ..enclosures import from_enclosures
from ..piecewise import PiecewiseExp, enclose

ABOVE, BELOW, UNANSWERED = 1, 0, -1
MAX_EXACT_OUTCOMES = 4096
DISTRIBUTION_CACHE = 32


@dataclass(frozen=True)
class _Variant:
    source: str
    threshold_share: Fraction  # epsilon_1 / epsilon
    query_noise: str  # "2c" (2c Delta/eps2), "c" (c Delta/eps2), "1" (Delta/eps2) or "none"
    cutoff: bool
    releases_value: bool


VARIANTS = {
    "lyu-alg1": _Variant("Lyu, Su & Li 2017, Alg. 1 (c = 1: Dwork & Roth 2014, AboveThreshold)", Fraction(1, 2), "2c",
                         True, False),
    "roth": _Variant("Lyu, Su & Li 2017, Alg. 3 (Roth 2011 lecture notes)", Fraction(1, 2), "c", True, True),
    "lee-clifton": _Variant("Lyu, Su & Li 2017, Alg. 4 (Lee & Clifton 2014)", Fraction(1, 4), "1", True, False),
    "stoddard": _Variant("Lyu, Su & Li 2017, Alg. 5 (Stoddard, Chen & Machanavajjhala 2014)", Fraction(1, 2), "none",
                         False, False),
    "chen": _Variant("Lyu, Su & Li 2017, Alg. 6 (Chen, Xu & Zhou 2015)", Fraction(1, 2), "1", False, False),
}


class SparseVector(ExactRelease):
    """One sparse-vector variant (see the module table) with claimed budget ``epsilon``, threshold
    ``threshold`` T, cutoff ``cutoff`` c (variants with a cutoff only) and query sensitivity Delta.

    Procedure (Lyu et al. Fig. 1): rho ~ Lap(Delta/eps1); for i = 1..k: nu_i ~ Lap(scale) (0 for
    stoddard); if q_i + nu_i >= T + rho output "above" (roth: output q_i + nu_i) and, with a
    cutoff, stop after the c-th "above"; else output "below". The threshold noise is drawn once
    and never refreshed (refreshing after each "above" is Lyu's Alg. 2, not implemented here).

    **True epsilon, derived.** Write F, S = 1 - F for the CDF and survival function of nu, x = T + z
    for the noisy threshold (z the value of rho), so that

        P_q(pattern) = integral p_rho(z) prod_{i below} F(x - q_i) prod_{i above} S(x - q_i) dz.

    Neighbour coupling (Lyu et al., proof of Thm 1): for the pattern (below^m, above), let
    q' have the below-answers raised and the above-answer lowered by Delta; substituting z -> z + Delta
    in P_q' leaves the below-factors unchanged and turns the rest into
    p_rho(z + Delta) S(x - q_above + 2 Delta), whose ratio to p_rho(z) S(x - q_above) is at most
    e^{Delta/b_rho} e^{2 Delta/b_nu}, with equality where z >= 0 and x >= q_above (right tails).

    - *lyu-alg1*: Delta/b_rho = eps1 and 2 Delta/b_nu = eps2/c per "above", so eps1 + eps2 = epsilon with
      c "above" answers: the proven bound for every c (Lyu Thm 1). For c = 1 it is also the
      supremum: with the m below-answers at a value A -> infinity (the above-answer at most T), the weight
      p_rho(z + Delta) F(x - A)^m S(x - q_above + 2 Delta) grows on [0, A - T] like
      exp(z (m/b_nu - 1/b_rho - 1/b_nu)), which is flat or increasing once
      m >= 1 + b_nu/b_rho = 3, so its mass moves to where the ratio is exactly e^epsilon: the loss
      tends to epsilon with k >= 4 queries but is never attained.
    - *lee-clifton*: Delta/b_rho = eps/4 and 2 Delta/b_nu = 2 eps2 = 3 eps/2 per "above" (the query noise
      does not scale with c), so ((1 + 6c)/4) eps in general (Lyu et al.) and 7 eps/4 for c = 1: a
      supremum approached by the same construction once m >= 1 + b_nu/b_rho = 4/3, i.e. with two
      below-answers before the above-answer.
    - *chen* (no cutoff): take the pattern (below^m, above^m) with q = (Delta^m, 0^m) and
      q' = (0^m, Delta^m). For every fixed z the integrand ratio is g(x)^m with
      g(x) = F(x - Delta)/F(x) * S(x)/S(x - Delta) < 1, and sup_x g < 1 (g is continuous and tends to
      e^{-Delta/b_nu} < 1 at both ends), so P_q <= (sup g)^m P_q': the loss grows linearly in m and is
      unbounded over streams, **infinite**. At a fixed pair it is finite (the exact auditor computes it).
    - *stoddard* (no query noise): the pattern is a deterministic function of rho: query i is above
      iff rho <= q_i - T. With q = (0, Delta) and q' = (Delta, 0), the pattern (below, above) has
      probability P[-T < rho <= Delta - T] > 0 under q and 0 under q'. **Infinite, attained** (on
      StatDP's pairs too, e.g. (1,1,1,1,1) vs (2,0,0,0,0): (above, below, below, below, below) is
      impossible under the first).
    - *roth* (releases the noisy answer): with (below^{k-1}, above at value v), the density is
      p_nu(v - q_k) integral_{z <= v - T} p_rho(z) prod_{i<k} F(T + z - q_i) dz. For q' = q + Delta
      (all above) and v <= min q, every argument of F and p_nu is in the left tail, where each factor's
      log moves by exactly Delta/b_nu: the loss is k Delta/b_nu = k eps/(2c) exactly on that region,
      unbounded in k: **infinite**. No exact distribution (mixed discrete/continuous output).

    Exact distribution (:meth:`distribution`, symbol-only variants): every pattern's probability is
    the integral above, a product of piecewise exponentials (:mod:`.piecewise`), enumerated over the
    reachable patterns (answers after the cutoff are -1) and enclosed with interval arithmetic.
    """

    paper = "Lyu, Su & Li 2017"
    source = "Figure 1, Algorithms 1 and 3-6 (one variant each, see VARIANTS)"

    def __init__(self, epsilon: float, threshold: float, variant: str = "lyu-alg1", cutoff: int | None = None,
                 sensitivity: float = 1.0):
        self.variant = choice(self.owner, "variant", variant, tuple(VARIANTS))
        spec = VARIANTS[self.variant]
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.threshold = finite_number(self.owner, "threshold", threshold)
        self.sensitivity = positive(self.owner, "sensitivity", sensitivity)
        if spec.cutoff:
            self.cutoff = integer(self.owner, "cutoff", 1 if cutoff is None else cutoff, 1)
        elif cutoff is not None:
            raise ValueError(f"{self.owner}: cutoff must be None for the {self.variant!r} variant, which has no cutoff")
        else:
            self.cutoff = None
        self.spec = spec
        eps, delta = Fraction(self.epsilon), Fraction(self.sensitivity)
        eps1 = spec.threshold_share * eps
        eps2 = eps - eps1
        self.threshold_scale = delta / eps1
        c = self.cutoff or 1
        scales = {"2c": 2 * c * delta / eps2, "c": c * delta / eps2, "1": delta / eps2, "none": None}
        self.query_scale = scales[spec.query_noise]
        cut = f", c={self.cutoff}" if self.cutoff is not None else ""
        self.name = f"SparseVector({self.variant}, eps={self.epsilon:g}, T={self.threshold:g}{cut})"

    @property
    def releases_value(self) -> bool:
        return self.spec.releases_value

    def _input(self, data: Any) -> np.ndarray:
        """The answers of the stream of queries, checked (any length k >= 1)."""
        return query_vector(self.owner, data)

    def _sample(self, q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        k = q.size
        rho = rng.laplace(0.0, float(self.threshold_scale), size)
        if self.query_scale is None:
            noisy = np.broadcast_to(q, (size, k))
        else:
            noisy = q + rng.laplace(0.0, float(self.query_scale), (size, k))
        above = noisy >= (self.threshold + rho)[:, None]
        codes = above.astype(np.int64)
        if self.cutoff is not None:
            # answered while fewer than c "above" came before this query; the running count goes down
            # the transposed array (numpy's cumsum along short rows is several times slower) in a
            # small integer type (it never exceeds k)
            count_type = np.int16 if k < 2**15 else np.int64
            before = np.cumsum(above.T, axis=0, dtype=count_type).T - above
            np.putmask(codes, before >= self.cutoff, UNANSWERED)
        if not self.releases_value:
            return codes
        values = np.where(codes == ABOVE, noisy, 0.0)
        return np.concatenate([codes.astype(float), values], axis=1)

    # -- exact distribution ---------------------------------------------------------------------
    def patterns(self, k: int) -> np.ndarray:
        """Every output row reachable with k queries, in a fixed order (shape (m, k))."""
        out: list[list[int]] = []

        def extend(prefix: list[int], aboves: int) -> None:
            if len(prefix) == k:
                out.append(prefix)
                return
            if self.cutoff is not None and aboves >= self.cutoff:
                out.append(prefix + [UNANSWERED] * (k - len(prefix)))
                return
            extend(prefix + [BELOW], aboves)
            extend(prefix + [ABOVE], aboves + 1)

        extend([], 0)
        return np.array(out, dtype=np.int64)

    def _factor(self, answer: Fraction, above: bool) -> PiecewiseExp:
        """P[answer + nu >= T + z] (above) or P[answer + nu < T + z] (below) as a function of z."""
        loc = answer - Fraction(self.threshold)
        if self.query_scale is None:
            return PiecewiseExp.indicator_below(loc) if above else PiecewiseExp.indicator_above(loc)
        if above:
            return PiecewiseExp.laplace_sf(loc, self.query_scale)
        return PiecewiseExp.laplace_cdf(loc, self.query_scale)

    def distribution(self, data: Any) -> FiniteDistribution:
        # refused before the input is looked at: the Roth variant's output is mixed discrete/continuous
        if self.releases_value:
            raise TypeError(f"{self.name} releases noisy answers: its output has no finite distribution")
        return super().distribution(data)

    def _distribution(self, q: np.ndarray) -> FiniteDistribution:
        key = tuple(q.tolist())
        # audits reuse one input across many pairs (StatDP's patterns share their first input)
        cache = self.__dict__.setdefault("_distribution_cache", {})
        if key not in cache:
            if len(cache) >= DISTRIBUTION_CACHE:
                cache.pop(next(iter(cache)))
            cache[key] = self._pattern_law(key)
        return cache[key]

    def _pattern_law(self, answers: tuple[float, ...]) -> FiniteDistribution:
        """Every reachable pattern's probability on the answers ``answers`` (the class docstring)."""
        q = exact_vector(np.asarray(answers))
        patterns = self.patterns(len(q))
        if len(patterns) > MAX_EXACT_OUTCOMES:
            raise ValueError(f"{self.owner}: {len(patterns)} output patterns are too many for the exact distribution")
        factors = {(i, a): self._factor(q[i], a) for i in range(len(q)) for a in (False, True)}
        prefix_cache: dict[tuple[int, ...], PiecewiseExp] = {
            (): PiecewiseExp.laplace_pdf(Fraction(0), self.threshold_scale)}

        def prefix_product(prefix: tuple[int, ...]) -> PiecewiseExp:
            # product of p_rho and the factors of the answered queries, shared between patterns
            if prefix not in prefix_cache:
                prefix_cache[prefix] = prefix_product(prefix[:-1]) * factors[(len(prefix) - 1, prefix[-1] == ABOVE)]
            return prefix_cache[prefix]

        enclosures = []
        for row in patterns:
            answered = tuple(int(v) for v in row if v != UNANSWERED)
            enclosures.append(enclose(prefix_product(answered).integral()))
        return from_enclosures(patterns, enclosures)


def above_threshold(epsilon: float, threshold: float, sensitivity: float = 1.0) -> SparseVector:
    """Dwork & Roth (2014), Algorithm 1 (AboveThreshold): Lyu's Alg. 1 with c = 1, i.e.
    rho ~ Lap(2 Delta/epsilon), nu_i ~ Lap(4 Delta/epsilon), stop at the first "above"."""
    return SparseVector(epsilon, threshold, "lyu-alg1", cutoff=1, sensitivity=sensitivity)


__all__ = ["ABOVE", "BELOW", "UNANSWERED", "VARIANTS", "SparseVector", "above_threshold"]
