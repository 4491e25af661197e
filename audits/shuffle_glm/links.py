"""shuffle-glm, Appendix G: the analytic facts about the link mu that the confidence sets (Lemmas E.4, E.5,
J.2, M.2) are built on, checked for each link the paper uses (logistic in Sections 5-6, probit in the
experiments of Section 8 and Appendix A), with R = 1 (rewards in [0, 1]).

Encoded (id -> statement, checked on a grid of z in [-8, 8], step 1/4, every ordered pair z1 != z2):
  - lemG.1: |mu''(z)| <= R mu'(z) for all z (an exponential family on [0, R]).
  - lemG.2: alpha(z1, z2) := int_0^1 mu'(z1 + v (z2 - z1)) dv >= mu'(z) / (1 + R |z1 - z2|) for z in {z1, z2};
    mu'(z2) e^{-R |z2 - z1|} <= mu'(z1) <= e^{R |z2 - z1|} mu'(z2);
    alpha~(z1, z2) := int_0^1 (1 - v) mu'(z1 + v (z2 - z1)) dv >= mu'(z1) / (2 + R |z1 - z2|).
  - claimobs2: b is convex (b'' = Var >= 0), for the logistic model (b(z) = log(1 + e^z)).
Each is a claim made of proof steps (:class:`~dpaudit.LowerBound` without a bound, the lower-bound auditor's
steps-only path): every inequality is one step over the grid, its worst point (least margin) reported as the
record's statistic, a failing point as the witness.

How the sides are computed: in closed form, in mpmath at 50 significant digits, then rounded to floats (the
auditor's relative tolerance is 1e-12, so rounding cannot move a margin across zero unless it is within
1e-12 of a side). With M an antiderivative of mu (M' = mu), substituting u = z1 + v h, h = z2 - z1 != 0:
    alpha = (mu(z2) - mu(z1)) / h,   alpha~ = (M(z2) - M(z1) - mu(z1) h) / h^2;
for the logistic link M = b, the log-partition log(1 + e^z) (alpha~ is b's Bregman divergence over h^2),
for the probit link M(z) = z Phi(z) + phi(z). mu'' is mu'(1 - 2 mu) (logistic) and -z phi(z) (probit).
claimobs2's steps: b'' = mu' >= 0 in closed form, and b's second differences on the grid.

Choices where the paper is silent: the grid (|z| <= 8 covers |<x, theta>| <= S for every S the paper runs,
S <= 3.5, with room; step 1/4); z1 = z2 is left out (every inequality of lemG.2 is an equality or trivial
there: alpha = mu'(z), alpha~ = mu'(z)/2, and a tight float equality cannot be decided).

Outside the lemmas' hypotheses (footing "hypothesis not met"): the probit link is not a canonical exponential
family, and |mu''/mu'| = |z| exceeds R = 1 for |z| > 1, so lemG.1 and lemG.2's middle inequality fail for it
(the lemmas are not refuted: the experiments run a link they do not cover); lemG.2 is also audited for probit on
|z| <= 1, where lemG.1 holds (and with it the proof's integration of mu''/mu').

  - lemG.3: E[r] = b'(z), Var[r] = b''(z), E[(r - E r)^3] = b'''(z) for the logistic model (Bernoulli rewards,
    b(z) = log(1 + e^z)): each identity a step with relation "==" on the grid, the moments summed over the reward
    law r in {0, 1} with P(r = 1) = 1/(1 + e^{-z}), the derivatives of b taken numerically by mpmath
    (``mpmath.diff``, at 50 digits), so neither side is derived from the other.

Left out: claimobs2 and lemG.3 for probit (no log-partition b: the probit model is not an exponential family in z).
"""

from __future__ import annotations

import functools

import mpmath
import numpy as np

from dpaudit import LowerBound, ProofStep

from ._suite import suite

#: working precision of the closed forms (significant digits)
DPS = 50
#: reward bound R (rewards in [0, 1])
R = 1.0
LINKS = ("logistic", "probit")


def _functions(link: str):
    """(mu, mu', mu'', M) of ``link`` as mpmath functions (M' = mu)."""
    if link == "logistic":
        def mu(z):
            return 1 / (1 + mpmath.exp(-z))

        def slope(z):
            m = mu(z)
            return m * (1 - m)

        def curvature(z):
            m = mu(z)
            return m * (1 - m) * (1 - 2 * m)

        def primitive(z):
            return mpmath.log1p(mpmath.exp(z))
    elif link == "probit":
        def mu(z):
            return mpmath.ncdf(z)

        def slope(z):
            return mpmath.npdf(z)

        def curvature(z):
            return -z * mpmath.npdf(z)

        def primitive(z):
            return z * mpmath.ncdf(z) + mpmath.npdf(z)
    else:
        raise ValueError(f"link must be one of {LINKS}, got {link!r}")
    return mu, slope, curvature, primitive


