"""Black-box privacy auditor: select an event on some samples, certify a bound on fresh ones.

1. **Selection.** For every candidate pair (both orders), the event families of
   :mod:`.events` propose candidate events from selection samples; each is scored by the bound
   confirmation would certify (``n_conf`` samples per side, the audit's level) if the event's
   probabilities were its selection estimates moved to their 1 / (number of candidates) confidence
   limits against it, so a rare event with lucky counts does not beat a frequent one whose
   advantage is real. The certified value is clipped at the claim's floor, so when no candidate
   projects a positive excess their scores tie; the tie goes to the one whose estimate at the moved
   probabilities comes closest (then to the first listed). Projecting to
   the confirmation size matters: a score at the selection size (Clopper-Pearson at level
   0.05 / candidates, used when no confirmation size is given) favours frequent events over rarer
   ones of larger loss that confirmation, on many more samples, certifies higher (on the sparse
   vector technique the best event has probability 0.019 against 0.035 for the runner-up: 0.91
   against 0.86 certified from 10^7 samples). With many pairs (a neighbour search) selection runs
   by successive halving: every pair is screened on a few samples, the better half gets twice as
   many, and so on, on fresh samples each round, until one pair is left. Pairs are ranked by the
   *value* of their chosen event: the bound confirmation would certify if the event's probabilities
   were its selection estimates (not moved to their confidence limits). The conservative score
   protects the choice among a pair's many candidate events from a lucky rare one; between a few
   pairs, each already reduced to its one event, it would count a rarer event's uncertainty twice
   and pass over the better pair (on the sparse vector technique the half-half pair, 0.914
   attainable from 10^7 samples, lost to the X-shaped one, 0.863, in 7 of 30 seeds; ranked by value
   with the default selection budget, in 2 of 60).
2. **Confirmation.** Only the selected (pair, order, event) is counted on fresh samples, so the
   confirmed bound pays for no multiplicity. With ``sequential=False`` the counts of
   ``samples * (1 - selection_fraction)`` outputs per side (by default 50% to 90% of them, see
   :func:`default_selection_fraction`) give Clopper-Pearson bounds. A pure-DP
   claim confirmed at a fixed size may be certified by the coupled-thinning Fisher test
   (:func:`~dpaudit.stats.thinned_fisher_lower`): one test at the audit's level instead of two
   Clopper-Pearson bounds at half of it each (on the sparse vector technique's best event at 9 * 10^6
   confirmation samples per side, 0.917 of its epsilon 1 on average where the pair reaches 0.913). The
   pair is better when the second
   count is near 0; which of the two confirms is decided on the selection samples
   (:func:`_thinned_is_better`), so the confirmed bound keeps its level.
3. **Sequential audits** (``sequential=True``, the default for pure and approximate DP claims). The same
   selection and confirmation, drawn in batches: selection's so that each pair's outputs grow fourfold from
   :data:`FIRST_BET_BATCH` per side between choices (each batch is followed by a fresh choice of event on all
   the pair's outputs so far; a later round of successive halving is then mostly one batch), confirmation's
   doubling. Every batch after a pair's first is bet on with the (order, event) chosen
   from that pair's earlier outputs (:mod:`.betting`), at :data:`BETTING_SHARE` of the level; the audit stops,
   refuted, as soon as the wealth crosses, so a gross violation costs hundreds of outputs (a Laplace mechanism
   with half its noise against epsilon = 1: 500 per side, where the fixed audit draws its whole budget). A batch
   is bet on before any choice has seen it, so selection may reuse every earlier output, bets included;
   confirmation's outputs are never seen by selection. When the budget runs out the fixed-size test of all
   confirmation counts is made at the rest of the level (the two err together at most alpha), so a subtle
   violation costs no more samples than the fixed audit, less a tenth of its level; the record certifies the
   larger of the two bounds. A sequential audit stops once its bound passes the claim, so a refuted record's
   bound is only just above it: ``sequential=False`` measures how far. The record's ``samples`` (and
   ``parameters["samples_drawn"]``) are the outputs drawn per side, selection included, beside
   ``parameters["samples_budget"]``; ``parameters["stopped"]`` says when it stopped ("selection",
   "confirmation" or "budget"). For Renyi and zCDP claims ``sequential=True`` keeps the older scheme: a fixed
   selection, then confirmation in doubling batches with anytime-valid confidence sequences.

Both orders of every pair are audited. The certified epsilon has no cap: when the event never
occurs on one side the bound grows with the sample size.

**Power** of a "not refuted" pure- or approximate-DP claim on the event path (the record's ``power``): on the
selected event, with the second side's probability q at its confirmation estimate, the smallest epsilon (p =
e^epsilon q) or delta at the claimed epsilon (p = e^eps q + delta) that confirmation, at its size and level,
certifies above the claim with probability 0.9: computed from the binomial laws of the two counts (at 256 likely
second counts, the first count from which confirmation's own certificate refutes; a count between two of them takes
the higher one's, which can only lower the rate, so the figure errs on the large side by at most a knot's width),
bisected over the violation; the Clopper-Pearson pair stands in for the coupled-thinning test where that
confirms, so the figure is for the weaker of the two. A sequential audit states the figure of its fixed-size test
(at its share of the level): the bets can only add refutations. A Renyi or zCDP claim on an event states the
divergence of the event's two-point law (D_a at the record's order; rho, the largest D_a / a over the certificate's
orders) at the first rate nearest the observed second one, above it or below, that confirmation refutes with
probability 0.9, found the same way (the smaller of the two directions' divergences); a sequential
confirmation's figure is that of its confidence sequences at the final size (earlier looks only add refutations).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..core.claims import ZCDP, ApproxDP, Claim, PureDP, RenyiDP
from ..core.results import NOT_REFUTED, POWER_PROBABILITY, REFUTED, Statistic, power
from ..core.subjects import Mechanism
from ..stats import binomial_lower, binomial_upper, thinned_fisher_mean
from .base import Auditor, Finding, Support
from .betting import EventBets, claimed_parameter
from .bounds import SUPPORTED, bernoulli_renyi, bernoulli_rho, certify, certify_pure_thinned, plugin_estimate
from .events import FAMILIES, Candidates, as_features, candidates, default_families
from .renyi import audit_renyi, is_scalar

SELECTION_LEVEL = 0.05  # family-wise level of the selection scores (a heuristic; validity comes from confirmation)
MIN_SAMPLES = 100
FIRST_BATCH = 1000  # sequential confirmation of a Renyi or zCDP claim: size of the first batch per side
FIRST_BET_BATCH = 100  # sequential audits of pure and approximate DP: the first batch per side (selection only)
#: share of the audit's level spent by the bets of a sequential audit; the rest goes to the fixed-size test of
#: all confirmation samples at the end (module docstring)
BETTING_SHARE = 0.1
#: a sequential audit's selection batches grow fourfold: each is followed by a fresh choice of event on all the
#: pair's outputs so far, which costs about as much as the outputs, so the choices cost 4/3 of the last one
SELECTION_GROWTH = 4
SELECTION_SAMPLES_FLOOR = 200_000
# projected scores move each estimate to its 1/(number of candidates) confidence limit: about as far as the
# largest of that many noises reaches, so the luckiest candidate is not taken for the best (one standard
# error is not enough: among ~1000 Laplace thresholds a rare tail event then wins, certifying 0.045 of 0.1)
PROJECTION_LEVEL = 1.0


@dataclass
class _Choice:
    score: float
    pair_index: int
    order: str  # "d0/d1": the event is likelier under M(d0)
    candidates: Candidates
    index: int  # of the event among ``candidates``
    # the projected bound before it is clipped at the claim's floor: when no candidate projects a positive
    # excess, every clipped score is the same (-delta, -eps), and this ranks them by how close each comes
    closeness: float = -math.inf

    @property
    def family(self) -> str:
        return self.candidates.family

    @property
    def event(self):
        return self.candidates.event(self.index)

    @property
    def counts(self) -> tuple[int, int, int]:
        """The event's counts on the outputs it was chosen on: first side, second side (in its order), per side."""
        cand = self.candidates
        num, den = (cand.counts0, cand.counts1) if self.order == "d0/d1" else (cand.counts1, cand.counts0)
        return int(num[self.index]), int(den[self.index]), int(cand.n)


