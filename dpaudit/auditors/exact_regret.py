"""Explicit regret bounds decided exactly, for algorithms whose expected regret can be computed.

A policy may offer ``exact_regret(environment, rounds, horizon)``: its expected pseudo-regret at each
of ``rounds`` when it runs for ``horizon`` rounds on ``environment`` (an array of the rounds' shape),
computed from the laws of its decisions rather than simulated, raising
:class:`~dpaudit.core.errors.UnsupportedAudit` for an environment it cannot treat exactly. That is the
case of lazy and elimination algorithms whose decisions depend on a few noisy releases on a small
instance: explore-then-commit (:class:`dpaudit.testing.ExploreThenCommit`) and DP-SE on two Bernoulli
arms (:class:`dpaudit.algorithms.mab.dp_se.DPSuccessiveElimination`: its epochs use fresh rewards,
so each epoch's elimination is an independent event whose probability is an exact sum over the
binomial law of the reward sums and the Laplace law of the noise).

For a policy started with its horizon (:mod:`dpaudit.bandits.horizons`) E[R_T] is computed for a run of horizon
T at every recorded T; for an anytime one, at every recorded round of a run of the largest horizon.
A bound E[R_T] <= f(T) is then decided with no sampling: verified when it holds at every round of the
grid, refuted at the first round where it fails (the witness), up to floating-point rounding (a
relative tolerance of 1e-9 on the comparison; the tests check each exact regret against simulation).
The high-probability form needs the law of R_T, not its mean, and is left to the statistical auditor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..bandits.environments import bernoulli_means
from ..core.claims import Claim, RegretBound
from ..core.errors import UnsupportedAudit
from ..core.results import REFUTED, VERIFIED, Statistic
from ..stats import difference_pmf
from .base import Auditor, Finding, RegretSubject, Support

#: relative tolerance of the comparison of the exact regret with the bound (floating-point rounding)
TOLERANCE = 1e-9


class ExactRegretAuditor(Auditor):
    """Decides a regret bound from the policy's exact expected regret (module docstring)."""

    name = "exact-regret"
    statistical = False

    def supports(self, subject: Any, claim: Claim) -> Support:
        if not isinstance(claim, RegretBound):
            return Support.no(f"the exact regret auditor tests RegretBound claims; got {claim.kind}", noted=False)
        if claim.probability is not None:
            return Support.no("a high-probability bound needs the law of the regret, not its mean")
        if not isinstance(subject, RegretSubject) or subject.policy is None:
            return Support.no("a regret bound is audited on one policy and environment", noted=False)
        if not callable(getattr(subject.policy, "exact_regret", None)):
            return Support.no("the policy has no exact regret (exact_regret)", noted=False)
        return Support.attempts()

    def audit(self, subject: RegretSubject, claim: RegretBound, *, horizons: np.ndarray, regret: str = "pseudo",
              reading: str = "horizon", **_: Any) -> Finding:
        from ..bandits.horizons import reading_of
        from ..bandits.simulation import PER_HORIZON

        self.require(subject, claim)
        if regret != "pseudo":
            raise UnsupportedAudit("the exact regret is the expected pseudo-regret")
        grid = np.asarray(horizons, dtype=np.int64)
        mode, why = reading_of(subject.policy, reading)
        policy = subject.policy
        if mode == PER_HORIZON:  # E[R_T] of a run started with horizon T, at every T (dpaudit.bandits.horizons)
            exact = np.array([np.asarray(policy.exact_regret(subject.environment, [T], int(T)), dtype=float).ravel()[0]
                              for T in grid])
            rounds = f"E[R_T] of a run of horizon T, at each of the {grid.size} recorded rounds"
        else:
            exact = np.asarray(policy.exact_regret(subject.environment, grid, int(grid[-1])), dtype=float)
            rounds = f"E[R_t] at each recorded round t of a run of horizon {int(grid[-1])}"
        if exact.shape != grid.shape or not np.isfinite(exact).all():
            raise ValueError(f"{subject.name}: exact_regret must return one finite value per round, got shape "
                             f"{exact.shape}")
        from .regret_bound import bound_parameters

        # two instances: a fixed one gives two equal rows and its gaps; instances that vary give none (as to the
        # statistical auditor), not the gaps of one instance drawn here
        means = np.asarray(subject.environment.instances(2, np.random.default_rng(0)).means, dtype=float)
        f = claim.evaluate(grid, bound_parameters(subject, means[None, :] if means.ndim == 1 else means))
        fails = exact > f + TOLERANCE * np.maximum(np.abs(f), 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(f > 0, exact / np.where(f > 0, f, 1.0), np.where(exact > f, np.inf, 0.0))
        j = int(np.argmax(fails)) if fails.any() else int(np.argmax(ratio))
        verdict = REFUTED if fails.any() else VERIFIED
        note = (f"E[R_T] computed exactly at {grid.size} rounds (up to floating-point rounding); "
                + (f"the bound fails first at T = {grid[j]}: {exact[j]:.6g} > {f[j]:.6g}" if fails.any()
                   else f"it is at most {float(ratio[j]):.4g} of the bound (T = {grid[j]})"))
        return Finding(
            verdict, self.name,
            Statistic(f"E[R_T] / f(T) at T={int(grid[j])}", float(ratio[j]), (float(ratio[j]), float(ratio[j])),
                      "exact"),
            confidence=1.0,
            witness={"T": int(grid[j]), "expected_regret": float(exact[j]), "bound": float(f[j]),
                     "margin": float(ratio[j]), "method": "exact expected regret"},
            notes=[note], parameters={"grid": grid, "exact_regret": exact, "bound": f,
                                      "reading": {"rounds": rounds, "why": why}},
            plot_data={"kind": "regret-bound", "grid": grid, "mean": exact, "lower": None, "bound": f,
                       "description": f"{claim.description} (the mean is exact)"},
        )


__all__ = ["TOLERANCE", "ExactRegretAuditor", "bernoulli_means", "difference_pmf"]
