"""Shared machinery of the UCB-type bandit policies (UCB1, Anytime-Lazy-UCB, Hybrid-UCB): per-run,
per-arm state arrays shaped (runs, K), the index argmax, and the exact block certificate of the
policies whose estimate moves after every pull.

Index policies here play every arm once first (rounds 1..K play arms 0..K-1: an arm never pulled
has index +inf and argmax takes the lowest such arm), then argmax_j index_j(t); ties go to the lowest
arm (numpy's argmax), the papers being silent on ties.

Fast path of a per-pull index (:class:`PerPullIndexPolicy`): at round t the per-round path plays
J = argmax_j index_j(t). If J is played i more times, its estimate after those pulls is at least
what it would be with rewards 0 (rewards lie in [0, 1] and the estimate increases with the arm's
reward sum), while every other arm's estimate stays put and only the round in its bonus moves.
So if that lower bound of J's index at round t + i beats every other arm's index at t + i for
i = 1..L-1, the per-round path plays J at every round t..t+L-1 whatever the rewards: a block of
length L. The certificate evaluates the indices with the same expressions as ``choose`` (float
addition and division are monotone, so the lower bound stays a lower bound in floating point) and
asks for a strict win, so ties are never certified. The other arms' indices grow with t (their
bonus does; float log and sqrt are monotone), so over a stretch of rounds they are bounded by their
value at its last round, and the certificate evaluates them at no more than :data:`CHECKPOINTS`
rounds per window. Any noise the certificate reads is drawn before it is read and kept for the
pulls it belongs to (never discarded), so the trajectory is the per-round path's function of the
same draws.

The certificate cannot see the rewards, so a block ends where the worst case (rewards 0) would let
another arm overtake: the number of blocks is at least the number of arm switches of the per-round
trajectory, and near UCB1's regime (large eps, small gaps) that is a sizeable share of the rounds.

Compiled: with the ``[fast]`` extra (numba), a policy whose bonus has a :meth:`~PerPullIndexPolicy.bonus_form`
(UCB1, Hybrid-UCB) takes its argmax and certificate in :mod:`.blocks_compiled`, run by run and stopping at the
first round the certificate fails, with the numpy path's numbers (its logarithms read from numpy's own,
:func:`log_table`): the same blocks, so a simulation's result does not depend on the extra. The noise a block
reads is still drawn here, before the compiled certificate runs, in the same order. Hybrid-UCB's update after a
block runs compiled too (:func:`~.blocks_compiled.hybrid_add`), once the chunks of noise its pulls read are drawn.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from dpaudit.core.validation import integer

try:  # the compiled certificate (an optional dependency: pip install dpaudit[fast])
    from . import blocks_compiled as _compiled
except ImportError:  # numba missing: the numpy certificate, the same blocks
    _compiled = None
#: whether a per-pull index policy with a :meth:`~PerPullIndexPolicy.bonus_form` certifies its blocks compiled
COMPILED = _compiled is not None

#: largest look-ahead window of a block certificate (pulls): bounds the (runs, window, K) work arrays
MAX_WINDOW = 4096
#: most rounds at which a certificate evaluates the other arms' indices
CHECKPOINTS = 16


_LOG_TABLES: dict[str, np.ndarray] = {}


def log_table(name: str, size: int) -> np.ndarray:
    """numpy's ``log2`` or ``log`` of 0, 1, .., size - 1 (at least), kept per process and grown by doubling: what the
    compiled certificate reads for L(t) and log2(p + 1), so that its indices are the numpy path's to the bit (numpy's
    logarithms differ from the C library's in the last bit of a few integers in 10^5). Read-only."""
    table = _LOG_TABLES.get(name)
    if table is None or table.size < size:
        n = max(size, 2 * (table.size if table is not None else 0), 1 << 16)
        with np.errstate(divide="ignore"):
            table = {"log2": np.log2, "log": np.log}[name](np.arange(n, dtype=float))
        table.flags.writeable = False
        _LOG_TABLES[name] = table
    return table


