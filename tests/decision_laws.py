"""Shared checks of the exact decision laws (Anytime-Lazy-UCB's and Hybrid-UCB's, in arb ball arithmetic):
the working precision set for a block, a law as a dict, the per-round sampler against a law (chi-square), and
the containment of a path's ball at the working precision in a higher-precision recomputation."""

from __future__ import annotations

import contextlib
import math

import numpy as np
from flint import arb, ctx
from scipy import stats

from dpaudit.bandits.table_blocks import run_decision_blocks
from dpaudit.bandits.transcripts import DecisionTranscript, ExactDecisionTranscript


@contextlib.contextmanager
def flint_precision(bits: int):
    """arb's working precision set to ``bits`` inside the block."""
    saved = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = saved


def sequence_law(policy, table: np.ndarray, rounds=None) -> dict[tuple[int, ...], float]:
    """The exact law of the decisions at ``rounds`` (default: the whole sequence), as {decisions: probability}."""
    dist = policy.decision_distribution(table, range(1, len(table) + 1) if rounds is None else rounds)
    return {tuple(int(a) for a in row): float(p) for row, p in zip(dist.outcomes, dist.probs, strict=True)}


def assert_sampler_matches_law(policy, table: np.ndarray, alpha: float, runs: int = 60_000, seed: int = 11,
                               path: str = "per-round") -> None:
    """The law sums to 1, every one of ``runs`` runs (``path``: the per-round reference over the whole
    sequence, or the policy's blocks as the transcript's ``sample`` plays them, recording rounds T/2 and T
    only, so that blocks of several rounds are played, or every round: blocks of one round, the runner telling
    the policy so through ``next_block``'s ``limit``) plays decisions of positive probability, and a
    chi-square test of their counts against the law (cells of expected count < 5 pooled, a pool below 5 merged
    into the smallest cell) passes at level ``alpha`` (its false-failure rate)."""
    rounds = (len(table) // 2, len(table)) if path == "blocks" else None
    law = sequence_law(policy, table, rounds)
    assert math.isclose(sum(law.values()), 1.0, rel_tol=1e-12)
    transcript = DecisionTranscript(policy, arms=2, horizon=len(table), rounds=rounds)
    assert isinstance(transcript, ExactDecisionTranscript)
    if path == "blocks":
        assert transcript.plays_blocks and transcript.skips_rounds
        played = transcript.sample(table, runs, np.random.default_rng(seed))
    elif path == "blocks, every round":  # blocks cut to one round, told so (a transcript runs these per round)
        assert transcript.plays_blocks and not transcript.skips_rounds
        played = run_decision_blocks(policy, table, transcript.rounds, runs, np.random.default_rng(seed))
    else:
        played = transcript.sample_per_round(table, runs, np.random.default_rng(seed))
    keys = list(law)
    code = {k: i for i, k in enumerate(keys)}
    index = np.array([code.get(tuple(row), -1) for row in played.tolist()])
    assert (index >= 0).all(), "the sampler played a sequence the exact law gives probability 0"
    counts = np.bincount(index, minlength=len(keys))
    expected = np.array([law[k] for k in keys]) * len(played)
    big = expected >= 5
    observed, wanted = counts[big], expected[big]
    if not big.all():  # the small cells pooled, and the pool into the smallest large cell if it is small too
        if expected[~big].sum() >= 5:
            observed, wanted = np.append(observed, counts[~big].sum()), np.append(wanted, expected[~big].sum())
        else:
            smallest = np.argmin(wanted)
            observed[smallest] += counts[~big].sum()
            wanted[smallest] += expected[~big].sum()
    if len(observed) > 1:
        assert stats.chisquare(observed, wanted * observed.sum() / wanted.sum()).pvalue > alpha


def contains_reference(low: dict, high: dict) -> bool:
    """Every path's ball at the working precision holds the path probability computed at a higher one."""
    return low.keys() == high.keys() and all(low[k].contains(arb(high[k].mid())) for k in low)


def assert_logs_within_stated_error(high: dict, outcomes: np.ndarray, logs: np.ndarray, error: float) -> None:
    """The float64 log-probabilities of a law against the logs of its paths' 200-bit balls ``high`` (one path per
    outcome): within 1e-14, and the stated error covers their distance while being only their float64 rounding."""
    with flint_precision(200):
        reference = [float(high[tuple(row)].log().mid()) for row in outcomes.tolist()]
        distance = max(float(abs(arb(float(x)) - high[tuple(row)].log()).upper())
                       for row, x in zip(outcomes.tolist(), logs, strict=True))
    assert np.allclose(logs, reference, rtol=0, atol=1e-14)
    assert distance <= error <= 2.0**-52 * float(np.abs(logs).max())
