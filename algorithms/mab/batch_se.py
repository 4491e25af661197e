"""dist-mab Algorithm 1 (Chowdhury & Zhou, ICLR 2023): private batch-based successive arm elimination
with forgetting, as one policy (:mod:`dpaudit.bandits.policies`) parameterised by its batch protocol.

Batch b = 1, 2, ... has size l(b) = eta^b. Every active arm (the set Phi(b), in index order) is
pulled l(b) times in turn, one new user per pull; each user's reward goes through the protocol's
randomizer R, secure aggregation S reveals one value y_hat per arm, and the analyzer A turns it into
the batch's reward sum R_a(b). Then mu_hat_a(b) = R_a(b) / l(b) (only batch b's data: forgetting),
UCB/LCB = mu_hat -/+ beta(b), and arm a leaves iff UCB_a(b) < max over Phi(b) of LCB (after every
active arm has finished the batch). The confidence radius is eq. (2) (Lemma 2):

    beta(b) = sqrt(log(4 |Phi(b)| b^2 / p) / (2 l(b))) + sigma sqrt(log(2 |Phi(b)| b^2 / p)) / l(b)
              + h log(2 |Phi(b)| b^2 / p) / l(b)

with the instantiation's constants (sigma, h) of Assumption 1 and failure probability p.

Protocols (``protocol``; the releases are the audited ones in ``dpaudit.mechanisms.distributed.distributed_sum``):

==================== ============================================ ======================================
protocol             release per batch (n = l(b))                 (sigma, h) in beta(b)
==================== ============================================ ======================================
``exact``            none: the analyzer sees the exact sum (SE)   (0, 0)
``polya``            ``DistributedSum("polya")``, Theorem 1       (sqrt 2 / eps, 1 / eps) (Sec. 6)
``skellam``          ``DistributedSum("skellam", s=s)``, Thm 2    (2/eps + sqrt 2/(s eps), 1/(s eps)) [code]
``discrete-gaussian`` ``DistributedSum("discrete-gaussian")``,    (sqrt 2/eps + sqrt 2/(s eps), 0) [choice]
                     Theorem 4
``central``          ``CentralModularSum``, Algorithms 2-3, Thm 5 (sqrt 2 / eps, 1 / eps) [choice]
``local``            ``LocalModularRandomizer``, Algs 4-5, Thm 6  Lemma 5 form, below [choice]
``shuffle``          ``ShuffleModSum``, Theorem 3's mod sum       (sqrt 2 / eps', 1 / eps'), eps' = eps/2
==================== ============================================ ======================================

Choices where the paper is silent or prints only orders (spec 6.2):

- item 1 (beta(b)): eq. (2) with the constants above. Theorem 1's are printed in Sec. 6; Theorem 2's
  are the released code's. Theorem 4 (h = 0, sigma = O(1/eps)): the total noise, n shares N_Z(0,
  g^2/(n eps^2)), is (g/eps)^2-sub-Gaussian, i.e. (1/eps)^2 in reward units, so w.p. 1 - p it is below
  (sqrt 2 / eps) sqrt(log(2/p)); the rounding adds (sqrt 2/(s eps)) sqrt(log(2/p)) (App. D.1, Term
  (ii) with g >= s eps sqrt n); so sigma = sqrt 2/eps + sqrt 2/(s eps). Theorem 5 (central) has
  Theorem 1's noise law and parameters, so Theorem 1's constants. Theorem 6 (local, "separate
  analysis"): the analyzer's error is the sum of l(b) Lap_Z(g/eps) over g plus the rounding, so
  beta(b) = Hoeffding + [(sqrt 2/eps) sqrt(L) + max{(c/eps) sqrt(2 l(b) L), (2c/eps) L}] / l(b),
  L = log(2 |Phi(b)| b^2 / p), Lemma 5's bound with its constant c = ``LEMMA5_C`` (1.6, the mechanism
  layer's choice: the paper never prints c). Theorem 3 (shuffle): Theorem 1's form at eps' = eps/2,
  the precision and tau of that theorem (g = ceil(eps' sqrt n)).
- item 2 (tau): the releases' reconstructions (square roots restored); with ``p`` given, log(2/p)
  replaces the theorems' log(2T) in tau as in the confidence radius (the released code uses
  p = 0.1 in both).
- item 6 (Lemma 5's c): ``LEMMA5_C`` for LDP-SE's tau and radius.
- item 10 (order and horizon): arms are pulled in the active set's index order, each for its whole
  l(b) pulls; the run stops at T even mid-batch (the unfinished batch releases nothing); a single
  survivor is pulled to the end and nothing more is released (its batches would change nothing).
- item 14 (integers): g and tau are ceilings as printed, m = n g + 2 tau + 1, mod in {0..m-1}.
- Remark 4: l(b) = eta^b for any eta > 1; a non-integer eta gives l(b) = ceil(eta^b) (the paper
  needs integer batch sizes and says nothing more); Algorithm 1 prints eta = 2 (the default), the
  released code and Figs. 1-3 use 4.
- p: ``p=None`` is the theorems' p = 1/T (T the horizon, or ``T=``); the experiments use p = 0.1.

The ``shuffle`` protocol (Theorem 3, App. D.2: pure DP via secure shuffling). Parameters as printed:
eps' = eps/2, g = ceil(eps' sqrt n), p' = q = 1/(2T) (p/2 when ``p`` is given), tau = ceil((g/eps')
log(2/p')), m = n g + 2 tau + 1, shares gamma+ - gamma-, gamma+- ~ Polya(1/n, e^{-eps/g}) as printed
(``noise_parameter="printed"``, the default; the n shares sum to Lap_Z(g/eps)) or with the prime the
dump may have lost, e^{-eps'/g} (``noise_parameter="primed"``, Lap_Z(g/eps')). S is S~ o R~^n: the
Cheu-Yan randomizer R~ encodes each message as random bits (length d, unspecified by the paper) whose
uniformly shuffled multiset simulates an (eps~, q)-relaxed SecAgg, eps~ = eps/4, and the server's POST
step recovers (sum_i y_i) mod m from it, the only thing A uses. [choice] R~ is not implemented: the
relaxed SecAgg is modelled as exact SecAgg, so the decisions here are exactly those of the shuffled
protocol (they are a function of the mod-m sums POST computes, whatever R~ is); what the multiset
reveals beyond the sum, the proof's additive 2 eps~ (LLR(S(R(x)), S(R(x'))) <= 2 eps~ + LLR of the mod
sums), and POST's failure probability q are stated, not simulated. The order of the shuffled multiset
carries nothing POST uses, so the reference path's running sum mod m of the messages as they arrive is
POST's sum of the multiset. Algorithm 1's decisions with this protocol are audited exactly
(``dist-mab/thm3-privacy@algorithm,...``).

Paths (both vectorised over runs; they have the same law of the decisions, tested):

- reference (``choose``/``observe``): every user runs R as printed (``release.messages``: her own
  rounding, her own noise share, mod m), S adds the messages mod m as they arrive, A reads y_hat at
  the end of the batch (the central analyzer draws its noise there);
- fast (``next_block``/``observe_block``): a block is one arm's remaining pulls of its batch (a single
  survivor: the rest of the horizon), which the per-round path would play whatever it observes. The
  block's rounded sum comes in one step when the rewards are binary (x_hat = g x exactly, so the
  Binomial sum is all the protocol needs) or the environment gives rounded sums
  (``Pulls.rounded_sums``: a clipped Gaussian block longer than 2^14 pulls, one multinomial draw from the
  exact law of the rounded rewards); otherwise each reward is rounded (``pulls.values()``, then the release's
  :class:`~dpaudit.mechanisms.noise.RandomizedRounding`). At the end of the batch the noise of every
  arm's sum is one draw of the exact law of the n users' total (``release.secure_sum``: Lap_Z for
  Polya shares, a Skellam for Skellam shares, the n shares themselves for discrete Gaussian shares,
  a Polya difference for the local protocol's n discrete Laplace draws).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np

from dpaudit.bandits.environments import run_sums
from dpaudit.core.logspace import grouped_log_sum_exp
from dpaudit.core.validation import check, choice, integer, positive, probability
from dpaudit.mechanisms.distributed.distributed_sum import (
    LEMMA5_C,
    CentralModularSum,
    DistributedSum,
    LocalModularRandomizer,
    ShuffleModSum,
)
from dpaudit.mechanisms.noise import RandomizedRounding

PROTOCOLS = ("exact", "polya", "skellam", "discrete-gaussian", "central", "local", "shuffle")
#: the protocols whose releases (and theorems) cover eps in (0, 1) only
#: the protocols whose theorem covers eps in (0, 1) only, and that theorem
EPS_BELOW_ONE = {"discrete-gaussian": 4, "central": 5, "local": 6}
LABELS = {"exact": "SE", "polya": "Dist-DP-SE", "skellam": "Dist-RDP-SE", "discrete-gaussian": "Dist-CDP-SE",
          "central": "CDP-SE", "local": "LDP-SE", "shuffle": "Shuffle-DP-SE"}


def batch_size(eta: float, b: int) -> int:
    """l(b) = eta^b, exactly for an integer eta, else ceil(eta^b) (Remark 4)."""
    if float(eta).is_integer():
        return int(eta) ** b
    return math.ceil(eta**b)


class BatchSuccessiveElimination:
    """dist-mab Algorithm 1 with the batch protocol ``protocol`` (module docstring), bandit feedback."""

    owner: ClassVar[str] = "BatchSuccessiveElimination"
    feedback: ClassVar[str] = "bandit"
    paper: ClassVar[str] = "dist-mab"
    source: ClassVar[str] = "Algorithm 1 (private batch-based successive arm elimination)"

    def __init__(self, protocol: str = "exact", eps: float | None = None, *, s: float = 10.0, p: float | None = None,
                 eta: float = 2, T: int | None = None, c: float = LEMMA5_C, noise_parameter: str = "printed"):
        self.protocol = choice(self.owner, "protocol", protocol, PROTOCOLS)
        self.noise_parameter = choice(self.owner, "noise_parameter", noise_parameter, ShuffleModSum.NOISE_PARAMETERS)
        if self.noise_parameter != "printed" and self.protocol != "shuffle":
            raise ValueError(f"{self.owner}: noise_parameter reads Theorem 3's share decay; the {self.protocol!r} "
                             "protocol takes none")
        self.notes: list[str] = []  # what the result of a simulation should say about this run
        if self.protocol == "exact":
            if eps is not None:
                raise ValueError(f"{self.owner}: the non-private protocol takes no eps, got {eps!r}")
            self.eps = None
        else:
            self.eps = positive(self.owner, "eps", eps)
        if self.protocol in EPS_BELOW_ONE and not self.eps < 1:
            # the protocol is defined for any eps > 0 (the paper's Fig. 4 runs eps = 1); its theorem is not
            note = (f"eps = {self.eps:g} is outside the (0, 1) that Theorem {EPS_BELOW_ONE[self.protocol]} covers "
                    f"for the {self.protocol} protocol: the algorithm runs as printed, with no guarantee from the "
                    "paper")
            warnings.warn(f"{self.owner}: {note}", stacklevel=2)
            self.notes.append(note)
        self.s = positive(self.owner, "s", s)
        if self.s < 1:
            raise ValueError(f"{self.owner}: s must be >= 1 (Theorems 2 and 4), got {s!r}")
        self.p = None if p is None else probability(self.owner, "p", p, open_high=False)
        self.eta = check(self.owner, "eta", eta, lambda v: 1 < v < math.inf, "> 1 (Remark 4)")
        self.T = None if T is None else integer(self.owner, "T", T, 1)
        self.c = positive(self.owner, "c", c)
        self.sigma, self.h = self._constants()
        self.label = LABELS[self.protocol]
        self.name = self._name()
        self._releases: dict[tuple[int, int], Any] = {}

    def _name(self) -> str:
        parts = [] if self.eps is None else [f"eps={self.eps:g}"]
        if self.protocol in ("skellam", "discrete-gaussian"):
            parts.append(f"s={self.s:g}")
        if self.noise_parameter != "printed":
            parts.append("noise=e^(-eps'/g)")
        parts.append(f"eta={self.eta:g}")
        parts.append("p=1/T" if self.p is None else f"p={self.p:g}")
        if self.T is not None:
            parts.append(f"T={self.T}")
        return f"{self.label}({', '.join(parts)})"

    def __repr__(self) -> str:
        return self.name

    def _constants(self) -> tuple[float, float]:
        """(sigma, h) of Assumption 1 in eq. (2) (module docstring); the local protocol's radius has its
        own form (:meth:`radius`), with sigma its rounding term."""
        eps, s = self.eps, self.s
        if self.protocol == "exact":
            return 0.0, 0.0
        if self.protocol in ("polya", "central", "local"):
            return math.sqrt(2) / eps, (0.0 if self.protocol == "local" else 1 / eps)
        if self.protocol == "skellam":
            return 2 / eps + math.sqrt(2) / (s * eps), 1 / (s * eps)
        if self.protocol == "discrete-gaussian":
            return math.sqrt(2) / eps + math.sqrt(2) / (s * eps), 0.0
        return 2 * math.sqrt(2) / eps, 2 / eps  # shuffle: eps' = eps / 2

    # -- parameters of a batch ------------------------------------------------------------------------

    def batch_size(self, b: int) -> int:
        """l(b) = eta^b (ceil for a non-integer eta)."""
        return batch_size(self.eta, integer(self.owner, "b", b, 1))

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: p = 1/T (in eq. (2) and the
        releases' tau) reads the horizon unless ``p`` or ``T`` is given
        (:func:`dpaudit.bandits.policies.horizon_use`)."""
        return self.p is not None or self.T is not None

    def horizon_T(self, horizon: int) -> int:
        """The T of the theorems' formulas: ``T=`` if given, else the simulated horizon."""
        return self.T if self.T is not None else integer(self.owner, "horizon", horizon, 1)

    def failure(self, T: int) -> float:
        """p: as given, else 1/T."""
        return self.p if self.p is not None else 1 / T

    def release(self, b: int, T: int) -> Any:
        """Batch b's protocol (a release of ``dpaudit.mechanisms``) for horizon T; None for ``exact``."""
        key = (int(b), int(T))
        if self.protocol == "exact":
            return None
        if key not in self._releases:
            n = self.batch_size(b)
            if self.protocol in ("polya", "skellam", "discrete-gaussian"):
                rel = DistributedSum(self.protocol, self.eps, n, T, s=self.s, p=self.p, outside_theorem=True)
            elif self.protocol == "central":
                rel = CentralModularSum(self.eps, n, T, p=self.p, outside_theorem=True)
            elif self.protocol == "local":
                rel = LocalModularRandomizer(self.eps, n, T, c=self.c, p=self.p, outside_theorem=True)
            else:
                rel = ShuffleModSum(self.eps, n, T, noise_parameter=self.noise_parameter, p=self.p)
            self._releases[key] = rel
        return self._releases[key]

    def radius(self, b: int, active: Any, T: int) -> np.ndarray:
        """beta(b) of eq. (2) for |Phi(b)| = ``active`` (array), batch b, horizon T (module docstring)."""
        active = np.asarray(active, dtype=float)
        length = self.batch_size(b)
        p = self.failure(T)
        log4 = np.log(4 * active * b * b / p)
        log2 = np.log(2 * active * b * b / p)
        out = np.sqrt(log4 / (2 * length)) + self.sigma * np.sqrt(log2) / length + self.h * log2 / length
        if self.protocol == "local":  # Lemma 5 on the sum of l(b) Lap_Z(g/eps), over g
            lemma5 = np.maximum(np.sqrt(2 * length * log2), 2 * log2) * self.c / self.eps
            out = out + lemma5 / length
        return out

    # -- the policy protocol ------------------------------------------------------------------------

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        runs = integer(self.owner, "runs", runs, 0)
        arms = integer(self.owner, "arms", arms, 1)
        self._horizon = integer(self.owner, "horizon", horizon, 1)
        self._T = self.horizon_T(horizon)
        self._rng = rng
        self._lengths = self._length_table()
        self._alive = np.ones((runs, arms), dtype=bool)  # Phi(b), per run
        self._count = np.full(runs, arms)  # |Phi(b)|
        self._batch = np.ones(runs, dtype=np.int64)  # b
        self._done = np.zeros(runs, dtype=np.int64)  # pulls made in the running batch
        # the running batch's per-arm statistic: SecAgg's running sum mod m (reference path), the rounded
        # sum (fast path), or the reward sum (non-private)
        self._acc = np.zeros((runs, arms), dtype=float if self.protocol == "exact" else np.int64)

    def _length_table(self) -> np.ndarray:
        """l(b) for b = 0, 1, ... up to the first batch with l(b) >= horizon (index 0 unused): a batch of
        two or more arms that long never ends within the horizon, so no run needs a later one."""
        lengths = [1]
        while lengths[-1] < self._horizon or len(lengths) < 2:
            lengths.append(self.batch_size(len(lengths)))
        return np.array(lengths, dtype=np.int64)

    def _length(self) -> np.ndarray:
        return self._lengths[np.minimum(self._batch, self._lengths.size - 1)]

    def _current_arm(self, length: np.ndarray) -> np.ndarray:
        # the k-th active arm in index order, k = pulls made // l(b) (a single survivor: k stays 0)
        k = self._done // length
        return np.argmax(np.cumsum(self._alive, axis=1) > k[:, None], axis=1)

    def choose(self, t: int) -> np.ndarray:
        return self._current_arm(self._length())

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        rows = np.flatnonzero(self._count > 1)  # a single survivor releases nothing more
        if rows.size == 0:
            return
        played = arms[rows]
        if self.protocol == "exact":
            self._acc[rows, played] += rewards[rows]
        else:
            for b, sel in self._groups(rows):  # one release per batch index
                rel = self.release(b, self._T)
                messages = rel.messages(rewards[rows[sel]], self._rng)  # R: each user's message
                self._acc[rows[sel], played[sel]] = np.mod(self._acc[rows[sel], played[sel]] + messages, rel.m)  # S
        self._done[rows] += 1
        self._end_finished(rows, fast=False)

    def next_block(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        length = self._length()
        arms = self._current_arm(length)
        left = length - self._done % length  # the pulls left in this arm's share of the batch
        rest = np.maximum(self._horizon - np.asarray(t, dtype=np.int64) + 1, 1)
        return arms, np.where(self._count > 1, left, rest).astype(np.int64)

    def observe_block(self, t: np.ndarray, arms: np.ndarray, pulls: Any) -> None:
        counts = np.asarray(pulls.counts, dtype=np.int64)
        rows = np.flatnonzero((self._count > 1) & (counts > 0))
        if rows.size == 0:
            return
        played = arms[rows]
        if self.protocol == "exact":
            self._acc[rows, played] += pulls.sums[rows]
        else:
            self._acc[rows, played] += self._rounded_sums(pulls, rows)[rows]
        self._done[rows] += counts[rows]
        self._end_finished(rows, fast=True)

    def _rounded_sums(self, pulls: Any, rows: np.ndarray) -> np.ndarray:
        """Each run's sum of x_hat over its block at its batch's precision g (runs outside ``rows``: any)."""
        g = np.ones(len(pulls.counts), dtype=np.int64)
        for b, sel in self._groups(rows):
            g[rows[sel]] = self.release(b, self._T).g
        if pulls.roundable:  # binary rewards, or an environment that draws rounded sums
            return pulls.rounded_sums(g)
        values = pulls.values()
        counts = np.asarray(pulls.counts, dtype=np.int64)
        owner = np.repeat(np.arange(counts.size), counts)
        wanted = np.zeros(counts.size, dtype=bool)
        wanted[rows] = True
        x_hat = np.zeros(values.size, dtype=np.int64)
        for precision in np.unique(g[rows]):
            mask = wanted[owner] & (g[owner] == precision)
            x_hat[mask] = RandomizedRounding(int(precision)).round(values[mask], self._rng)
        return np.rint(run_sums(x_hat.astype(float), counts)).astype(np.int64)

    def _groups(self, rows: np.ndarray):
        """(b, mask over rows) for every batch index among the runs ``rows``."""
        batches = self._batch[rows]
        for b in np.unique(batches):
            yield int(b), batches == b

    def _end_finished(self, rows: np.ndarray, fast: bool) -> None:
        ended = rows[self._done[rows] == self._count[rows] * self._length()[rows]]
        for b, sel in self._groups(ended):
            self._end_batch(ended[sel], b, fast)

    def _end_batch(self, rows: np.ndarray, b: int, fast: bool) -> None:
        """Analyze every active arm's y_hat, then eliminate (lines 11-16)."""
        alive = self._alive[rows]
        acc = self._acc[rows][alive]  # runs in order, each run's active arms in index order
        rel = self.release(b, self._T)
        if rel is None:
            sums = acc
        elif fast:
            sums = rel.analyze(rel.secure_sum(acc, self._rng))  # the total noise from its exact law
        else:
            sums = rel.analyzer(acc, self._rng)  # acc is y_hat already (reduced mod m as it arrived)
        self._eliminate(rows, b, sums)

    def _eliminate(self, rows: np.ndarray, b: int, sums: np.ndarray) -> None:
        alive = self._alive[rows]
        mu = np.full(alive.shape, np.nan)
        mu[alive] = sums / self.batch_size(b)
        keep = surviving(mu, self.radius(b, self._count[rows], self._T)[:, None], alive)
        self._alive[rows] = keep
        self._count[rows] = keep.sum(axis=1)
        self._batch[rows] = b + 1
        self._done[rows] = 0
        self._acc[rows] = 0

    # -- the exact law of the decisions, two arms ----------------------------------------------------

    def batch_starts(self, horizon: int) -> list[tuple[int, int]]:
        """(s_b, l(b)) of every batch b while both of two arms are active, s_b its first round
        (1-based), for the batches that start within ``horizon`` rounds."""
        horizon = integer(self.owner, "horizon", horizon, 1)
        out, start, b = [], 1, 1
        while start <= horizon:
            length = self.batch_size(b)
            out.append((start, length))
            start, b = start + 2 * length, b + 1
        return out

    def two_arm_decision_rounds(self, horizon: int) -> list[int]:
        """With two arms, rounds whose decisions give the whole decision sequence: for every batch b >= 2
        that starts within the horizon, its first round s_b (arm 0 unless only arm 1 is left) and
        s_b + l(b) (arm 1 unless only arm 0 is left), so each pair says which arms survived batch b - 1."""
        rounds = []
        for start, length in self.batch_starts(horizon)[1:]:
            rounds += [t for t in (start, start + length) if t <= horizon]
        return rounds

    def decision_distribution(self, table: Any, rounds: Any) -> Any:
        """The exact law of the arms played at ``rounds`` on a reward table of two arms, shape (T, 2)
        (:class:`dpaudit.bandits.transcripts.DecisionTranscript`'s input), from the releases' exact laws.

        Each batch that both arms enter ends in one of: arm 1 eliminated (c_0 - c_1 > 2 beta(b) l(b) g,
        c = the analyzer's corrected sum in units of 1/g), arm 0 eliminated (c_1 - c_0 > the same), or
        neither; its probabilities come from the law of D = c_0 - c_1, the log-space convolution of the
        two arms' independent y_hat laws (``release.distribution`` on the batch's rewards), so far
        tails keep their relative precision. A path of the run is the first batch with an elimination
        (and which arm), or none; batches are independent, so its probability is a product; the
        decisions at ``rounds`` are a function of the path. Not for the non-private or the local
        protocol (the local protocol's y_hat law is an n-fold convolution of messages, not built here).
        """
        from dpaudit.core.distributions import FiniteDistribution

        if self.protocol in ("exact", "local"):
            raise ValueError(f"{self.owner}: the exact law of the decisions is built for the SecAgg, shuffle and "
                             f"central protocols, not {self.protocol!r}")
        x, horizon, rounds, batches = self._two_arm_setup(table, rounds)
        T = self.horizon_T(horizon)
        paths: list[tuple[tuple[int, int] | None, float]] = []  # ((batch, eliminated arm) or None, log prob)
        log_none, error, tail = 0.0, 0.0, 0.0
        for b, start, length in batches:
            rel = self.release(b, T)
            laws = [rel.distribution(x[start - 1 + a * length: start - 1 + (a + 1) * length, a]) for a in (0, 1)]
            log_elim, law_error = self._elimination_laws(rel, laws, self.radius(b, 2, T).item() * 2 * length * rel.g)
            error += law_error
            tail += sum(law.tail_mass for law in laws)
            for arm in (0, 1):
                paths.append(((b, arm), log_none + log_elim[arm]))
            log_none += log_elim[2]
        paths.append((None, log_none))
        decisions = np.array([self._path_decisions(path, rounds, horizon) for path, _ in paths])
        logs = np.array([lp for _, lp in paths])
        outcomes, inverse = np.unique(decisions, axis=0, return_inverse=True)
        merged = grouped_log_sum_exp(logs, inverse.ravel(), len(outcomes))
        return FiniteDistribution(outcomes, np.minimum(merged, 0.0), log_error=min(error + 1e-12, 0.5),
                                  tail_mass=min(tail, 0.5))

    def decisions(self, table: Any, rounds: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """The arms played at ``rounds`` in ``size`` runs on a reward table of two arms, with the law of the
        per-round run: each batch's rounded sums drawn from their exact law given the table's rewards
        (:class:`~dpaudit.mechanisms.noise.RandomizedRounding`'s sum law), the noise by
        ``release.secure_sum``, then the analyzer and the elimination rule (a DecisionTranscript's fast path).
        Other numbers of arms run the per-round path."""
        if np.ndim(table) == 2 and np.shape(table)[1] != 2:
            from dpaudit.bandits.policies import run_decisions

            return run_decisions(self, np.asarray(table, dtype=float), tuple(int(t) for t in rounds), size, rng)
        x, horizon, rounds, batches = self._two_arm_setup(table, rounds)
        T = self.horizon_T(horizon)
        path = np.full(size, len(batches) * 2, dtype=np.int64)  # index of the run's path; last = none
        for i, (b, start, length) in enumerate(batches):
            rows = np.flatnonzero(path == len(batches) * 2)  # both arms still active
            rel = self.release(b, T)
            sums = []
            for arm in (0, 1):
                rewards = x[start - 1 + arm * length: start - 1 + (arm + 1) * length, arm]
                if rel is None:
                    sums.append(np.full(rows.size, rewards.sum()))
                    continue
                totals = RandomizedRounding(rel.g).sum_law(rewards).sample(rows.size, rng)
                sums.append(rel.analyze(rel.secure_sum(totals, rng)))
            mu = np.column_stack(sums) / length
            gone = ~surviving(mu, self.radius(b, 2, T).item(), np.ones(mu.shape, dtype=bool))  # one arm at most
            for arm in (0, 1):
                path[rows[gone[:, arm]]] = 2 * i + arm
        decisions = np.array([self._path_decisions((b, arm), rounds, horizon) for b, *_ in batches for arm in (0, 1)]
                             + [self._path_decisions(None, rounds, horizon)])
        return decisions[path]

    def _two_arm_setup(self, table: Any, rounds: Any) -> tuple[np.ndarray, int, np.ndarray, list[tuple[int, int, int]]]:
        x = np.asarray(table, dtype=float)
        if x.ndim != 2 or x.shape[1] != 2:
            raise ValueError(f"{self.owner}: the decisions' law is built for two arms (a table of shape (T, 2)), "
                             f"got shape {x.shape}")
        horizon = len(x)
        rounds = np.asarray(list(rounds), dtype=np.int64)
        if rounds.size == 0 or rounds.min() < 1 or rounds.max() > horizon:
            raise ValueError(f"{self.owner}: rounds must lie in 1..{horizon}")
        # the batches that end before the last recorded round can change what it records
        batches = [(b, start, length) for b, (start, length) in enumerate(self.batch_starts(horizon), 1)
                   if start + 2 * length - 1 < rounds[-1]]
        return x, horizon, rounds, batches

    @staticmethod
    def _elimination_laws(rel: Any, laws: list[Any], threshold: float) -> tuple[np.ndarray, float]:
        """log P(arm 0 eliminated), log P(arm 1 eliminated), log P(neither) for one batch, and a bound on
        their log errors: arm 1 goes when D = c_0 - c_1 > threshold, arm 0 when -D > threshold."""
        from dpaudit.mechanisms.distributed.wrapped_sums import log_convolve

        top = rel.n * rel.g + rel.tau  # the analyzer's correction: y > top stands for y - m
        corrected = []
        for law in laws:
            if not np.array_equal(law.outcomes, np.arange(rel.m)):
                raise ValueError("BatchSuccessiveElimination: a release's y_hat law must list every residue mod m")
            corrected.append(np.concatenate([law.log_probs[top + 1:], law.log_probs[: top + 1]]))  # c = top-m+1..top
        log_d = log_convolve(corrected[0], corrected[1][::-1])  # D = c_0 - c_1 from -(m - 1) to m - 1
        d = np.arange(-(rel.m - 1), rel.m)
        finite = log_d[np.isfinite(log_d)]
        rounding = (math.log2(rel.m) + 8) * 2.0**-52 * (1 + float(np.abs(finite).max()))
        side = np.where(d < -threshold, 0, np.where(d > threshold, 1, 2))
        out = grouped_log_sum_exp(log_d, side, 3)
        return np.minimum(out, 0.0), laws[0].log_error + laws[1].log_error + 2 * rounding

    def _path_decisions(self, path: tuple[int, int] | None, rounds: np.ndarray, horizon: int) -> np.ndarray:
        """The arms played at ``rounds`` when the run eliminates ``path`` = (batch, arm) first (None: never)."""
        out = np.empty(rounds.size, dtype=np.int64)
        for i, t in enumerate(rounds):
            for b, (start, length) in enumerate(self.batch_starts(horizon), 1):
                if path is not None and b > path[0]:
                    out[i] = 1 - path[1]  # the survivor, to the end
                    break
                if t < start + 2 * length:
                    out[i] = 0 if t < start + length else 1
                    break
        return out


def surviving(mu: np.ndarray, beta: Any, alive: np.ndarray) -> np.ndarray:
    """Line 16: the active arms a with UCB_a = mu_a + beta >= max over active a' of LCB_a' = mu_a' - beta
    (per run, rows of ``mu``)."""
    best_lcb = np.where(alive, mu - beta, -np.inf).max(axis=1, keepdims=True)
    return alive & (mu + beta >= best_lcb)


__all__ = ["EPS_BELOW_ONE", "LABELS", "PROTOCOLS", "BatchSuccessiveElimination", "batch_size"]