def grid(p) -> np.ndarray:
    """The z grid of the point: z_max * [-1, 1] in steps of ``step``."""
    count = int(round(2 * p["z_max"] / p["step"])) + 1
    return np.round(np.linspace(-p["z_max"], p["z_max"], count), 12)


@functools.lru_cache(maxsize=16)
def _pair_table(link: str, R: float, z_max: float, step: float) -> dict[str, np.ndarray]:
    """Every lemG.2 quantity on the ordered pairs z1 != z2 of the grid, as floats rounded from mpmath."""
    mu, slope, _, primitive = _functions(link)
    z = grid({"z_max": z_max, "step": step})
    with mpmath.workdps(DPS):
        zs = [mpmath.mpf(float(v)) for v in z]
        m = [mu(v) for v in zs]
        s = [slope(v) for v in zs]
        big = [primitive(v) for v in zs]
        rows: dict[str, list] = {k: [] for k in ("z1", "z2", "alpha", "alpha_t", "s1", "s2", "lo1", "lo2", "lo_t",
                                                 "down", "up")}
        for i in range(len(zs)):
            for j in range(len(zs)):
                if i == j:
                    continue
                h = zs[j] - zs[i]
                a = abs(h)
                rows["z1"].append(z[i])
                rows["z2"].append(z[j])
                rows["alpha"].append(float((m[j] - m[i]) / h))
                rows["alpha_t"].append(float((big[j] - big[i] - m[i] * h) / h**2))
                rows["lo1"].append(float(s[i] / (1 + R * a)))
                rows["lo2"].append(float(s[j] / (1 + R * a)))
                rows["lo_t"].append(float(s[i] / (2 + R * a)))
                rows["down"].append(float(s[j] * mpmath.exp(-R * a)))
                rows["up"].append(float(s[j] * mpmath.exp(R * a)))
                rows["s1"].append(float(s[i]))
                rows["s2"].append(float(s[j]))
    return {k: np.asarray(v, dtype=float) for k, v in rows.items()}


@functools.lru_cache(maxsize=16)
def _point_table(link: str, z_max: float, step: float) -> dict[str, np.ndarray]:
    """mu', |mu''| and (logistic) b's second differences on the grid, as floats rounded from mpmath."""
    _, slope, curvature, primitive = _functions(link)
    z = grid({"z_max": z_max, "step": step})
    with mpmath.workdps(DPS):
        zs = [mpmath.mpf(float(v)) for v in z]
        h = mpmath.mpf(float(step))
        out = {"z": z, "slope": np.array([float(slope(v)) for v in zs]),
               "curvature": np.array([float(abs(curvature(v))) for v in zs]),
               "second_difference": np.array([float(primitive(v + h) - 2 * primitive(v) + primitive(v - h))
                                              for v in zs])}
    return out


def _pairs(p) -> dict[str, np.ndarray]:
    return _pair_table(p["link"], float(p["R"]), float(p["z_max"]), float(p["step"]))


def _where(t) -> dict[str, np.ndarray]:
    return {"z1": t["z1"], "z2": t["z2"]}


def _alpha_z1(p):
    t = _pairs(p)
    return t["alpha"], t["lo1"], _where(t)


def _alpha_z2(p):
    t = _pairs(p)
    return t["alpha"], t["lo2"], _where(t)


def _slope_down(p):
    t = _pairs(p)
    return t["down"], t["s1"], _where(t)


def _slope_up(p):
    t = _pairs(p)
    return t["s1"], t["up"], _where(t)


def _alpha_tilde(p):
    t = _pairs(p)
    return t["alpha_t"], t["lo_t"], _where(t)


def _curvature(p):
    t = _point_table(p["link"], float(p["z_max"]), float(p["step"]))
    return t["curvature"], p["R"] * t["slope"], {"z": t["z"]}


def _b_second_derivative(p):
    t = _point_table(p["link"], float(p["z_max"]), float(p["step"]))
    return t["slope"], np.zeros_like(t["slope"]), {"z": t["z"]}


