"""shuffle-glm Algorithm 2 (joint-DP GLM bandits with adversarial contexts), vectorised over runs: the round
structure shared by JDP-GLM (the theory parameters of Sec. 6) and Private-GLM (the experiments' Remark A.1
version). What differs between the two, the parameters and the optimizer, is supplied by a subclass.

Round t (the paper's lines; V, H_t are the noisy prefix sums of the trees B_V, B_H plus lambda I):

    criterion I  (line 4): max_x ||x||^2_{V^-1} >= threshold        (Algorithm 2: 1 / (gamma^2 kappa R^2))
        play argmax_x ||x||_{V^-1}; T_o <- T_o + {t}; leaf x x^T into B_V, 0 into B_H;
        theta_o <- optimizer on {(r_s, x_s)}_{s in T_o}                              (line 8)
    criterion II (lines 10-16): running max of det(H_s), s <= t; if it exceeds 2 x its value at the last
        switch tau: tau <- t, H_tau <- H_t, theta_tau <- optimizer on {(r_s, x_s)}_{s in [t-1] minus T_o};
        keep the arms with UCB_o(x) >= max_z LCB_o(z) (eqs. 16-17, width gamma sqrt(kappa) ||x||_{V^-1}
        around <x, theta_o>); play argmax <x, theta_tau> + beta ||x||_{H_tau^-1} (eq. 18);
        leaf (mu'(<x, theta_o>)/e) x x^T into B_H, 0 into B_V                          (line 24)

Stop rule (Remark A.1, Lemma I.5; the pseudo-code has no counters): count1 / count2 count the optimizer calls
for theta_o / theta_tau; at count1_cutoff (count2_cutoff) theta_o (theta_tau) is frozen. A criterion-II switch
still moves tau and H_tau after count2_cutoff (they are post-processing of the released H), only theta_tau
stays.

Choices where the paper is silent (the spec's 3.2 and 6.2):
  - theta_o = theta_tau = 0, H_tau = lambda I and the running maximum of det(H_s), s <= 0, is det(lambda I) =
    lambda^d before the first switch; the switch test is strict (line 11's ">"); the running maximum is
    updated on every round (exploration rounds too: max_{s <= t} ranges over all s);
  - V and H at round t are lambda I plus the noisy sums of leaves 1..t-1 (round 1: lambda I); each round
    inserts one leaf in each tree, the zero leaf in the tree not updated;
  - the noisy V, H may be indefinite; ||x||^2 in their inverses is floored at 0 before a square root;
  - a switch when no criterion-II round has been seen yet (n = 0 points) moves tau but calls no optimizer;
  - ties (criterion I's argmax and eq. 18's) go to the lowest arm
    (:func:`~dpaudit.algorithms.linear.linucb.first_best`);
  - optimizer calls are made together for the runs that call at the same round on the same number of
    points (one call on (runs, n, d) data); runs calling with different n are separate calls. A run calls at
    most count1_cutoff + count2_cutoff times, so the loop is over calls, not over rounds or runs.

The noise comes from the audited releases only: the trees are
:class:`~dpaudit.mechanisms.glm.exploration_set.SymmetricGaussianTree` streams (:meth:`stream`), the optimizers
the subclass's release objects. With ``record=True`` the policy keeps every node noise and optimizer output,
so that :func:`~.algorithm2_reference.algorithm2_one_run` replays a run and must make the same decisions. With
numba (the ``fast`` extra) and nothing recorded, a round's choice runs in two compiled passes over the runs
(:meth:`Algorithm2.compiled_choice`), the optimizer calls and the releases between them as on the numpy path.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpaudit.algorithms.environments.glm import PlayedGLMRewards
from dpaudit.algorithms.linear.linucb import first_best
from dpaudit.bandits.policies import checked_contexts
from dpaudit.core.validation import integer, positive, probability
from dpaudit.mechanisms.glm.exploration_set import SymmetricGaussianTree, TreeStream, node_noise_ahead

from .base import RoundByRound, block_arrays, block_contexts, curvature, planned_horizon, play_round_by_round
from .mle import AVAILABLE as COMPILED
from .mle import compiled_link

if COMPILED:  # numba is installed (the fast extra)
    from .compiled import algorithm2_choice, algorithm2_criteria, algorithm2_rounds

#: rounds of node noise drawn ahead for a compiled block (:meth:`Algorithm2.play_rounds`): FIRST_AHEAD after a round
#: that stopped, doubling after each chunk played whole, up to NOISE_AHEAD
FIRST_AHEAD, NOISE_AHEAD = 8, 256
#: a block of fewer rounds is played round by round (e.g. a JDP transcript's 16 rounds, each with a call)
FEWEST_ROUNDS = 32
#: after k blocks in a row that stopped at their first round, the next 2^k - 1 rounds (at most this many) go round by
#: round before a block is tried again
ROUND_BY_ROUND_MOST = 63


@dataclass(frozen=True)
class Algorithm2Settings:
    """The numbers one run of Algorithm 2 needs: lambda (V = H = lambda I at the start), the criterion-I
    threshold, the elimination width gamma sqrt(kappa), the UCB width beta, the cutoffs and the trees' node
    noise sigma (B_V's and B_H's)."""

    lam: float
    threshold: float
    elimination_width: float
    beta: float
    count1_cutoff: int
    count2_cutoff: int
    sigma_V: float
    sigma_H: float


def cumulant_gradient(link: Any, regularisation: float):
    """Per-point gradients of the paper's loss l(theta, r, x) = -r <x, theta> + int_0^<x, theta> mu plus
    (regularisation / 2) ||theta||^2, for each run's own data: (mu(<x, theta>) - r) x + regularisation theta.
    Data: (rewards (runs, n), contexts (runs, n, d)); theta (runs, d) -> (runs, n, d). |mu - r| <= R keeps
    it Lipschitz (the probit log-likelihood's gradient is not bounded)."""

    def gradient(theta: np.ndarray, data: Any) -> np.ndarray:
        rewards, contexts = data
        z = np.einsum("rnd,rd->rn", contexts, theta)
        return (link.mean(z) - rewards)[..., None] * contexts + regularisation * theta[:, None, :]

    return gradient


class Algorithm2(RoundByRound):
    """Algorithm 2's rounds (module docstring); subclasses give :meth:`settings` and :meth:`fit`."""

    owner: ClassVar[str] = "Algorithm2"
    feedback: ClassVar[str] = "bandit"
    contextual: ClassVar[bool] = True
    paper: ClassVar[str] = "shuffle-glm"

    def __init__(self, eps: float, delta: float, zeta: float, S: float, kappa: float | None = None,
                 kappa_star: float | None = None, link: str = "logistic", R: float = 1.0, T: int | None = None,
                 record: bool = False):
        owner = self.owner
        self.eps = positive(owner, "eps", eps)
        self.delta = probability(owner, "delta", delta)
        self.zeta = probability(owner, "zeta", zeta)
        self.S = positive(owner, "S", S)
        self.R = positive(owner, "R", R)
        self.link, self.kappa, self.kappa_star = curvature(owner, link, self.S, kappa, kappa_star)
        self.T = None if T is None else integer(owner, "T", T, 2)
        self.record = bool(record)
        self.notes: list[str] = []
        # "paper": Algorithm 2 as printed; "released-code": the cited code's departures (PrivateGLM's docstring)
        self.variant = "paper"

    def __repr__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return (f"{self.owner}(eps={self.eps:g}, delta={self.delta:g}, zeta={self.zeta:g}, S={self.S:g}, "
                f"kappa={self.kappa:.4g}, kappa*={self.kappa_star:.4g}, link={self.link.name})")

    # -- what a subclass supplies ---------------------------------------------------------------------------

    def settings(self, d: int, T: int) -> Algorithm2Settings:
        raise NotImplementedError

    def fit(self, kind: str, n: int, data: Callable[[], tuple[np.ndarray, np.ndarray]], start: np.ndarray,
            theta_o: np.ndarray, V: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The optimizer's output for a group of G runs calling on n points each: ``kind`` is "explore"
        (theta_o, line 8) or "switch" (theta_tau, line 12); ``data()`` gives the points, rewards (G, n) and
        contexts (G, n, d); ``start`` the estimate being replaced, theta_o and V the runs' current ones
        (criterion II's domain). Returns (G, d)."""
        raise NotImplementedError

    def _trees(self, d: int, T: int, s: Algorithm2Settings) -> tuple[Any, Any]:
        """The streams of B_V and B_H: the binary mechanism with the settings' node noise."""
        return (SymmetricGaussianTree(T, d, s.sigma_V).stream(self.runs),
                SymmetricGaussianTree(T, d, s.sigma_H).stream(self.runs))

    def _released(self, stream: Any, leaves: np.ndarray) -> np.ndarray:
        """V or H after a round: lambda I plus the tree's noisy prefix sum."""
        return self.config.lam * np.eye(self._d) + stream.insert(leaves, self.rng)

    #: :meth:`choose` and :meth:`observe` continue from the state :meth:`play_rounds`' compiled blocks leave (they
    #: stop for every round the per-round path plays), so a block may be followed round by round
    choose_after_blocks: ClassVar[bool] = True

    # -- the policy protocol ------------------------------------------------------------------------------------

    @property
    def anytime(self) -> bool:
        """Whether its decisions ignore the horizon it is started with: its schedule and noise are planned for
        T, the horizon unless ``T`` is given (:func:`dpaudit.bandits.policies.horizon_use`)."""
        return self.T is not None

    def start(self, runs: int, arms: int, horizon: int, rng: np.random.Generator) -> None:
        self.runs = integer(self.owner, "runs", runs, 0)
        self.horizon = integer(self.owner, "horizon", horizon, 1)
        self._T = planned_horizon(self.owner, self.T, self.horizon, 2)
        self.rng = rng
        self._d: int | None = None

    def _begin(self, d: int) -> None:
        self._d = d
        R, T = self.runs, self._T
        self.config = s = self.settings(d, T)
        self.tree_V, self.tree_H = self._trees(d, T, s)
        eye = np.eye(d)
        self.V = np.broadcast_to(s.lam * eye, (R, d, d)).copy()
        self.H = self.V.copy()
        self.V_inv = np.broadcast_to(eye / s.lam, (R, d, d)).copy()
        self.H_tau_inv = self.V_inv.copy()
        self.det_max = np.full(R, s.lam**d)      # max_{s <= t} det(H_s)
        self.det_switch = self.det_max.copy()    # max_{s <= tau} det(H_s)
        self.theta_o = np.zeros((R, d))
        self.theta_tau = np.zeros((R, d))
        self.count1 = np.zeros(R, dtype=np.int64)
        self.count2 = np.zeros(R, dtype=np.int64)
        self.X = np.zeros((R, self.horizon, d))
        self.Y = np.zeros((R, self.horizon))
        self.in_T_o = np.zeros((R, self.horizon), dtype=bool)
        self.in_both = np.zeros((R, self.horizon), dtype=bool)  # the code's criterion-I points also in II's data
        self.switches = np.zeros(R, dtype=np.int64)
        self.trace: dict[str, Any] = {"noise_V": [], "noise_H": [], "fits": []} if self.record else {}

    def _check(self, t: int, contexts: Any) -> np.ndarray:
        x = checked_contexts(self.owner, contexts, self.runs, self._d, t)
        if self._d is None:
            self._begin(x.shape[2])
        return x

    def _call(self, kind: str, t: int, runs: np.ndarray, n: np.ndarray, mask: np.ndarray, start: np.ndarray
              ) -> np.ndarray:
        """Optimizer calls for ``runs`` (indices) with n[i] points selected by mask[i] over rounds 1..t;
        grouped by n (module docstring). Returns the new estimates (len(runs), d)."""
        out = np.empty((len(runs), self._d))
        for size in np.unique(n):
            group = np.flatnonzero(n == size)
            idx = runs[group]
            # each run's points in round order: nonzero lists the rows' True columns row by row, size per row;
            # gathered only if the optimizer reads them (P_GD with one iteration does not)
            def data(idx=idx, rows=group, size=size):
                order = np.nonzero(mask[rows, :t])[1].reshape(len(rows), size)
                return (np.take_along_axis(self.Y[idx], order, axis=1),
                        np.take_along_axis(self.X[idx], order[..., None], axis=1))

            out[group] = self.fit(kind, int(size), data, start[group], self.theta_o[idx], self.V[idx], self.rng)
        if self.record:
            self.trace["fits"].append((kind, t, runs.copy(), np.asarray(n).copy(), out.copy()))
        return out

    @property
    def compiled_choice(self) -> bool:
        """Whether :meth:`choose` runs its compiled passes: numba is installed and nothing is recorded (a recording
        policy keeps the numpy path its per-run reference replays)."""
        return COMPILED and not self.record

    def choose(self, t: int, contexts: Any) -> np.ndarray:
        x = self._check(t, contexts)
        if self.compiled_choice:
            return self._choose_compiled(t, x)
        R = self.runs
        rows = np.arange(R)
        s = self.config
        self.det_max = np.maximum(self.det_max, np.linalg.det(self.H))
        norms2 = np.maximum(np.einsum("rkd,rkd->rk", x @ self.V_inv, x), 0.0)  # ||x||^2_{V^-1}
        code = self.variant == "released-code"
        # the code's tests are strict where Algorithm 2's are not, and the other way round
        explore = norms2.max(axis=1) > s.threshold if code else norms2.max(axis=1) >= s.threshold
        if code:  # the code stops switching once count2 reaches its cutoff (H_tau frozen)
            switch = ~explore & (self.det_max >= 2 * self.det_switch) & (self.count2 < s.count2_cutoff)
        else:
            switch = ~explore & (self.det_max > 2 * self.det_switch)
        if switch.any():
            self._switch(t, np.flatnonzero(switch))
        widest = first_best(norms2)  # criterion I's arm
        if code:  # the code inserts V's leaf before the elimination, which reads the V that includes it
            self._insert_V(x[rows, widest], norms2[rows, widest], explore)
            width = np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ self.V_inv, x), 0.0))
        else:
            width = np.sqrt(norms2)
        centre = np.einsum("rkd,rd->rk", x, self.theta_o)
        ucb_o, lcb_o = centre + s.elimination_width * width, centre - s.elimination_width * width
        keep = ucb_o >= lcb_o.max(axis=1, keepdims=True)
        h_width = np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", x @ self.H_tau_inv, x), 0.0))
        ucb_centre = (self.theta_o + self.theta_tau) / 2 if code else self.theta_tau
        score = np.where(keep, np.einsum("rkd,rd->rk", x, ucb_centre) + s.beta * h_width, -np.inf)
        played = np.where(explore, widest, first_best(score))
        self._x = x[rows, played]
        self._explore = explore
        return played

    def _choose_compiled(self, t: int, x: np.ndarray) -> np.ndarray:
        """:meth:`choose`'s arithmetic in two compiled passes over the runs (:func:`~dpaudit.algorithms.glm.
        compiled.algorithm2_criteria` and :func:`~dpaudit.algorithms.glm.compiled.algorithm2_choice`), the switches'
        optimizer calls and the code's V release between them as the numpy path makes them."""
        R, K, d = x.shape
        s = self.config
        code = self.variant == "released-code"
        # one arm set for every run (a broadcast view) is read once
        arms = np.ascontiguousarray(x[:1] if R > 1 and x.strides[0] == 0 else x)
        norms2, explore = np.empty((R, K)), np.empty(R, dtype=bool)
        widest, switch = np.empty(R, dtype=np.int64), np.empty(R, dtype=bool)
        leaf = np.empty((R, d, d)) if code else np.empty((0, d, d))
        if algorithm2_criteria(arms, self.V_inv, self.H, self.det_max, self.det_switch, self.count2,
                               s.count2_cutoff, s.threshold, code, norms2, explore, widest, switch, leaf):
            self._switch(t, np.flatnonzero(switch))
        if code:  # the code's V takes the round's leaf before the elimination
            self.V = self._released(self.tree_V, leaf)
            self.V_inv = np.linalg.inv(self.V)
        played, chosen = np.empty(R, dtype=np.int64), np.empty((R, d))
        centre = (self.theta_o + self.theta_tau) / 2 if code else self.theta_tau
        algorithm2_choice(arms, norms2, self.V_inv, self.H_tau_inv, self.theta_o, centre, s.elimination_width, s.beta,
                          code, explore, widest, played, chosen)
        self._x, self._explore = chosen, explore
        return played

    @property
    def compiled_rounds(self) -> bool:
        """Whether :meth:`play_rounds` runs blocks of rounds compiled: the compiled choice runs, the variant is the
        paper's and the link is one the kernels know (logistic, probit). A block also needs both trees to be the
        binary mechanism's matrix-valued streams (:class:`~dpaudit.mechanisms.glm.exploration_set.TreeStream`,
        d > 1), known once the first contexts are seen; otherwise it is played round by round."""
        return self.compiled_choice and self.variant == "paper" and compiled_link(self.link)

    def _compiled_trees(self) -> bool:
        return all(isinstance(tree, TreeStream) and tree.compiled for tree in (self.tree_V, self.tree_H))

    def play_rounds(self, t: int, contexts: Any, rewards: Any) -> tuple[np.ndarray, np.ndarray]:
        """Rounds t .. t + count - 1 of every run (:func:`~dpaudit.algorithms.glm.base.play_round_by_round`'s
        arguments). When :attr:`compiled_rounds`, one compiled loop (:func:`~dpaudit.algorithms.glm.compiled.
        algorithm2_rounds`) plays the rounds without an optimizer call or a switch, every run in lockstep, with the
        trees' node noise drawn ahead from the policy's generator as their insertions draw it (:func:`~dpaudit.
        mechanisms.glm.exploration_set.node_noise_ahead`); a round where a run switches or calls the optimizer is
        played by :meth:`choose` and :meth:`observe`, after the generator is set back to where that round's
        draws begin. Blocks that stop at once one after another (a call every round) leave the next rounds to the
        per-round path for a while (:data:`ROUND_BY_ROUND_MOST`). The same draws and decisions as round by round;
        V^-1 is numba's LAPACK inverse instead of numpy's, equal to rounding."""
        x = block_contexts(self.owner, contexts, self.runs, self._d, t, rewards)
        count, runs = x.shape[:2]
        if self._d is None:
            self._check(t, x[0])
        table = isinstance(rewards, np.ndarray)
        if (count < FEWEST_ROUNDS or not self.compiled_rounds or not self._compiled_trees() or not np.isfinite(x).all()
                or not (table or isinstance(rewards, PlayedGLMRewards)) or self.tree_V.t + count > self.tree_V.tree.T):
            return play_round_by_round(self, t, x, rewards)
        arms, table_values, means, noise = block_arrays(self.owner, x, rewards)
        played, collected = np.empty((count, runs), dtype=np.int64), np.empty((count, runs))
        settings = self.config
        probit = self.link.name == "probit"
        s, ahead, by_round, misses = 0, FIRST_AHEAD, 0, 0
        while s < count:
            if by_round or not np.isfinite(self.theta_o).all():  # (H's leaves not finite: the numpy insert's case)
                stop = count if by_round == 0 else min(count, s + by_round)
                played[s:stop], collected[s:stop] = play_round_by_round(self, t + s, x[s:stop],
                                                                        _rest(rewards, s, stop - s))
                s, by_round = stop, 0
                continue
            end = min(count, s + ahead)
            state = self.rng.bit_generator.state
            tree_noise = node_noise_ahead((self.tree_V, self.tree_H), end - s, self.rng)
            exact_V, noisy_V, upper_i, upper_j, scale = self.tree_V.compiled_parts()
            exact_H, noisy_H = self.tree_H.compiled_parts()[:2]
            stop = algorithm2_rounds(
                s, end, arms, table_values, means, noise, tree_noise, settings.lam, settings.threshold,
                settings.elimination_width, settings.beta, self.count1, settings.count1_cutoff, probit, self.V, self.H,
                self.V_inv, self.H_tau_inv, self.det_max, self.det_switch, self.theta_o, self.theta_tau, self.X, self.Y,
                self.in_T_o, t - 1, self.tree_V.t, exact_V, noisy_V, exact_H, noisy_H, upper_i, upper_j, scale, played,
                collected)
            done = stop - s
            for tree, k in ((self.tree_V, 0), (self.tree_H, 1)):
                tree.inserted(done, tree_noise[done - 1, k] if done else None)
            if stop == end:  # the whole chunk played: draw further ahead next time
                ahead, misses = min(2 * ahead, NOISE_AHEAD), 0
            else:  # the stopping round draws after its optimizer call: the generator goes back to it
                self.rng.bit_generator.state = state
                node_noise_ahead((self.tree_V, self.tree_H), done, self.rng)
                arm, reward = play_round_by_round(self, t + stop, x[stop: stop + 1], _rest(rewards, stop, 1))
                played[stop], collected[stop] = arm[0], reward[0]
                stop += 1
                # rounds that stop one after another (e.g. a call every round) go round by round for a while
                misses = misses + 1 if done == 0 else 0
                ahead, by_round = FIRST_AHEAD, min(2**misses - 1, ROUND_BY_ROUND_MOST)
            s = stop
        return played, collected

    def _switch(self, t: int, idx: np.ndarray) -> None:
        """Criterion II's switch of the runs ``idx`` at round t: the reference determinant, H_tau, and theta_tau
        refitted where a call is left."""
        s = self.config
        code = self.variant == "released-code"
        if code:  # its reference is the larger of the last one and det(H) now, not the running maximum
            self.det_switch[idx] = np.maximum(self.det_switch[idx], np.linalg.det(self.H[idx]))
        else:
            self.det_switch[idx] = self.det_max[idx]
        self.H_tau_inv[idx] = np.linalg.inv(self.H[idx])
        self.switches[idx] += 1
        data = ~self.in_T_o[idx, : t - 1] | self.in_both[idx, : t - 1]
        n = data.sum(axis=1)
        calls = (self.count2[idx] < s.count2_cutoff) & (n > 0)
        if calls.any():
            cidx = idx[calls]
            mask = np.zeros((len(cidx), self.horizon), dtype=bool)
            mask[:, : t - 1] = data[calls]
            self.theta_tau[cidx] = self._call("switch", t, cidx, n[calls], mask,
                                              self._start(cidx, self.theta_tau[cidx]))
            self.count2[cidx] += 1

    def _insert_V(self, x_explore: np.ndarray, norm2: np.ndarray, explore: np.ndarray) -> None:
        """The code's V update, made when the arm is chosen: the exploration leaf x x^T / (1 + ||x||^2_{V^-1}) of
        the arm criterion I plays (its argmax) in a criterion-I round, the zero leaf otherwise."""
        outer = x_explore[:, :, None] * x_explore[:, None, :] / (1 + norm2)[:, None, None]
        self.V = self._released(self.tree_V, np.where(explore[:, None, None], outer, 0.0))
        self.V_inv = np.linalg.inv(self.V)

    def _start(self, idx: np.ndarray, own: np.ndarray) -> np.ndarray:
        """Where an optimizer call of the runs ``idx`` starts: ``own``, the estimate it replaces (Algorithm 2),
        or the code's midpoint (theta_o + theta_tau)/2 for either estimate."""
        if self.variant == "released-code":
            return (self.theta_o[idx] + self.theta_tau[idx]) / 2
        return own

    def observe(self, t: int, arms: np.ndarray, rewards: np.ndarray) -> None:
        x, explore, s = self._x, self._explore, self.config
        self.X[:, t - 1] = x
        self.Y[:, t - 1] = np.asarray(rewards, dtype=float)
        self.in_T_o[:, t - 1] = explore
        calls = explore & (self.count1 < s.count1_cutoff)
        code = self.variant == "released-code"
        if code:  # a criterion-I point before count1's cutoff joins criterion II's data too
            self.in_both[:, t - 1] = calls
        if calls.any():
            idx = np.flatnonzero(calls)
            mask = self.in_T_o[idx]
            start = self._start(idx, self.theta_o[idx])
            self.theta_o[idx] = self._call("explore", t, idx, mask.sum(axis=1), mask, start)
            self.count1[idx] += 1
        outer = x[:, :, None] * x[:, None, :]
        weight = self.link.slope(np.einsum("rd,rd->r", x, self.theta_o)) / math.e
        if not code:  # (the code's V leaf went in when the arm was chosen)
            self.V = self._released(self.tree_V, np.where(explore[:, None, None], outer, 0.0))
            self.V_inv = np.linalg.inv(self.V)
        self.H = self._released(self.tree_H, np.where(explore[:, None, None], 0.0, weight[:, None, None] * outer))
        if self.record:
            self.trace["noise_V"].append(_copied(self.tree_V.last_noise))
            self.trace["noise_H"].append(_copied(self.tree_H.last_noise))

    def summary(self) -> dict[str, Any]:
        """Per-run counts: criterion-I rounds, optimizer calls, switches."""
        return {"explore_rounds": self.in_T_o.sum(axis=1), "count1": self.count1.copy(),
                "count2": self.count2.copy(), "switches": self.switches.copy()}


def _rest(rewards: Any, start: int, count: int | None = None) -> Any:
    """Rounds start .. start + count - 1 (to the end: None) of a block's rewards: a table's rows, or the played
    arm's rewards (:class:`~dpaudit.algorithms.environments.glm.PlayedGLMRewards`) of those rounds."""
    stop = None if count is None else start + count
    if isinstance(rewards, np.ndarray):
        return rewards[start:stop]
    return type(rewards)(rewards.means[start:stop], rewards.noise[start:stop])


def _copied(noise: Any) -> Any:
    """A round's node noise as recorded: an array (the binary mechanism's node) or {node: array} (the released
    code's tree, :mod:`~dpaudit.mechanisms.released_code.glm_released_code`)."""
    return {c: v.copy() for c, v in noise.items()} if isinstance(noise, dict) else noise.copy()


__all__ = ["Algorithm2", "Algorithm2Settings", "cumulant_gradient"]
