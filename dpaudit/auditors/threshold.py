"""Statistical (black-box) auditor with threshold events and Clopper-Pearson bounds.

For a pair (d0, d1) and an event S, any (epsilon, delta)-DP mechanism satisfies
P[M(d0) in S] <= e^epsilon P[M(d1) in S] + delta, in both orders. With one-sided
Clopper-Pearson bounds p0 >= p0_lo and p1 <= p1_hi (each at level alpha/2, so both hold with
probability >= 1 - alpha) this certifies

    epsilon >= log(p0_lo / p1_hi)              (pure DP)
    delta   >= p0_lo - e^epsilon * p1_hi       (approximate DP, at the claimed epsilon)

Procedure, with ``samples`` outputs per side of each pair:

1. selection: on the first ``selection_fraction`` of the samples of every pair, score every
   threshold event {x >= t} and {x <= t} (t over the pooled sample quantiles, or every value for
   discrete outputs), in both orders of the pair, by the same bound computed at level
   0.05 / (number of candidates), so rare events with lucky counts do not win; keep the best
   (pair, event, order);
2. confirmation: on fresh samples of that pair only, count the event on both sides and
   certify the bound above. Confirmation sees one event, so no multiplicity is paid; selection
   never touches the confirmation samples.

The bound has no cap: when the event never occurs on one side, p1_hi = 1 - (alpha/2)^(1/n) and
the certified epsilon grows like log n. Outputs must be scalars, or be reduced to one by a
``statistic`` (feature) function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..claims import ApproxDP, Claim, PureDP
from ..errors import MechanismError, UnsupportedAudit
from ..results import NOT_REFUTED, REFUTED, AuditResult, Statistic
from ..stats import binomial_lower, binomial_upper
from ..subjects import Mechanism

# Family-wise level of the selection scores (a heuristic: validity comes from confirmation).
SELECTION_LEVEL = 0.05
MAX_DISCRETE_VALUES = 4096
QUANTILE_LEVELS = 256
MIN_SAMPLES = 100


def _scalar(outputs: np.ndarray, statistic: Callable[[np.ndarray], Any] | None, name: str) -> np.ndarray:
    if statistic is not None:
        values = np.asarray(statistic(outputs))
        if values.shape != (len(outputs),):
            raise MechanismError(
                f"statistic returned shape {values.shape} for {len(outputs)} outputs; it must map each "
                "output row to one number"
            )
        if not np.isfinite(values).all():
            raise MechanismError("statistic returned a non-finite value")
        return values.astype(float, copy=False)
    if outputs.ndim == 1 or (outputs.ndim == 2 and outputs.shape[1] == 1):
        return outputs.reshape(-1).astype(float, copy=False)
    raise UnsupportedAudit(
        f"{name} returns outputs of shape {outputs.shape[1:]}; the threshold auditor needs scalar outputs. "
        "Pass statistic=f mapping each output row to a number (a feature), or use the exact auditor."
    )


def _thresholds(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    pooled = np.concatenate([x0, x1])
    values = np.unique(pooled)
    if len(values) <= MAX_DISCRETE_VALUES:
        return values
    n = len(pooled)
    tail = np.geomspace(1.0 / n, 0.5, QUANTILE_LEVELS // 2)
    levels = np.unique(np.concatenate([tail, 1.0 - tail]))
    return np.unique(np.quantile(pooled, levels, method="inverted_cdf"))


def _event_counts(x0: np.ndarray, x1: np.ndarray, t: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Counts of {x >= t} and {x <= t} on both sides, for every threshold."""
    s0, s1 = np.sort(x0), np.sort(x1)
    ge0 = len(s0) - np.searchsorted(s0, t, side="left")
    ge1 = len(s1) - np.searchsorted(s1, t, side="left")
    le0 = np.searchsorted(s0, t, side="right")
    le1 = np.searchsorted(s1, t, side="right")
    return {">=": (ge0, ge1), "<=": (le0, le1)}


def _certified(claim: Claim, k_num, k_den, n: int, alpha: float):
    """Certified bound (epsilon or delta) for numerator/denominator counts, each side at alpha/2."""
    p_lo = binomial_lower(k_num, n, alpha / 2)
    p_hi = binomial_upper(k_den, n, alpha / 2)
    if isinstance(claim, PureDP):
        with np.errstate(divide="ignore"):
            return np.maximum(np.log(p_lo) - np.log(p_hi), 0.0), p_lo, p_hi
    return np.maximum(p_lo - math.exp(claim.epsilon) * p_hi, 0.0), p_lo, p_hi


def _in_event(x: np.ndarray, op: str, t: float) -> np.ndarray:
    return x >= t if op == ">=" else x <= t