def default_selection_fraction(samples: int, pairs: int = 1) -> float:
    """Half the samples for selection on small budgets, falling to a tenth on large ones.

    Selection only has to find a near-optimal event, which a few hundred thousand samples do;
    every further sample tightens the confirmed bound instead. So selection gets
    max(10%, 200,000 per pair for up to 8 pairs) of the samples, capped at half: choosing among
    several pairs needs more (at 10^7 samples and 8 pairs, 16% of them tell the sparse vector
    technique's best pair from a runner-up 0.05 behind in 58 of 60 seeds, 10% in 53 of 60, for a
    confirmation 6% narrower).
    """
    return min(0.5, max(0.1, SELECTION_SAMPLES_FLOOR * min(pairs, 8) / samples))


def _sample_features(mechanism: Mechanism, data: Any, n: int, rng: np.random.Generator, statistic) -> np.ndarray:
    return as_features(mechanism.sample(data, n, rng), statistic)


def _projected_excess(claim: Claim, num: np.ndarray, den: np.ndarray, n: int, confirmation: tuple[int, float],
                      level: float) -> tuple[np.ndarray, np.ndarray]:
    """The excess confirmation would certify if each event's probabilities were its selection estimates,
    each moved to its one-sided confidence limit at ``level`` against the event; and the closeness that
    ranks events whose excess is clipped (:func:`_closeness`)."""
    n_conf, alpha = confirmation
    p = binomial_lower(num, n, level)
    q = binomial_upper(den, n, level)
    bound = certify(claim, p * n_conf, q * n_conf, n_conf, alpha)
    return bound.excess, _closeness(bound, num, den, n)


def _closeness(bound, num, den, n) -> np.ndarray:
    """The bound's point estimate (at the moved probabilities when projected), NaN read as -inf: the certified
    value is clipped at the claim's floor (0 for delta and epsilon), so among events that all certify nothing this
    keeps the one nearest to certifying rather than the first listed (a full-mass event, p - e^eps q = -0.65, was
    confirmed for a discrete Gaussian whose best event has delta 0.01).

    -inf for an event whose counts (``num``, ``den`` of ``n``) carry no evidence either way: never seen on its
    likelier side (an epsilon's estimate is 0 there, the value of equal probabilities), or seen in every output
    on both sides. Read at their estimates, such events came closer than every event seen on one side more than
    the other (the projection moves a rare one, 3 against 0 of 100, far below a full-mass one, whose limits
    barely move), so a pair whose laws differ tied with pairs whose laws are equal: DP-SE's elimination with its
    noise halved was dropped in the first round among 152 searched pairs that never eliminate (9 seeds of 10)."""
    estimate = np.nan_to_num(np.asarray(bound.estimate, dtype=float), nan=-np.inf, posinf=np.inf, neginf=-np.inf)
    return np.where(_has_evidence(num, den, n), estimate, -np.inf)


def _has_evidence(num, den, n) -> np.ndarray:
    """Whether an event's counts (``num`` on its likelier side, ``den`` on the other, of ``n``) carry evidence
    either way: seen on its likelier side, and not in every output of both (:func:`_closeness`)."""
    num, den = np.asarray(num), np.asarray(den)
    return (num > 0) & ((num < n) | (den < n))


