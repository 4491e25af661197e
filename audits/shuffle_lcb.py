"""shuffle-lcb: Chowdhury & Zhou, Shuffle Private Linear Contextual Bandits (ICML 2022).

Tail claims about the noise of the bit-based vector summation P_Vec (proof of Theorem C.1),
audited exactly from closed-form cumulant functions. In units of Delta/g, one entry's error over a
batch of B users is sum_i iota_1,i + sum_i iota_2,i: iota_1 the randomized-rounding error (a
two-point law for each input) and sum_i iota_2,i = Bin(B b, 1/4) - B b / 4. The inputs are taken
with fractional part 1/2 after scaling (the largest rounding variance, so the hardest case for a
variance-proxy claim).

Parameter points: the paper's experiment, d = 5, B = 20, delta = 0.1, eps in {0.2, 1, 10};
g = max{ceil(2 sqrt B), d, 4} = 9 and b = ceil(24 10^4 g^2 log^2(4 (d^2 + 1) / delta) / (eps^2 B))
(natural log; the integer rounding of g and b is the spec's choice), e.g. b = 46,904,937 at eps = 1.

Encoded (id -> statement):
  - thmC.1-tail: the per-entry, per-batch error is mean-zero sub-Gaussian with variance proxy
    (Delta^2/g^2)(B + B b / 4); its parts: iota_1 is 1-sub-Gaussian, and sum iota_2 is
    (B b / 4)-sub-Gaussian.

Left out (with why):
  - remark3.10 (noise variance orders T/eps^2 and log T/eps^2), lemA.4-tail (constants c1, c2 of
    Vershynin's bounds unspecified), lemA.2-tail (a confidence ellipsoid of the algorithm: audited
    with the algorithms), the reward noise being 1-sub-Gaussian (Hoeffding's lemma, no id; the
    same fact as dist-mab/claim1).
  - thmC.1-accuracy (unbiasedness): a moment identity, checked when P_Vec is implemented.
  - privacy, regret and communication claims: other issues.
"""

from __future__ import annotations

import math

from dpaudit import SubGaussian
from dpaudit.mechanisms import noise
from dpaudit.suite import Suite

suite = Suite("shuffle-lcb", "Chowdhury & Zhou, Shuffle Private Linear Contextual Bandits (ICML 2022)")

D, B, DELTA = 5, 20, 0.1


def p_vec_parameters(eps: float, delta: float = DELTA, d: int = D, users: int = B) -> tuple[int, int]:
    """(g, b) of Theorem C.1: g = max{ceil(2 sqrt B), d, 4}, b = ceil(24e4 g^2 log^2(4 (d^2 + 1) / delta) / (eps^2 B))."""
    g = max(math.ceil(2 * math.sqrt(users)), d, 4)
    b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (eps**2 * users))
    return g, b


for eps in (0.2, 1.0, 10.0):
    g, b = p_vec_parameters(eps)
    rounding = noise.Binomial(B, 0.5)  # sum of B rounded inputs with fraction 1/2: Bin(B, 1/2) + const
    bits = noise.Binomial(B * b, 0.25)
    error = noise.IndependentSum(rounding, bits, name=f"P_Vec entry error x g/Delta (B = {B}, b = {b:,})")
    suite.tail(f"shuffle-lcb/thmC.1-tail@eps{eps:g}", subject=error, auditor="exact",
               claim=SubGaussian(math.sqrt(B + B * b / 4), centred=True),
               title=f"P_Vec entry error (eps = {eps:g}, g = {g}, b = {b:,}) is (1/g^2)(B + Bb/4)-sub-Gaussian")
    suite.tail(f"shuffle-lcb/thmC.1-tail@binomial,eps{eps:g}", subject=bits, auditor="exact",
               claim=SubGaussian(math.sqrt(B * b / 4), centred=True),
               title=f"sum of the binomial noise Bin(Bb, 1/4) - Bb/4 is (Bb/4)-sub-Gaussian (eps = {eps:g})")
suite.tail("shuffle-lcb/thmC.1-tail@rounding", subject=noise.FiniteIntegerLaw(0, [0.5, 0.5], name="x_hat at frac 1/2"),
           claim=SubGaussian(1.0, centred=True), auditor="exact",
           title="the rounding error iota_1 in [-1, 1] is 1-sub-Gaussian")