class IndexPolicy:
    """Bookkeeping shared by the index policies: runs, arms, horizon, generator, pull counts."""

    owner: ClassVar[str] = "IndexPolicy"
    feedback: ClassVar[str] = "bandit"
    #: the horizon bounds only the blocks of the fast path and the noise drawn ahead, never a decision's law
    anytime: ClassVar[bool] = True
    paper: ClassVar[str] = "private-online"

    name: str

    def __repr__(self) -> str:
        return self.name

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self.runs = integer(self.owner, "runs", runs, 0)
        self.K = integer(self.owner, "arms", arms, 1)
        self.horizon = integer(self.owner, "horizon", horizon, 1)
        self._rng = rng
        self._rows = np.arange(self.runs)
        self.pulls = np.zeros((self.runs, self.K), dtype=np.int64)  # O_j, per run

    def index(self, t: Any) -> np.ndarray:
        """Every arm's index at round ``t`` (a scalar or one round per run), shape (runs, K); +inf for
        an arm never pulled."""
        raise NotImplementedError

    def choose(self, t: int) -> np.ndarray:
        return np.argmax(self.index(t), axis=1)

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        self._add(self._rows, np.asarray(arms, dtype=np.int64), np.ones(self.runs, dtype=np.int64),
                  np.asarray(rewards, dtype=float))

    def observe_block(self, t: np.ndarray, arms: np.ndarray, pulls: Any) -> None:
        rows = np.flatnonzero(pulls.counts > 0)
        if rows.size:
            self._add(rows, np.asarray(arms, dtype=np.int64)[rows], pulls.counts[rows], pulls.sums[rows])

    def _add(self, rows: np.ndarray, arms: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        """Runs ``rows`` pulled ``arms`` ``counts`` times with reward sums ``sums`` (a block never
        crosses a point where the arm's state changes other than by its estimate)."""
        raise NotImplementedError


class PerPullIndexPolicy(IndexPolicy):
    """An index policy whose played arm's estimate moves after every pull (UCB1, Hybrid-UCB), with the
    block certificate of the module docstring as its fast path. A subclass gives

    - ``bonus(t, pulls)``: the exploration bonus (elementwise, ``t`` and ``pulls`` broadcast);
    - ``self.estimates``: the current estimates, shape (runs, K);
    - ``_capacity(rows, arms)``: how many pulls of ``arms`` the state can take before it changes
      otherwise than by the estimate (at least 1), after preparing any noise those pulls read;
    - ``_lower_estimates(rows, arms, extra)``: the estimate of ``arms`` after ``extra`` (shape
      (rows, W), entries within the capacity) more pulls with rewards 0."""

    def bonus(self, t: Any, pulls: Any) -> np.ndarray:
        raise NotImplementedError

    def bonus_form(self) -> tuple[str, float, float, float] | None:
        """(log, a, c, eps) when :meth:`bonus` is ``sqrt(a L(t) / p) + c L(t) floor(log2(p + 1)) / (p eps)`` with
        L = numpy's ``log`` or ``log2`` and these operations in this order (the second term left out when c = 0):
        the compiled certificate's bonus (:mod:`.blocks_compiled`). None: the numpy certificate."""
        return None

    def lower_parts(self, rows: np.ndarray, arms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(head, noise, leaf) such that :meth:`_lower_estimates` at ``extra`` i is ``(head + noise[rows, arms,
        leaf + i]) / (pulls + i)``, or ``head / (pulls + i)`` when ``noise`` is empty: the compiled certificate's
        lower bounds, read only for the pulls it reaches."""
        raise NotImplementedError

    #: whether the blocks may run compiled when numba is installed: :meth:`next_block`'s argmax and certificate (where
    #: :meth:`bonus_form` is given) and a subclass's update after a block (Hybrid-UCB's); the tests set it False on an
    #: instance to hold the two paths to the same blocks
    compiled_blocks: ClassVar[bool] = True

    anytime: ClassVar[bool] = True

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        super().start(runs, arms, horizon, rng)
        self.estimates = np.zeros((self.runs, self.K))
        # the window a run's next certificate tries, per arm: doubled when the last one passed whole
        self._window = np.full((self.runs, self.K), 2, dtype=np.int64)

    def index(self, t: Any) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if t.ndim == 1:
            t = t[:, None]
        pulled = self.pulls > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            value = self.estimates + self.bonus(t, self.pulls)
        return np.where(pulled, value, np.inf)

    def choose(self, t: int) -> np.ndarray:
        """argmax_j index_j(t), compiled (the same arms) when the blocks are (:attr:`compiled_blocks`)."""
        form = self.bonus_form() if COMPILED and self.compiled_blocks else None
        if form is None:
            return super().choose(t)
        return self._compiled_argmax(np.full(self.runs, t, dtype=np.int64), form)

    def _log_tables(self, t: np.ndarray, form: tuple[str, float, float, float]) -> tuple[np.ndarray, np.ndarray]:
        """The compiled bonus's L(t) and log2 tables, long enough for a window past each run's round ``t`` (runs,)
        and its pulls."""
        return (log_table(form[0], int(t.max(initial=1)) + MAX_WINDOW + 2),
                log_table("log2", int(self.pulls.max(initial=0)) + MAX_WINDOW + 2))

    def _compiled_argmax(self, t: np.ndarray, form: tuple[str, float, float, float], tables: tuple | None = None
                         ) -> np.ndarray:
        """:func:`~.blocks_compiled.choose_arms` at each run's round ``t`` (runs,), on ``tables``
        (:meth:`_log_tables` if not given)."""
        played = np.empty(self.runs, dtype=np.int64)
        table, log2 = tables if tables is not None else self._log_tables(t, form)
        _compiled.choose_arms(t, self.estimates, self.pulls, table, log2, *form[1:], played)
        return played

    def next_block(self, t: np.ndarray, limit: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The block certificate of the module docstring; ``limit`` (the protocol's option) caps the rounds it
        certifies: a run whose block the engine cuts to one round gets no certificate (nor the noise a
        certificate prepares ahead, which its pulls then draw when they read it: the same law). Compiled
        (:mod:`.blocks_compiled`) when numba is installed and the bonus has a :meth:`bonus_form`: the same
        blocks."""
        t = np.asarray(t, dtype=np.int64)
        form = self.bonus_form() if COMPILED and self.compiled_blocks else None
        if form is not None:
            table, log2 = self._log_tables(t, form)
            played = self._compiled_argmax(t, form, (table, log2))
        else:
            played = np.argmax(self.index(t), axis=1)
        lengths = np.ones(self.runs, dtype=np.int64)
        wanted = (self.pulls[self._rows, played] > 0) & (t <= self.horizon)
        if limit is not None:
            limit = np.asarray(limit, dtype=np.int64)
            wanted &= limit > 1
        rows = np.flatnonzero(wanted)
        if rows.size == 0:
            return played, lengths
        arms = played[rows]
        capacity = self._capacity(rows, arms)
        window = np.minimum(capacity, self._window[rows, arms])  # pulls the block may hold
        capped = np.zeros(rows.size, dtype=bool)
        if limit is not None:
            capped = limit[rows] < window
            window = np.minimum(window, limit[rows])
        width = int(min(window.max(), MAX_WINDOW))
        if width < 2:
            return played, lengths
        # the other arms' indices grow with t: bound them over a stretch of ``step`` rounds by their
        # value at its end, at no more than CHECKPOINTS points per window
        step = -(-(width - 1) // CHECKPOINTS)
        if form is not None:
            head, noise, leaf = self.lower_parts(rows, arms)
            _compiled.certify(rows, arms, t[rows], window, capped, width, step, head, noise, leaf, self.estimates,
                              self.pulls, table, log2, *form[1:], lengths, self._window)
            return played, lengths
        extra = np.arange(1, width)[None, :]  # i more pulls of J, checked at round t + i
        inside = extra < window[:, None]
        extra_pulls = np.minimum(extra, window[:, None] - 1)
        start = t[rows][:, None]
        own = self.pulls[rows, arms][:, None] + extra_pulls
        points = np.arange(step, width - 1 + step, step)
        points[-1] = width - 1
        with np.errstate(divide="ignore", invalid="ignore"):
            lower = self._lower_estimates(rows, arms, extra_pulls)
            lower_index = lower + self.bonus((start + extra).astype(float), own)
            others = self.estimates[rows][:, None, :] + self.bonus((start + points)[:, :, None].astype(float),
                                                                   self.pulls[rows][:, None, :])
        others[np.arange(rows.size), :, arms] = -np.inf
        others = others.max(axis=2)[:, (extra[0] - 1) // step]  # the stretch holding round t + i
        wins = (lower_index > others) & inside
        passed = np.where(wins.all(axis=1), width - 1, np.argmin(wins, axis=1))
        lengths[rows] = 1 + passed
        # the next window of (run, arm): twice this one when it passed whole, else twice the block
        whole = passed >= window - 1
        # (a window the limit cut that passed whole says nothing about the next: it stays)
        grown = np.where(whole, 2 * window, 2 * (1 + passed))
        self._window[rows, arms] = np.maximum(2, np.where(whole & capped, self._window[rows, arms], grown))
        return played, lengths

    def _capacity(self, rows: np.ndarray, arms: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _lower_estimates(self, rows: np.ndarray, arms: np.ndarray, extra: np.ndarray) -> np.ndarray:
        raise NotImplementedError


__all__ = ["CHECKPOINTS", "COMPILED", "MAX_WINDOW", "IndexPolicy", "PerPullIndexPolicy", "log_table"]