def _b_second_difference(p):
    t = _point_table(p["link"], float(p["z_max"]), float(p["step"]))
    return t["second_difference"], np.zeros_like(t["slope"]), {"z": t["z"]}


G2_STEPS = (
    ProofStep("alpha >= mu'(z1)/(1 + R|z1 - z2|)", "alpha(z1, z2) >= mu'(z1)/(1 + R |z1 - z2|)", _alpha_z1),
    ProofStep("alpha >= mu'(z2)/(1 + R|z1 - z2|)", "alpha(z1, z2) >= mu'(z2)/(1 + R |z1 - z2|)", _alpha_z2),
    ProofStep("mu'(z2) e^{-R|z2 - z1|} <= mu'(z1)", "mu'(z2) e^{-R |z2 - z1|} <= mu'(z1)", _slope_down, "<="),
    ProofStep("mu'(z1) <= e^{R|z2 - z1|} mu'(z2)", "mu'(z1) <= e^{R |z2 - z1|} mu'(z2)", _slope_up, "<="),
    ProofStep("alpha~ >= mu'(z1)/(2 + R|z1 - z2|)", "alpha~(z1, z2) >= mu'(z1)/(2 + R |z1 - z2|)", _alpha_tilde),
)
G1_STEP = ProofStep("|mu''| <= R mu'", "|mu''(z)| <= R mu'(z)", _curvature, "<=")
OBS2_STEPS = (ProofStep("b'' = mu' >= 0", "b''(z) = Var[r] = mu'(z) >= 0", _b_second_derivative),
              ProofStep("second differences of b >= 0", "b(z + s) - 2 b(z) + b(z - s) >= 0", _b_second_difference))

G1_TEXT = "Lemma G.1: for an exponential family on [0, R], |mu''(z)| <= R mu'(z) for all z"
@functools.lru_cache(maxsize=4)
def _moment_table(z_max: float, step: float) -> dict[str, np.ndarray]:
    """The logistic model's first three central moments (from the Bernoulli law) and b's first three derivatives
    (numerical differentiation of b = log(1 + e^z)) on the grid, as floats rounded from mpmath."""
    z = grid({"z_max": z_max, "step": step})
    out: dict[str, list] = {k: [] for k in ("mean", "variance", "third", "b1", "b2", "b3")}
    with mpmath.workdps(DPS):
        for v in z:
            zv = mpmath.mpf(float(v))
            p1 = 1 / (1 + mpmath.exp(-zv))
            law = ((mpmath.mpf(0), 1 - p1), (mpmath.mpf(1), p1))
            mean = sum(r * q for r, q in law)
            out["mean"].append(float(mean))
            out["variance"].append(float(sum((r - mean) ** 2 * q for r, q in law)))
            out["third"].append(float(sum((r - mean) ** 3 * q for r, q in law)))
            for k in (1, 2, 3):
                # numerical differentiation leaves ~1e-67 where the derivative is 0 (b''' at z = 0): chopped at
                # 1e-40, far below the doubles' resolution of the values compared
                derivative = mpmath.diff(lambda u: mpmath.log1p(mpmath.exp(u)), zv, k)
                out[f"b{k}"].append(float(mpmath.chop(derivative, tol=mpmath.mpf(10) ** -40)))
    return {"z": z, **{k: np.asarray(v, dtype=float) for k, v in out.items()}}


def _moment_step(moment: str, derivative: str):
    def sides(p):
        t = _moment_table(float(p["z_max"]), float(p["step"]))
        return t[moment], t[derivative], {"z": t["z"]}
    return sides


G3_STEPS = (ProofStep("E[r] = b'(z)", "E[r] = mu(z) = b'(z)", _moment_step("mean", "b1"), "=="),
            ProofStep("Var[r] = b''(z)", "Var[r] = mu'(z) = b''(z)", _moment_step("variance", "b2"), "=="),
            ProofStep("E[(r - E r)^3] = b'''(z)", "E[(r - E r)^3] = b'''(z)", _moment_step("third", "b3"), "=="))
G3_TEXT = ("Lemma G.3: for a canonical exponential family, E[r] = mu(z) = b'(z), Var[r] = mu'(z) = b''(z), "
           "E[(r - E r)^3] = b'''(z)")

G2_TEXT = ("Lemma G.2: alpha(z1, z2) := int_0^1 mu'(z1 + v(z2 - z1)) dv >= mu'(z)/(1 + R|z1 - z2|) for z in {z1, z2}; "
           "mu'(z2) e^{-R|z2 - z1|} <= mu'(z1) <= e^{R|z2 - z1|} mu'(z2); alpha~(z1, z2) := int_0^1 (1 - v) "
           "mu'(z1 + v(z2 - z1)) dv >= mu'(z1)/(2 + R|z1 - z2|)")