def _scores(claim: Claim, num: np.ndarray, den: np.ndarray, n: int, confirmation: tuple[int, float] | None,
            total: int) -> tuple[np.ndarray, np.ndarray]:
    """Each event's score and closeness, as arrays of the events' shape: the projected excess at the confirmation
    size (:func:`_projected_excess`) when one is given, else the excess certified at the selection size at
    :data:`SELECTION_LEVEL` over the ``total`` scored events."""
    if confirmation is None:
        bound = certify(claim, num, den, n, SELECTION_LEVEL / max(total, 1))
        excess, closeness = bound.excess, _closeness(bound, num, den, n)
    else:
        excess, closeness = _projected_excess(claim, num, den, n, confirmation, PROJECTION_LEVEL / max(total, 1))
    return tuple(np.broadcast_arrays(np.asarray(excess, dtype=float), closeness))


def _first_best(excess: np.ndarray, closeness: np.ndarray, index: np.ndarray) -> int:
    """The position of the largest (excess, closeness), ties to the smallest ``index`` (the first listed: the
    choice must not hang on how ties fall)."""
    return int(np.lexsort((-index, closeness, excess))[-1])


#: events scored together while the rest are pruned: small enough that the first batch usually holds the best,
#: large enough that the Clopper-Pearson limits stay vectorised
PRUNING_BATCH = 64


def _best_event(claim: Claim, num: np.ndarray, den: np.ndarray, n: int, score: Callable,
                beat: tuple[float, float] | None) -> tuple[int, float, float] | None:
    """(position, excess, closeness) of the event with the largest (excess, closeness), the first listed among
    equals, scoring (``score(positions)``, :func:`_scores`) only the events that could reach it or ``beat``; None
    when none reaches ``beat``.

    Every score lies below its event's plug-in estimate (:func:`~.bounds.plugin_estimate`): the score's
    probabilities are moved against the event, or bounded by it at the selection's level, and the excess is the
    certified value, clipped at the claim's floor (0), less the claimed parameter. So the events are scored in
    batches in the order of their estimates, and an event is dropped once its estimate's excess is below the best
    score so far, or it is at the floor (estimate <= 0, so its excess is the floor exactly) while the best is too
    and its estimate is below the best closeness. A few ulps of slack keep the rounding of the limits from
    dropping a tie. The choice is the one scoring every event makes (tests/test_statistical_auditor_steps.py), at
    a fraction of the cost: a score is four inverse incomplete beta functions, which took 15 of 21 seconds of an
    audit searching 190 pairs (9 seconds pruned). Renyi and zCDP claims score every event."""
    reach = near = floor = None
    if isinstance(claim, (PureDP, ApproxDP)):
        parameter = claim.epsilon if isinstance(claim, PureDP) else claim.delta
        floor = 0.0 - parameter
        estimate = np.nan_to_num(np.asarray(plugin_estimate(claim, num, den, n), dtype=float), nan=-np.inf)
        reach = np.maximum(estimate, 0.0) - parameter  # each excess is at most this
        near = np.where(_has_evidence(num, den, n), estimate, -np.inf)  # each closeness at most this
        order, size = np.lexsort((np.arange(num.size), -near, -reach)), PRUNING_BATCH
    else:  # no plug-in bound to prune by: every event in one batch
        order, size = np.arange(num.size), max(num.size, 1)
    best, own = beat, None  # the bar to reach; (excess, closeness, -position) of the best event scored
    while order.size:
        if best is not None and reach is not None:
            order = order[_reachable(reach[order], near[order], best, floor)]
        batch, order = order[:size], order[size:]
        if not batch.size:
            break
        excess, closeness = score(batch)  # never NaN: the closeness reads NaN as -inf, the excess is clipped
        k = _first_best(excess, closeness, batch)
        key = (float(excess[k]), float(closeness[k]), -int(batch[k]))  # ties to the first listed
        if own is None or key > own:
            own = key
        if best is None or key[:2] > best:
            best = key[:2]
    if own is None or (beat is not None and own[:2] <= beat):
        return None
    return -own[2], own[0], own[1]


def _reachable(reach: np.ndarray, near: np.ndarray, best: tuple[float, float], floor: float) -> np.ndarray:
    """Which events, by their bounds ``reach`` (on the excess) and ``near`` (on the closeness), could still reach
    ``best`` = (excess, closeness): an excess bound not below the best's, and at the floor (where the excess is the
    floor exactly) a closeness bound not below the best's either; each with a few ulps of slack."""
    top, close = best
    keep = reach >= top - _slack(top)
    if top == floor:
        keep &= (reach > floor) | (near >= close - _slack(close))
    return keep


def _slack(value: float) -> float:
    return 1e-9 * (1.0 + abs(value))


def _best_candidate(claim: Claim, found: list[tuple[int, Candidates]],
                    confirmation: tuple[int, float] | None = None) -> _Choice | None:
    total = 2 * sum(len(c) for _, c in found)
    best: _Choice | None = None
    for index, cand in found:
        for order, num, den in (("d0/d1", cand.counts0, cand.counts1), ("d1/d0", cand.counts1, cand.counts0)):
            if len(num) == 0:
                continue
            num, den = np.asarray(num), np.asarray(den)
            score = partial(_scored_at, claim, num, den, cand.n, confirmation, total)
            beat = None if best is None else (best.score, best.closeness)
            got = _best_event(claim, num, den, cand.n, score, beat)
            if got is not None:  # strictly above the best of the pairs before: the first listed keeps a tie
                j, excess, closeness = got
                best = _Choice(excess, index, order, cand, j, closeness)
    return best


