"""Suite entries for canary audits: a training loop with canaries, run per budget, its canaries scored, and an
(epsilon, delta) claim about it audited from the scores (:func:`dpaudit.audit_canaries`).

The subject is a loop with ``scores(runs, present, rng, observe=..., statistic=...)`` (as
``dpaudit.mechanisms.training.CanaryTraining`` has), or a callable building one when first needed. ``design`` is
``"many"`` (``samples`` runs per side at each budget, the canary in or zeroed out; a score per run) or ``"one"``
(one run, each of the loop's canaries in with probability 1/2; a score per canary). ``score`` maps what the loop
returns to one score per run or canary (e.g. a likelihood ratio of every step, ``statistic="all"``); default: as
returned. The claim may be a callable returning one (a configuration's certified epsilon, computed when first
needed, listed or audited, so that loading the suites computes nothing). ``sequential=True`` runs the loop batch by
batch and stops at the first batch whose bets refute the claim (:mod:`dpaudit.auditors.canary_sequential`;
``samples`` is then the most runs per side it may take).

The simulations and the audit draw from three streams spawned from the entry's seed (canary in, canary out, the
audit's split or order). Where the loop describes its own DP-SGD run (``dpsgd_config()``: for a loop with a planted
bug, the run it really is), the record carries that run's certified epsilon bracket at the claim's delta in
``parameters["white_box"]`` and a note, so the report shows the bound, its ceiling and the white-box bracket side by
side.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from ..api.driver import AuditPlan
from ..api.records import Audit
from ..auditors.canary_scores import RUNS, CanaryScoresAuditor
from ..core.claims import ApproxDP, Claim, PureDP
from .budgets import BUDGETS, at_budget
from .entries import Entry, RunContext


class CanaryEntry(Entry):
    """An (epsilon, delta) or pure DP claim about a training loop, audited from its canaries' scores (module
    docstring). ``samples``: runs per side per budget (``design="many"``; e.g. ``{"quick": 100_000}``)."""

    def __init__(self, id: str, *, subject: Any, claim: Claim | Callable[[], Claim], design: str = "many",
                 samples: dict[str, int] | None = None, observe: str = "steps", statistic: str = "sum",
                 score: Callable[[np.ndarray], np.ndarray] | None = None, name: str | None = None,
                 sequential: bool = False, **kwargs: Any):
        if design not in RUNS:
            raise ValueError(f"{id}: design must be 'many' (a score per run) or 'one' (a score per canary of one "
                             f"run), got {design!r}")
        if design == "many" and not samples:
            raise ValueError(f"{id}: a many-run canary entry needs samples (runs per side per budget, e.g. "
                             "{'quick': 100000})")
        if design == "one" and (samples or sequential):
            raise ValueError(f"{id}: a one-run canary entry runs once; its canaries are the loop's (no samples, not "
                             "sequential)")
        if samples and ("quick" not in samples or set(samples) - set(BUDGETS)
                        or any(not isinstance(v, int) or v < 2 for v in samples.values())):
            raise ValueError(f"{id}: samples needs the quick budget's runs per side (integers >= 2), only budgets of "
                             f"{BUDGETS}; got {samples!r}")
        placeholder = claim if isinstance(claim, Claim) else ApproxDP(0.0, 0.5)
        super().__init__(id, claim=placeholder, **kwargs)
        self._claim_source = claim
        self._subject = subject
        self._name = name
        self.design = design
        self.samples = samples or {}
        self.observe = observe
        self.statistic = statistic
        self.score = score
        self.sequential = bool(sequential)

    @cached_property
    def claim(self) -> Claim:
        if isinstance(self._claim_source, Claim):
            return self._claim_source
        claim = self._claim_source()
        if not isinstance(claim, (ApproxDP, PureDP)):
            raise TypeError(f"{self.id}: the claim callable must return an ApproxDP or PureDP claim, got {claim!r}")
        return claim

    @cached_property
    def subject(self) -> Any:
        loop = self._subject() if callable(self._subject) and not hasattr(self._subject, "scores") else self._subject
        if not callable(getattr(loop, "scores", None)):
            raise TypeError(f"{self.id}: a canary entry's subject needs scores(runs, present, rng, observe=, "
                            f"statistic=) (e.g. CanaryTraining), got {loop!r}")
        return loop

    @property
    def subject_name(self) -> str:
        if self._name is not None:
            return self._name
        describe = getattr(self.subject, "dpsgd_config", None)
        return describe().describe() if callable(describe) else type(self.subject).__name__

    def _plan(self) -> AuditPlan:
        return AuditPlan(CanaryScoresAuditor(), statistical=True)

    @property
    def auditor(self) -> str:
        return "canary-scores"

    def _scored(self, raw: np.ndarray) -> np.ndarray:
        return np.asarray(self.score(raw) if self.score is not None else raw, dtype=float)

    def _scores(self, ctx: RunContext, streams: list[np.random.SeedSequence]) -> tuple[np.ndarray, np.ndarray]:
        loop, options = self.subject, {"observe": self.observe, "statistic": self.statistic}
        if self.design == "many":
            runs = at_budget(self.samples, ctx.budget)
            inside = self._scored(loop.scores(runs, True, np.random.default_rng(streams[0]), **options))
            outside = self._scored(loop.scores(runs, False, np.random.default_rng(streams[1]), **options))
            return inside.reshape(-1), outside.reshape(-1)
        canaries = int(getattr(loop, "k", 1))
        present = np.random.default_rng(streams[0]).random((1, canaries)) < 0.5
        values = self._scored(loop.scores(1, present, np.random.default_rng(streams[1]), **options)).reshape(-1)
        return values[present[0]], values[~present[0]]

    def audit(self, ctx: RunContext) -> Audit:
        from ..api.canary import canary_audit

        streams = ctx.seed_sequence.spawn(3)
        if self.sequential:  # the loop runs batch by batch, only as far as the audit asks
            loop, options = self.subject, {"observe": self.observe, "statistic": self.statistic}
            rngs = {"in": np.random.default_rng(streams[0]), "out": np.random.default_rng(streams[1])}

            def draw(side: str, count: int) -> np.ndarray:
                return self._scored(loop.scores(count, side == "in", rngs[side], **options)).reshape(-1)

            audit = canary_audit(None, None, self.claim, alpha=ctx.alpha, seed=streams[2], sequential=True,
                                 name=self.subject_name, draw=draw, budget=at_budget(self.samples, ctx.budget))
        else:
            inside, outside = self._scores(ctx, streams)
            audit = canary_audit(inside, outside, self.claim, runs=self.design, alpha=ctx.alpha, seed=streams[2],
                                 name=self.subject_name)
        describe = getattr(self.subject, "dpsgd_config", None)
        delta = float(getattr(self.claim, "delta", 0.0))
        if callable(describe) and delta > 0:
            bracket = _certified(describe(), delta)
            finding = audit.finding
            finding.parameters["white_box"] = [bracket.eps_lower, bracket.eps_upper]
            finding.notes.append(f"white-box: the loop's DP-SGD run has certified epsilon in "
                                 f"[{bracket.eps_lower:.4g}, {bracket.eps_upper:.4g}] at delta {delta:g}")
        return audit


@functools.lru_cache(maxsize=32)
def _certified(config: Any, delta: float) -> Any:
    """The certified bracket of a DP-SGD run at ``delta``, kept: entries of one suite often share a configuration."""
    from ..exact.accounting import certify

    return certify(config, delta=delta)


__all__ = ["CanaryEntry"]