OBS2_TEXT = "Observation 2: b(.) is convex (b'' = Var >= 0)"


def point(link: str, z_max: float = 8.0, step: float = 0.25, R: float = R) -> dict:
    """A claim's parameters: the link, the reward bound R and the grid z_max [-1, 1] in steps of ``step``."""
    return {"link": link, "R": R, "z_max": z_max, "step": step}


def lemg1_claim(p) -> LowerBound:
    return LowerBound(G1_TEXT, p, steps=(G1_STEP,))


def lemg2_claim(p) -> LowerBound:
    return LowerBound(G2_TEXT, p, steps=G2_STEPS)


def obs2_claim(p) -> LowerBound:
    return LowerBound(OBS2_TEXT, p, steps=OBS2_STEPS)


PROBIT_REASON = ("the probit model is not a canonical exponential family: |mu''(z)|/mu'(z) = |z| > R = 1 for |z| > 1 "
                 "(e.g. z = 8: |mu''| = 8 mu'), and mu'(z1)/mu'(z2) = e^{(z2^2 - z1^2)/2} exceeds e^{|z2 - z1|} "
                 "once |z1 + z2| > 2; the paper runs its experiments with the probit link")
#: what Appendix G assumes and what the probit link breaks: these refute the experiments' footing, not the lemmas
PROBIT_HYPOTHESIS = ("Lemmas G.1 and G.2 are stated for a canonical exponential family with responses in [0, R] "
                     "(mu = b', so mu'' is a bounded-response variance derivative); the probit link, which the "
                     "paper's experiments run, is not one")

suite.lower_bound("shuffle-glm/lemG.1@logistic,R1,z8", claim=lemg1_claim(point("logistic")),
                  title="Lemma G.1 for the logistic link, R = 1: |mu''| <= mu' on z in [-8, 8] (step 1/4), "
                        "closed forms at 50 digits")
suite.lower_bound("shuffle-glm/lemG.1@probit,R1,z8", claim=lemg1_claim(point("probit")), expected="refuted",
                  footing="hypothesis not met", reason=PROBIT_REASON,
                  hypothesis=PROBIT_HYPOTHESIS,
                  title="Lemma G.1 for the probit link of the experiments, R = 1: |mu''| <= mu' on z in [-8, 8]")
suite.lower_bound("shuffle-glm/lemG.2@logistic,R1,z8", claim=lemg2_claim(point("logistic")),
                  title="Lemma G.2 for the logistic link, R = 1: its five inequalities on every ordered pair z1 != z2 "
                        "of [-8, 8] (step 1/4), alpha and alpha~ in closed form (via b = log(1 + e^z)) at 50 digits")
suite.lower_bound("shuffle-glm/lemG.2@probit,R1,z8", claim=lemg2_claim(point("probit")), expected="refuted",
                  footing="hypothesis not met", reason=PROBIT_REASON,
                  hypothesis=PROBIT_HYPOTHESIS,
                  title="Lemma G.2 for the probit link of the experiments, R = 1: every ordered pair z1 != z2 of "
                        "[-8, 8] (step 1/4), alpha and alpha~ in closed form (via z Phi(z) + phi(z)) at 50 digits")
suite.lower_bound("shuffle-glm/lemG.2@probit,R1,z1", claim=lemg2_claim(point("probit", 1.0, 0.05)),
                  title="Lemma G.2 for the probit link, R = 1, on z in [-1, 1] (step 1/20), where Lemma G.1's "
                        "|mu''| <= mu' holds for probit")
suite.lower_bound("shuffle-glm/claimobs2@logistic,z8", claim=obs2_claim(point("logistic")),
                  title="Observation 2 for the logistic model, b(z) = log(1 + e^z): b'' = mu' >= 0 and b's second "
                        "differences >= 0 on z in [-8, 8] (step 1/4)")
suite.lower_bound("shuffle-glm/lemG.3@logistic,z8", claim=LowerBound(G3_TEXT, point("logistic"), steps=G3_STEPS),
                  title="Lemma G.3 for the logistic model (Bernoulli rewards, b(z) = log(1 + e^z)): its three moment "
                        "identities on z in [-8, 8] (step 1/4), moments from the law, b's derivatives numerically, at "
                        "50 digits")