def _scored_at(claim: Claim, num: np.ndarray, den: np.ndarray, n: int, confirmation: tuple[int, float] | None,
               total: int, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    excess, closeness = _scores(claim, num[positions], den[positions], n, confirmation, total)
    return excess.reshape(-1), closeness.reshape(-1)


def _value(claim: Claim, choice: _Choice | None, confirmation: tuple[int, float] | None) -> tuple[float, float]:
    """What a pair's chosen event is worth: the excess confirmation would certify if the event's
    probabilities were its selection estimates (module docstring), its score when no confirmation
    size is given; then the closeness that ranks pairs whose excess is clipped alike."""
    if choice is None:
        return -math.inf, -math.inf
    if confirmation is None:
        return choice.score, choice.closeness
    n_conf = confirmation[0]
    num, den, n = choice.counts
    p, q = num / n, den / n
    expected = np.array([p * n_conf]), np.array([q * n_conf])
    bound = certify(claim, *expected, n_conf, confirmation[1])
    excess, closeness = (a.reshape(-1) for a in np.broadcast_arrays(np.asarray(bound.excess, dtype=float),
                                                                       _closeness(bound, *expected, n_conf)))
    j = int(np.argmax(excess))
    return float(excess[j]), float(closeness[j])


def _select(
    mechanism: Mechanism, claim: Claim, pairs: Sequence[tuple[Any, Any]], n_sel: int, seed: np.random.SeedSequence,
    families: tuple[str, ...] | None, statistic, confirmation: tuple[int, float] | None = None,
    bets: EventBets | None = None,
) -> tuple[_Choice | None, dict[str, Any]]:
    """Successive halving over pairs; returns the best (pair, order, event) and a summary.

    Every round draws fresh samples for the surviving pairs, chooses each pair's event on all the
    selection samples it has accumulated (they are all selection data, so reusing them costs no
    validity) and keeps the better half of the pairs by the value of their events, until one is
    left: the later, decisive rounds are the least noisy.

    With ``bets`` (a sequential audit) each pair's share of a round is drawn in batches growing fourfold (the first
    three times what the pair already has, so its outputs grow fourfold between choices); each is first bet on
    with the event the pair's earlier samples chose (:mod:`.betting`), then joins them and the event is chosen
    again. The summary's ``stopped`` is then the choice whose bet crossed, and the returned choice is None.
    """
    alive = list(range(len(pairs)))
    rounds = max(1, math.ceil(math.log2(len(pairs))))
    per_round = n_sel // rounds
    drawn: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    chosen: dict[int, _Choice | None] = {}
    used = 0
    history = []
    for round_seed in seed.spawn(rounds):
        n_each = max(MIN_SAMPLES, per_round // len(alive))
        ranked: list[tuple[tuple[float, float], int, _Choice | None]] = []
        for index, pair_seed in zip(alive, round_seed.spawn(len(alive))):
            rng = np.random.default_rng(pair_seed)
            d0, d1 = pairs[index]
            before = len(drawn[index][0]) if index in drawn else 0
            for size in _batch_sizes(n_each, SELECTION_GROWTH, before) if bets is not None else (n_each,):
                new = (_sample_features(mechanism, d0, size, rng, statistic),
                       _sample_features(mechanism, d1, size, rng, statistic))
                used += size
                if bets is not None and chosen.get(index) is not None:
                    # the bet's forecast: the event's rates on the outputs it was chosen on
                    crossed, inside = _bet(bets, chosen[index].event, chosen[index].order, *new,
                                           _forecast(chosen[index].counts))
                    if crossed:
                        history.append({"pairs": len(alive), "samples_per_side": n_each})
                        k_num, k_den = _in_order(chosen[index].order, *inside)
                        return None, {"rounds": history, "selection_samples_per_side": used,
                                      "stopped": chosen[index], "last_batch": (k_num, k_den, size, *new, inside)}
                x0, x1 = ((np.concatenate([old, fresh]) for old, fresh in zip(drawn[index], new))
                          if index in drawn else new)
                drawn[index] = (x0, x1)
                found = [(index, c) for c in candidates(x0, x1, families or default_families(x0.shape[1]))]
                chosen[index] = _best_candidate(claim, found, confirmation)
            ranked.append((_value(claim, chosen[index], confirmation), index, chosen[index]))
        history.append({"pairs": len(alive), "samples_per_side": n_each})
        ranked.sort(key=lambda item: (-item[0][0], -item[0][1]))
        alive = [index for _, index, _ in ranked[: max(1, math.ceil(len(alive) / 2))]]
        drawn = {index: drawn[index] for index in alive}
    best = ranked[0][2]
    if best is None:
        raise ValueError("no candidate event was found on any pair: the selection samples are all equal on both "
                         "sides of every pair")
    return best, {"rounds": history, "selection_samples_per_side": used}


def _batch_sizes(n: int, growth: int = 2, before: int = 0) -> list[int]:
    """``n`` outputs as batches growing ``growth``-fold, the first :data:`FIRST_BET_BATCH` or ``growth - 1`` times
    the ``before`` outputs already drawn, whichever is larger (so that a pair's outputs grow ``growth``-fold from
    one choice of event to the next, and a later selection round, whose choices see all the pair's outputs, costs
    about one choice rather than one per batch); the rest joins the last batch unless it is at least as large (a
    small last batch would cost a choice of event for little)."""
    sizes, size = [], max(FIRST_BET_BATCH, (growth - 1) * before)
    while sum(sizes) + size < n:
        sizes.append(size)
        size *= growth
    rest = n - sum(sizes)
    if sizes and rest < sizes[-1]:
        sizes[-1] += rest
        return sizes
    return sizes + [rest]


def _in_order(order: str, first, second):
    """(d0's, d1's) as (the likelier side's, the other's) for the choice's ``order``."""
    return (first, second) if order == "d0/d1" else (second, first)


def _forecast(seen: tuple[int, int, int], k_num: int = 0, k_den: int = 0, drawn: int = 0) -> tuple[float, float]:
    """An event's rates (first side, second side) on the outputs before a batch: the ``seen`` counts (first side,
    second side, per side: the outputs it was chosen on) and ``k_num`` / ``k_den`` of ``drawn`` more per side."""
    total = seen[2] + drawn
    return (seen[0] + k_num) / total, (seen[1] + k_den) / total


def _bet(bets: EventBets, event, order: str, x0: np.ndarray, x1: np.ndarray,
         forecast: tuple[float, float]) -> tuple[bool, tuple[int, int]]:
    """Bet on fresh outputs of a pair with an event chosen before them (in its ``order``), sized by the
    ``forecast`` of its rates from earlier outputs; whether the wealth crossed, and the event's counts on each side
    (d0's, d1's)."""
    inside0, inside1 = event.contains(x0), event.contains(x1)
    crossed = bets.add(*_in_order(order, inside0, inside1), forecast)
    return crossed, (int(np.count_nonzero(inside0)), int(np.count_nonzero(inside1)))


def _thinned_is_better(claim: Claim, choice: _Choice, n_conf: int, alpha: float) -> bool:
    """Whether a pure-DP claim's chosen event is confirmed by the coupled-thinning Fisher test rather than the
    Clopper-Pearson pair: the one whose value is larger at the event's selection estimates scaled to the
    confirmation size (chosen on selection samples only, so the confirmed bound keeps its level)."""
    if not isinstance(claim, PureDP):
        return False
    num, den, n = choice.counts
    k_num, k_den = round(num / n * n_conf), round(den / n * n_conf)
    pair = float(certify(claim, k_num, k_den, n_conf, alpha).value)
    return thinned_fisher_mean(k_num, k_den, n_conf, alpha) > pair


def _confirm_fixed(mechanism, claim, pair, event, order, n, alpha, seed, statistic, thinned=False):
    rng = np.random.default_rng(seed)
    y0 = _sample_features(mechanism, pair[0], n, rng, statistic)
    y1 = _sample_features(mechanism, pair[1], n, rng, statistic)
    k0, k1 = int(np.count_nonzero(event.contains(y0))), int(np.count_nonzero(event.contains(y1)))
    k_num, k_den = _in_order(order, k0, k1)
    # the thinning's one draw comes after the samples, from the same stream
    bound = _certify_counts(claim, k_num, k_den, n, alpha, rng if thinned else None)
    return bound, k_num, k_den, n, (y0, y1), (k0, k1)


def _certify_counts(claim, k_num: int, k_den: int, n: int, alpha: float, thinning: np.random.Generator | None):
    """Confirmation's certificate of its counts: the coupled-thinning test drawing from ``thinning``, or (None) the
    Clopper-Pearson pair."""
    if thinning is not None:
        return certify_pure_thinned(claim, k_num, k_den, n, alpha, thinning)
    return certify(claim, k_num, k_den, n, alpha)


def _confirm_sequential(mechanism, claim, pair, event, order, n_max, alpha, seed, statistic):
    """Doubling batches with confidence sequences; stop once refuted or at ``n_max`` per side."""
    rng = np.random.default_rng(seed)
    k0 = k1 = n = 0
    batch = min(FIRST_BATCH, n_max)
    last = None
    while n < n_max:
        size = min(batch, n_max - n)
        y0 = _sample_features(mechanism, pair[0], size, rng, statistic)
        y1 = _sample_features(mechanism, pair[1], size, rng, statistic)
        inside = int(np.count_nonzero(event.contains(y0))), int(np.count_nonzero(event.contains(y1)))
        k0 += inside[0]
        k1 += inside[1]
        n += size
        k_num, k_den = _in_order(order, k0, k1)
        bound = certify(claim, k_num, k_den, n, alpha, sequential=True)
        last = (bound, k_num, k_den, n, (y0, y1), inside)
        if float(bound.excess) > 0:
            break
        batch *= 2
    return last


def _confirm_betting(mechanism, claim, pair, choice: _Choice, n, alpha, seed, statistic, *, bets: EventBets,
                     thinned: bool):
    """Fixed-size confirmation of the ``choice``'s event drawn in doubling batches, each bet on first
    (:mod:`.betting`), sized by the event's rates on the selection outputs it was chosen on and the confirmation
    outputs before the batch; stops when the wealth crosses. Otherwise the counts of all ``n``
    outputs per side are certified at ``alpha`` (Clopper-Pearson or, with ``thinned``, the coupled-thinning test),
    as :func:`_confirm_fixed` does. Returns its tuple (the bound is None when the bets stopped it) and whether they
    did."""
    sampling, thinning = (np.random.default_rng(s) for s in seed.spawn(2))
    event, order = choice.event, choice.order
    k0 = k1 = drawn = k_num = k_den = 0
    for size in _batch_sizes(n):
        y0 = _sample_features(mechanism, pair[0], size, sampling, statistic)
        y1 = _sample_features(mechanism, pair[1], size, sampling, statistic)
        crossed, inside = _bet(bets, event, order, y0, y1, _forecast(choice.counts, k_num, k_den, drawn))
        k0, k1, drawn = k0 + inside[0], k1 + inside[1], drawn + size
        k_num, k_den = _in_order(order, k0, k1)
        if crossed:
            return (None, k_num, k_den, drawn, (y0, y1), inside), True
    return (_certify_counts(claim, k_num, k_den, n, alpha, thinning if thinned else None), k_num, k_den, n,
            (y0, y1), inside), False


class StatisticalPrivacyAuditor(Auditor):
    """Certifies lower bounds on a privacy claim's parameter from samples (module docstring).

    Supports pure, approximate, Renyi and zero-concentrated DP about any mechanism that samples, and
    always ends in a verdict (``refuted`` at the audit's confidence, or ``not-refuted``).

    Renyi and zCDP claims about scalar outputs (or a scalar ``statistic``), confirmed at a fixed size
    and with no ``events`` named, go to :func:`.renyi.audit_renyi` (a k-cell binning chosen on selection
    samples; certified by a Clopper-Pearson box over the cells or by a tangent bound on the Renyi sum):
    on the Gaussian mechanism at rho = 0.5 and the quick budget it certifies rho 0.43-0.45, where one
    event's Bernoulli bound below certifies 0.23. Vector outputs, ``sequential=True`` and named
    ``events`` keep the event path."""

    name = "black-box"
    statistical = True

    def supports(self, subject: Mechanism, claim: Claim) -> Support:
        if isinstance(claim, SUPPORTED):
            return Support.decides()
        return Support.no(f"black-box audits test pure, approximate, Renyi and zero-concentrated DP; got a "
                          f"{claim.kind} claim")

    def audit(self, subject: Mechanism, claim: Claim, *, pairs: Sequence[tuple[Any, Any]], samples: int,
              confidence: float, seed: np.random.SeedSequence, selection_fraction: float | None = None,
              statistic: Callable[[np.ndarray], Any] | None = None, events: Sequence[str] | None = None,
              sequential: bool | None = None, **_: Any) -> Finding:
        """Certify a lower bound on the claim's parameter from samples (module docstring)."""
        self.require(subject, claim)
        if sequential is None:  # sequential where the bets apply: pure and approximate DP
            sequential = isinstance(claim, (PureDP, ApproxDP))
        if (isinstance(claim, (ZCDP, RenyiDP)) and not sequential and events is None
                and all(is_scalar(subject, d, statistic, np.random.SeedSequence(0)) for pair in pairs for d in pair)):
            return audit_renyi(subject, claim, pairs, samples=samples, confidence=confidence, seed=seed,
                               selection_fraction=selection_fraction, statistic=statistic)
        return _audit(subject, claim, pairs, samples=samples, confidence=confidence, seed=seed,
                      selection_fraction=selection_fraction, statistic=statistic, events=events,
                      sequential=sequential)


def _audit(
    mechanism: Mechanism,
    claim: Claim,
    pairs: Sequence[tuple[Any, Any]],
    *,
    samples: int,
    confidence: float,
    seed: np.random.SeedSequence,
    selection_fraction: float | None,
    statistic: Callable[[np.ndarray], Any] | None,
    events: Sequence[str] | None,
    sequential: bool,
) -> Finding:
    if selection_fraction is None:
        selection_fraction = default_selection_fraction(samples, len(pairs))
    if not 0 < selection_fraction < 1:
        raise ValueError(f"selection_fraction must be in (0, 1), got {selection_fraction!r}")
    families = None if events is None else tuple(events)
    if families is not None and (not families or set(families) - set(FAMILIES)):
        raise ValueError(f"events must be a non-empty subset of {FAMILIES}, got {events!r}")
    n_sel = int(samples * selection_fraction)
    n_conf = samples - n_sel
    if min(n_sel, n_conf) < MIN_SAMPLES:
        raise ValueError(
            f"samples={samples} leaves {n_sel} for selection and {n_conf} for confirmation; "
            f"each needs at least {MIN_SAMPLES}"
        )
    alpha = 1.0 - confidence
    if sequential and isinstance(claim, (PureDP, ApproxDP)):
        return _audit_betting(mechanism, claim, pairs, samples=samples, n_sel=n_sel, confidence=confidence,
                              seed=seed, selection_fraction=selection_fraction, statistic=statistic,
                              families=families)
    selection_seed, confirmation_seed = seed.spawn(2)
    choice, selection = _select(mechanism, claim, pairs, n_sel, selection_seed, families, statistic,
                                (n_conf, alpha))
    pair = pairs[choice.pair_index]
    event = choice.event
    thinned = not sequential and _thinned_is_better(claim, choice, n_conf, alpha)
    confirm = _confirm_sequential if sequential else partial(_confirm_fixed, thinned=thinned)
    bound, k_num, k_den, n, (y0, y1), inside = confirm(
        mechanism, claim, pair, event, choice.order, n_conf, alpha, confirmation_seed, statistic
    )
    stated = None
    if float(bound.excess) <= 0:
        stated = _event_power(claim, k_den, n, alpha, event.describe(), order=_stated_order(bound),
                              sequential=sequential)
    used = selection["selection_samples_per_side"]
    return _finding(claim, pairs, choice, bound, float(bound.value), (k_num, k_den, n), (y0, y1, inside),
                    confidence=confidence, power=stated, samples=used + n, parameters={
                        "selection_samples": used,
                        "confirmation_samples": n,
                        "selection_fraction": selection_fraction,
                        "selection_rounds": selection["rounds"],
                        "bounds": ("confidence-sequence" if sequential else "thinned-fisher" if thinned
                                   else "clopper-pearson"),
                        "sequential": sequential,
                    })


def _audit_betting(mechanism, claim, pairs, *, samples, n_sel, confidence, seed, selection_fraction, statistic,
                   families) -> Finding:
    """A sequential audit of a pure or approximate DP claim (module docstring): bets on every batch from the
    second on, at BETTING_SHARE of the level; the fixed-size test of the confirmation counts at the rest."""
    n_conf, alpha = samples - n_sel, 1.0 - confidence
    bets = EventBets(claim, BETTING_SHARE * alpha)
    fixed_alpha = (1 - BETTING_SHARE) * alpha
    selection_seed, confirmation_seed = seed.spawn(2)
    choice, selection = _select(mechanism, claim, pairs, n_sel, selection_seed, families, statistic,
                                (n_conf, fixed_alpha), bets=bets)
    used = selection["selection_samples_per_side"]
    parameters = {"selection_fraction": selection_fraction, "selection_rounds": selection["rounds"],
                  "sequential": True, "samples_budget": samples, "betting_level": bets.alpha}
    if choice is None:  # the bets crossed during selection
        choice, (k_num, k_den, n, y0, y1, inside) = selection["stopped"], selection["last_batch"]
        bound = None
        parameters.update(selection_samples=used, confirmation_samples=0, bounds="betting", stopped="selection")
    else:
        thinned = _thinned_is_better(claim, choice, n_conf, fixed_alpha)
        (bound, k_num, k_den, n, (y0, y1), inside), stopped = _confirm_betting(
            mechanism, claim, pairs[choice.pair_index], choice, n_conf, fixed_alpha, confirmation_seed, statistic,
            bets=bets, thinned=thinned)
        parameters.update(selection_samples=used, confirmation_samples=n,
                          bounds="betting" if stopped else "betting+" + ("thinned-fisher" if thinned
                                                                         else "clopper-pearson"),
                          stopped="confirmation" if stopped else "budget")
        used += n
    parameters.update(samples_drawn=used, bet_samples=bets.drawn, log_wealth=bets.peak())
    betting = bets.lower_bound()
    if bound is None:  # the estimate from the batch that crossed
        bound = certify(claim, k_num, k_den, n, alpha)
        value = betting
    else:
        value = max(float(bound.value), betting)
    stated = None
    if value <= claimed_parameter(claim):  # the fixed test's power: the bets can only add to it
        stated = _event_power(claim, k_den, n, fixed_alpha, choice.event.describe())
    finding = _finding(claim, pairs, choice, bound, value, (k_num, k_den, n), (y0, y1, inside),
                       confidence=confidence, power=stated, samples=used, parameters=parameters)
    if parameters["bounds"] == "betting":  # the counts shown are the batch whose bet crossed
        finding.witness.update(confirmation_samples=parameters["confirmation_samples"], batch_samples=n)
        finding.notes.append(
            f"refuted by the bets after {used:,} of {samples:,} samples per side ({bets.drawn:,} bet on, wealth "
            f"e^{bets.peak():.3g} against 1/{bets.alpha:.3g}); the counts shown are the {n:,} outputs per side of "
            f"the batch whose bet crossed. The audit stops once its bound passes the claim: sequential=False "
            f"certifies how far the mechanism goes")
    return finding


def _finding(claim, pairs, choice: _Choice, bound, value: float, counts, shown, *, confidence, power, samples,
             parameters) -> Finding:
    """The record of a black-box audit: ``value`` certified (``bound`` gives its name, estimate and intervals),
    the counts (first side, second side, outputs per side) and the outputs ``shown`` in the plot."""
    k_num, k_den, n = counts
    y0, y1, inside = shown
    pair, event = pairs[choice.pair_index], choice.event
    estimate = float(bound.estimate)
    excess = value - claimed_parameter(claim) if isinstance(claim, (PureDP, ApproxDP)) else float(bound.excess)
    verdict = REFUTED if excess > 0 else NOT_REFUTED
    first, second = ("d0", "d1") if choice.order == "d0/d1" else ("d1", "d0")
    detail = {k: float(v) for k, v in bound.detail.items()}
    names = (f"{first}_lower", f"{first}_upper", f"{second}_lower", f"{second}_upper")
    probability_bounds = {k: float(v) for k, v in zip(names, bound.intervals) if v is not None}
    notes = []
    if verdict == NOT_REFUTED and math.isfinite(estimate):
        notes.append(
            f"selected event {{{event.describe()}}} on pair {choice.pair_index}: estimate {bound.name} = "
            f"{estimate:.4g}, certified {value:.4g}; on this event a violation must exceed the claim by about "
            f"{max(estimate - value, 0):.3g} to be refuted at this sample size"
        )
    return Finding(
        verdict=verdict,
        auditor=StatisticalPrivacyAuditor.name,
        power=power,
        statistic=Statistic(bound.name, estimate, (value, math.inf), "lower-bound"),
        epsilon_lower=value if isinstance(claim, PureDP) else None,
        delta_lower=value if isinstance(claim, ApproxDP) else None,
        confidence=confidence,
        samples=samples,
        witness={
            "pair": [pair[0], pair[1]],
            "pair_index": choice.pair_index,
            "event": event.describe(),
            "family": choice.family,
            "order": f"P[M({first}) in S] vs P[M({second}) in S]",
            "counts": {first: k_num, second: k_den},
            "confirmation_samples": n,
            "probability_bounds": probability_bounds,
            **detail,
        },
        notes=notes,
        parameters=parameters,
        plot_data=_plot_data(event, y0, y1, inside, pair),
    )


def _stated_order(bound: Any) -> float | None:
    """The Renyi order a record's bound states (None for other claims)."""
    order = bound.detail.get("alpha") if bound.name == "renyi" else None
    return None if order is None else float(np.asarray(order))


#: second counts at which a stated power's thresholds are computed (module docstring); fewer for a sequential
#: confirmation, whose confidence sequences are solved one count at a time
POWER_KNOTS, SEQUENTIAL_POWER_KNOTS = 256, 96


def _refutation_rate(claim: Claim, k_den: int, n: int, alpha: float, sequential: bool) -> Callable[[float], float]:
    """p -> the probability that confirmation's own certificate refutes when the first side's rate on the event is
    p (above the second's) and the second count is Binomial(n, k_den / n): summed over the second count's likely
    values (beyond 12 standard deviations the mass is below 1e-30), each with the smallest first count that
    refutes (bisected: above the second count the excess rises with the first; a two-sided certificate also
    refutes a far lower first count, which the search starts above)."""
    from scipy.stats import binom

    q = k_den / n
    spread = 12 * math.sqrt(n * q * (1 - q)) + 12
    dens = np.arange(max(0, math.floor(n * q - spread)), min(n, math.ceil(n * q + spread)) + 1)
    weights = binom.pmf(dens, n, q)
    # thresholds at a few knots of the second count: the threshold rises with the second count, so each count takes
    # the threshold of the next knot up, never below its own (a conservative figure, to within a knot's width)
    most = SEQUENTIAL_POWER_KNOTS if sequential else POWER_KNOTS
    knots = np.unique(np.round(np.linspace(dens[0], dens[-1], min(dens.size, most))).astype(np.int64))
    lo = knots.copy() if isinstance(claim, (RenyiDP, ZCDP)) else np.zeros(knots.size, dtype=np.int64)
    hi = np.full(knots.size, n + 1, dtype=np.int64)  # n + 1: never
    while (lo < hi).any():
        mid = (lo + hi) // 2
        probe = np.minimum(mid, n)
        ok = (np.asarray(certify(claim, probe, knots, n, alpha, sequential=sequential).excess, dtype=float) > 0) & (
            mid <= n)
        lo, hi = np.where(ok | (lo >= hi), lo, mid + 1), np.where(ok & (lo < hi), mid, hi)
    first = hi[np.searchsorted(knots, dens)]
    return lambda p: float(np.sum(weights * binom.sf(first - 1, n, min(p, 1.0))))


def _least_refuted(refuted: Callable[[float], float], low: float, high: float) -> float:
    """The smallest violation in (low, high] refuted with probability 0.9 (``refuted`` rises with it), to a
    relative 1e-7; inf when even ``high`` is not."""
    if not math.isfinite(high) or high <= low or refuted(high) < POWER_PROBABILITY:
        return math.inf
    for _ in range(80):
        if high - low <= 1e-7 * high:
            break
        mid = (low + high) / 2
        low, high = (mid, high) if refuted(mid) < POWER_PROBABILITY else (low, mid)
    return high


def _event_power(claim: Claim, k_den: int, n: int, alpha: float, event: str, *, order: float | None = None,
                 sequential: bool = False) -> dict:
    """The violation on the selected event that confirmation refutes with probability 0.9 (module docstring).
    ``order``: a Renyi claim's order the record states (its certificate's); ``sequential``: the confirmation's
    bounds are confidence sequences (its certificate at the final size; earlier looks only add refutations)."""
    q = k_den / n
    if isinstance(claim, (RenyiDP, ZCDP)):
        return _divergence_power(claim, k_den, n, alpha, event, order, sequential)
    refuted = _refutation_rate(claim, k_den, n, alpha, sequential)
    if isinstance(claim, PureDP):  # p = e^eps q, which reaches 1 at log(1/q)
        name = "epsilon"
        value = _least_refuted(lambda e: refuted(math.exp(e) * q), float(claim.epsilon),
                               math.log(1 / q) if q > 0 else math.inf)
        what = "epsilon"
    else:  # p = e^eps q + delta
        name, e_eps = "delta", math.exp(float(claim.epsilon))
        value = _least_refuted(lambda d: refuted(e_eps * q + d), 0.0, 1.0 - e_eps * q)
        what = f"delta at the claimed epsilon {float(claim.epsilon):g}"
    if math.isinf(value):
        return _no_power(name, event, n, q)
    return power(name, value, f"{what} of {value:.4g} on the selected event {{{event}}} (its second side's rate "
                 f"{q:.3g} kept) is refuted with probability {POWER_PROBABILITY:g} by {n} confirmation samples per "
                 "side")


def _divergence_power(claim: Claim, k_den: int, n: int, alpha: float, event: str, order: float | None,
                      sequential: bool) -> dict:
    """A Renyi or zCDP claim's figure on the event (module docstring): the first rate moved from the second's, up
    or down, to the nearest rate confirmation refutes with probability 0.9 in that direction; the smaller of the
    two directions' divergences (D_order, or the largest D_a / a over the certificate's orders). Downwards is
    searched as the complement event upwards: the certificate and the two-point laws' divergences are the same."""
    q = k_den / n
    name = "rho" if isinstance(claim, ZCDP) else f"D_{order:g}"

    best = (math.inf, math.nan)
    for complement in (False, True):
        second = n - k_den if complement else k_den
        p = _least_refuted(_refutation_rate(claim, second, n, alpha, sequential), second / n, 1.0)
        if not math.isfinite(p):
            continue
        value = float(bernoulli_rho(p, second / n) if isinstance(claim, ZCDP)
                      else bernoulli_renyi(order, p, second / n))
        if value < best[0]:
            best = (value, 1 - p if complement else p)
    if math.isinf(best[0]):
        return _no_power(name, event, n, q)
    measured = "rho (the largest D_a / a over the certificate's orders)" if isinstance(claim, ZCDP) else name
    return power(name, best[0], f"{measured} of the event's two-point law, its first rate {best[1]:.4g} against "
                 f"the second's {q:.3g}, is refuted with probability {POWER_PROBABILITY:g} by {n} confirmation "
                 f"samples per side on the selected event {{{event}}} (the second side's rate kept)")


def _no_power(name: str, event: str, n: int, q: float) -> dict:
    return power(name, math.inf, f"no {name} on the selected event {{{event}}} is refuted with probability "
                 f"{POWER_PROBABILITY:g} by {n} confirmation samples per side (its second side's rate {q:.3g})")


# pragma: no mutate start (data for the report's plots, not a verdict's statistics)
def _plot_data(event: Any, y0: np.ndarray, y1: np.ndarray, inside: tuple[int, int], pair) -> dict[str, Any] | None:
    """Histograms of the last confirmation batch, in the space the event lives in; ``inside``: how
    many of its outputs on each side the event holds (counted already, not counted again)."""
    if y0.shape[1] == 1 and hasattr(event, "t") and not hasattr(event, "model"):
        s0, s1, label = y0[:, 0], y1[:, 0], "output"
    elif hasattr(event, "model"):
        s0, s1, label = event.model.decision_function(y0), event.model.decision_function(y1), "classifier score"
    else:
        return {"kind": "event-bars", "inside": list(inside), "n": len(y0),
                "labels": (f"M(d0), d0={pair[0]!r}", f"M(d1), d1={pair[1]!r}"), "event": event.describe()}
    return {"kind": "threshold", **_histograms(s0, s1), "threshold": event.t, "op": event.op, "xlabel": label,
            "labels": (f"M(d0), d0={pair[0]!r}", f"M(d1), d1={pair[1]!r}")}
# pragma: no mutate end


def _histograms(y0: np.ndarray, y1: np.ndarray, bins: int = 120) -> dict[str, np.ndarray]:
    """Histograms on shared bins: one bin per value for outputs on a few integers, else equal bins
    over the central 99.9% of the pooled samples."""
    pooled = np.concatenate([y0, y1])
    values = np.unique(pooled)
    if len(values) <= bins and np.array_equal(values, np.round(values)):
        edges = np.append(values - 0.5, values[-1] + 0.5)
    else:
        lo, hi = np.quantile(pooled, [0.0005, 0.9995])
        edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    return {"edges": edges, "counts0": np.histogram(y0, edges)[0], "counts1": np.histogram(y1, edges)[0]}