def audit_threshold(
    mechanism: Mechanism,
    claim: Claim,
    pairs: Sequence[tuple[Any, Any]],
    *,
    samples: int,
    confidence: float,
    seed: np.random.SeedSequence,
    selection_fraction: float = 0.5,
    statistic: Callable[[np.ndarray], Any] | None = None,
) -> AuditResult:
    """Certify a lower bound on epsilon (PureDP) or on delta at the claimed epsilon (ApproxDP)."""
    if not isinstance(claim, (PureDP, ApproxDP)):
        raise UnsupportedAudit(f"the threshold auditor tests pure and approximate DP; got a {claim.kind} claim")
    if not 0 < selection_fraction < 1:
        raise ValueError(f"selection_fraction must be in (0, 1), got {selection_fraction!r}")
    n_sel = int(samples * selection_fraction)
    n_conf = samples - n_sel
    if min(n_sel, n_conf) < MIN_SAMPLES:
        raise ValueError(
            f"samples={samples} leaves {n_sel} for selection and {n_conf} for confirmation; "
            f"each needs at least {MIN_SAMPLES}"
        )
    alpha = 1.0 - confidence
    selection_seeds = seed.spawn(len(pairs))
    confirmation_seed = seed.spawn(1)[0]

    # 1. selection: every candidate event of every pair, scored by a lower confidence bound that
    # holds simultaneously over all candidates, so a rare event with lucky counts is not chosen
    # over a frequent one whose advantage is real.
    candidates = []
    for index, ((d0, d1), sseq) in enumerate(zip(pairs, selection_seeds)):
        rng = np.random.default_rng(sseq)
        x0 = _scalar(mechanism.sample(d0, n_sel, rng), statistic, mechanism.name)
        x1 = _scalar(mechanism.sample(d1, n_sel, rng), statistic, mechanism.name)
        t = _thresholds(x0, x1)
        for op, (c0, c1) in _event_counts(x0, x1, t).items():
            candidates.append((index, op, "d0/d1", t, c0, c1))
            candidates.append((index, op, "d1/d0", t, c1, c0))
    level = SELECTION_LEVEL / sum(len(c[3]) for c in candidates)
    best: dict[str, Any] = {"score": -math.inf}
    for index, op, order, t, num, den in candidates:
        score, _, _ = _certified(claim, num, den, n_sel, level)
        j = int(np.argmax(score))
        if score[j] > best["score"]:
            best = {"score": float(score[j]), "pair_index": index, "op": op, "threshold": float(t[j]), "order": order}

    # 2. confirmation on fresh samples of the selected pair
    index = best["pair_index"]
    d0, d1 = pairs[index]
    rng = np.random.default_rng(confirmation_seed)
    y0 = _scalar(mechanism.sample(d0, n_conf, rng), statistic, mechanism.name)
    y1 = _scalar(mechanism.sample(d1, n_conf, rng), statistic, mechanism.name)
    op, t = best["op"], best["threshold"]
    k0 = int(np.count_nonzero(_in_event(y0, op, t)))
    k1 = int(np.count_nonzero(_in_event(y1, op, t)))
    k_num, k_den = (k0, k1) if best["order"] == "d0/d1" else (k1, k0)
    bound, p_lo, p_hi = _certified(claim, k_num, k_den, n_conf, alpha)
    bound, p_lo, p_hi = float(bound), float(p_lo), float(p_hi)
    p_num, p_den = k_num / n_conf, k_den / n_conf

    if isinstance(claim, PureDP):
        name, claimed = "epsilon", claim.epsilon
        with np.errstate(divide="ignore"):
            estimate = float(np.log(p_num) - np.log(p_den)) if p_num > 0 else 0.0
    else:
        name, claimed = "delta", claim.delta
        estimate = p_num - math.exp(claim.epsilon) * p_den
    verdict = REFUTED if bound > claimed else NOT_REFUTED
    first, second = ("d0", "d1") if best["order"] == "d0/d1" else ("d1", "d0")
    notes = []
    if verdict == NOT_REFUTED and math.isfinite(estimate):
        notes.append(
            f"selected event {{x {op} {t:.6g}}} on pair {index}: estimate {name} = {estimate:.4g}, certified "
            f"{bound:.4g}; on this event a violation must exceed the claim by about "
            f"{max(estimate - bound, 0):.3g} to be refuted at this sample size"
        )
    return AuditResult(
        verdict=verdict,
        claim=claim.to_dict(),
        auditor="threshold-clopper-pearson",
        statistic=Statistic(name, estimate, (bound, math.inf), "lower-bound"),
        epsilon_lower=bound if isinstance(claim, PureDP) else None,
        delta_lower=bound if isinstance(claim, ApproxDP) else None,
        confidence=confidence,
        samples=samples,
        witness={
            "pair": [d0, d1],
            "pair_index": index,
            "event": f"x {op} {t!r}",
            "order": f"P[M({first}) in S] / P[M({second}) in S]",
            "counts": {first: k_num, second: k_den},
            "confirmation_samples": n_conf,
            "probability_bounds": {f"{first}_lower": p_lo, f"{second}_upper": p_hi},
        },
        notes=notes,
        parameters={"selection_samples": n_sel, "confirmation_samples": n_conf,
                    "selection_fraction": selection_fraction},
        plot_data={"kind": "threshold", **_histograms(y0, y1), "threshold": t, "op": op,
                   "labels": (f"M(d0), d0={d0!r}", f"M(d1), d1={d1!r}")},
    )


def _histograms(y0: np.ndarray, y1: np.ndarray, bins: int = 120) -> dict[str, np.ndarray]:
    """Histograms of the confirmation samples on shared bins: one bin per value for outputs on
    a few integers, else equal bins over the central 99.9% of the pooled samples."""
    pooled = np.concatenate([y0, y1])
    values = np.unique(pooled)
    if len(values) <= bins and np.array_equal(values, np.round(values)):
        edges = np.append(values - 0.5, values[-1] + 0.5)
    else:
        lo, hi = np.quantile(pooled, [0.0005, 0.9995])
        edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    return {"edges": edges, "counts0": np.histogram(y0, edges)[0], "counts1": np.histogram(y1, edges)[0]}
