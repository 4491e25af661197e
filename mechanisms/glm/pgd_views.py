"""shuffle-glm: the audited views of P_GD (Algorithm 7) and of the releases of Algorithms 1 and 2 that
contain it, each with its exact law.

With T_it = 1 the whole transcript of P_GD is one P_1 view of the gradients at theta_0, whatever the
loss, so its exact law is a product of finite laws (:class:`FirstIterationView`; it is also the first
iteration's view when T_it > 1). The returned average is then theta_0 itself: only the shuffled view
carries the data, and Lemma T.2's privacy is about that view. For the linear loss every iteration sees
the same inputs, so the whole multi-round transcript has a product law (:class:`LinearLossTranscript`).
For a loss whose gradient depends on theta the multi-round view (:class:`Transcript`) is adaptive: a
mixture over the earlier iterates of products; with T_it = 2 its exact law is a mixture keyed by theta_1
(a function of the observed first view), built when the first view's table and the distinct theta_1 are
few enough.

Algorithm 1's batch release (:class:`BatchRelease`: P_2 and P_GD on one batch) and Algorithm 2's
view for one criterion-II user (:class:`CriterionTwoUserView`: B_H's Gaussian nodes composed with the
line-12 call's view, Lemma I.7, Theorem 6.2) are built from the printed formulas; their choices are in
their docstrings; the parameters of the two algorithms' calls live with the algorithms
(``algorithms.glm.parameters``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.core.distributions import FiniteDistribution, KeyedMixtureDistribution, ProductDistribution

from ..base import Adapter, ExactRelease
from ..shuffle.vector_summation import NORM_SLACK, ShuffledMatrixSummation
from .exploration_set import SymmetricGaussianTree
from .geometry import Ellipsoid
from .glm_links import logistic_slope
from .private_gd import PrivateGD


class LinearLossTranscript(ExactRelease):
    """The whole multi-round transcript of P_GD (every iteration's shuffled view) for the linear
    loss l(theta, u) = -<theta, u> with ||u||_2 <= L: convex and L-Lipschitz on any Theta, so
    Lemma T.2 applies, and its gradient -u does not depend on theta, so every iteration's P_1 sees
    the same inputs and the transcript's exact law is a product over iterations and coordinates.

    Data: the n points u_i, shape (n, d). :meth:`sample`: shape (size, T_it * d)."""

    paper = "shuffle-glm"
    source = "Appendix T, Algorithm 7 (P_GD) with the linear loss, Lemma T.2"

    def __init__(self, pgd: PrivateGD):
        self.pgd = pgd
        self.name = f"{pgd!r}, linear loss, transcript of {pgd.T_it} iterations"

    def _input(self, data: Any) -> np.ndarray:
        """P_1's inputs, the gradients -u_i (checked by P_1)."""
        return -self.pgd.protocol.entries(data)

    def _distribution(self, inputs: np.ndarray) -> ProductDistribution:
        one = self.pgd.protocol.distribution(inputs).coordinates
        return ProductDistribution(one * self.pgd.T_it)

    def _sample(self, inputs: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate([self.pgd.protocol.sample(inputs, size, rng) for _ in range(self.pgd.T_it)], axis=1)


class Transcript(ExactRelease):
    """The whole multi-round view of P_GD for any loss: every iteration's shuffled view (P_1's d counts
    on the gradients at theta_t), with theta_{t+1} = Pi_Theta(theta_t - eta (1/n) A_1(view_t)) computed
    from the views as Algorithm 7 does (the same draws as :meth:`PrivateGD.run`, seed for seed). When the
    gradient depends on theta, iteration t's inputs depend on the earlier views, so the law is adaptive:
    a mixture over the earlier iterates of products, not a product.

    Exact law (:meth:`distribution`), for T_it <= 2: with T_it = 1 the first view's product law; with
    T_it = 2 the second view depends on the first only through theta_1, a function of the observed first
    view computed as :meth:`sample` computes it (:meth:`step`, the same float operations), so the law is a
    :class:`~dpaudit.core.distributions.KeyedMixtureDistribution`: the first view's finite law (the d labels'
    counts jointly), each outcome keyed by its theta_1 (compared exactly, as floats: iterates one ulp apart
    are different blocks, as they are different inputs to the sampler), and per distinct theta_1 the product
    law of the second view at the gradients there. The exact auditor then sums hockey-stick divergences
    over the theta_1 blocks (:mod:`dpaudit.exact.mixture`). Choices: refused (ValueError) for T_it > 2
    (theta_2 depends on both views: the blocks would nest), when the first view's joint support exceeds
    :data:`MAX_FIRST_OUTCOMES` outcomes (the labels' tables multiply: in practice d = 1) and when there are
    more than :data:`MAX_BLOCKS` distinct theta_1 (each costs a table convolution and a divergence). At
    P_GD's parameters the step eta against an estimate's spread sends theta_1 to the ball's boundary for
    almost every first view, so a handful of blocks carries nearly all the mass.

    Data: the n users' records (r, x), shape (n, 1 + d); ``gradient`` as for :meth:`PrivateGD.run`
    (data (rewards, contexts)). :meth:`sample`: shape (size, T_it * d), iteration-major."""

    paper = "shuffle-glm"
    source = "Appendix T, Algorithm 7 (P_GD): every iteration's P_1 view, Lemma T.2"

    def __init__(self, pgd: PrivateGD, gradient: Callable[[np.ndarray, Any], np.ndarray]):
        self.pgd, self.gradient = pgd, gradient
        self.name = f"{pgd!r}: the views of all {pgd.T_it} iterations"

    def _input(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        rows = split_points(self.owner, data, self.pgd.n, self.pgd.d)
        return rows[:, 0], rows[:, 1:]

    def step(self, theta: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Line 4: theta_{t+1} = Pi_Theta(theta_t - eta (1/n) A_1(counts)), per row."""
        pgd = self.pgd
        return pgd.project(theta - pgd.eta * pgd.protocol.analyze(counts) / pgd.n)

    def path(self, views: np.ndarray) -> np.ndarray:
        """The iterates theta_1..theta_T_it that the views (size, T_it * d) determine, (size, T_it, d)."""
        pgd = self.pgd
        views = np.asarray(views, dtype=float).reshape(len(views), pgd.T_it, pgd.d)
        theta, out = pgd.start(len(views)), np.empty(views.shape)
        for t in range(pgd.T_it):
            theta = self.step(theta, views[:, t])
            out[:, t] = theta
        return out

    def _sample(self, data: tuple[np.ndarray, np.ndarray], size: int, rng: np.random.Generator) -> np.ndarray:
        pgd = self.pgd
        theta, views = pgd.start(size), []
        for _ in range(pgd.T_it):
            counts = pgd.protocol.sample_inputs(pgd._gradients(self.gradient, theta, data), rng)
            views.append(counts)
            theta = self.step(theta, counts)
        return np.concatenate(views, axis=1)

    def _view_law(self, theta: np.ndarray, data: tuple[np.ndarray, np.ndarray]) -> list[ProductDistribution]:
        """Per row of theta (runs, d), the exact law of one iteration's view at theta: P_1's d counts."""
        grads = self.pgd._gradients(self.gradient, theta, data)
        return [self.pgd.protocol.distribution(g) for g in grads]

    def _distribution(self, data: tuple[np.ndarray, np.ndarray]) -> ProductDistribution | KeyedMixtureDistribution:
        pgd = self.pgd
        if pgd.T_it > 2:
            raise ValueError(f"{self.owner}: the exact law is built for T_it <= 2 (theta_2 depends on both views), "
                             f"got T_it = {pgd.T_it}")
        (first,) = self._view_law(pgd.start(1), data)
        if pgd.T_it == 1:
            return first
        laws = first.coordinates
        outcomes = math.prod(len(law.outcomes) for law in laws)
        if outcomes > MAX_FIRST_OUTCOMES:
            raise ValueError(f"{self.owner}: the first view has {outcomes} outcomes (the product of the d = {pgd.d} "
                             f"labels' tables), above MAX_FIRST_OUTCOMES = {MAX_FIRST_OUTCOMES}")
        joint = _joint(laws)
        views = joint.outcomes.reshape(outcomes, pgd.d).astype(float)
        theta_1 = self.step(pgd.start(outcomes), views)
        if pgd.d == 1:  # a sort of floats, not of rows
            labels, block_of = np.unique(theta_1[:, 0], return_inverse=True)
            labels = labels[:, None]
        else:
            labels, block_of = np.unique(theta_1, axis=0, return_inverse=True)
        if len(labels) > MAX_BLOCKS:
            raise ValueError(f"{self.owner}: the first view leads to {len(labels)} distinct theta_1, above "
                             f"MAX_BLOCKS = {MAX_BLOCKS}")
        return KeyedMixtureDistribution(joint, block_of.reshape(-1), labels, tuple(self._view_law(labels, data)))


#: the largest joint support of the first view :meth:`Transcript.distribution` tables (float64 log-probabilities:
#: 16 MB), and the most distinct theta_1 it builds a second-view law for
MAX_FIRST_OUTCOMES = 2_000_000
MAX_BLOCKS = 256


def _joint(laws: tuple[FiniteDistribution, ...]) -> FiniteDistribution:
    """The joint finite law of independent finite coordinates: outcomes (m,) for one, rows (m, k) for k;
    log-errors add, and the tail masses add up to a bound on the mass outside the listed rows."""
    if len(laws) == 1:
        return laws[0]
    grids = np.meshgrid(*[law.outcomes for law in laws], indexing="ij")
    logs = np.meshgrid(*[law.log_probs for law in laws], indexing="ij")
    total = sum(lp.reshape(-1) for lp in logs)
    finite = total[np.isfinite(total)]
    rounding = len(laws) * 2.0**-52 * (float(np.abs(finite).max()) if len(finite) else 0.0)  # k - 1 additions
    return FiniteDistribution(np.stack([g.reshape(-1) for g in grids], axis=1), total,
                              log_error=sum(law.log_error for law in laws) + rounding,
                              tail_mass=sum(law.tail_mass for law in laws))


def split_points(owner: str, data: Any, n: int, d: int, extra: int = 0) -> np.ndarray:
    """The users' records as an (n, 1 + d + extra) array, rows (r, x_1..x_d, ...), validated."""
    rows = np.asarray(data, dtype=float)
    if rows.shape != (n, 1 + d + extra) or not np.isfinite(rows).all():
        raise ValueError(f"{owner}: data must be the {n} users' records (r, x{', w' if extra else ''}), shape "
                         f"({n}, {1 + d + extra}), got {rows.shape}")
    return rows


class FirstIterationView(Adapter):
    """The shuffled view of P_GD's first iteration: P_1 (at the per-iteration budget, bias L) on the
    users' gradients at theta_0 = Pi_Theta(0). With T_it = 1 (``whole_transcript``) it is P_GD's whole
    transcript, for any loss; then its exact law is a product of finite laws over the d labels.

    Data: the n users' records (r, x), shape (n, 1 + d); ``gradient`` as for :meth:`PrivateGD.run`
    (data (rewards, contexts)). :meth:`sample`: the d counts, shape (size, d)."""

    paper = "shuffle-glm"
    source = "Appendix T, Algorithm 7 (P_GD): the first iteration's P_1 view, Lemma T.2"

    def __init__(self, pgd: PrivateGD, gradient: Callable[[np.ndarray, Any], np.ndarray]):
        self.pgd = pgd
        self.inner = pgd.protocol
        self.gradient = gradient
        self.whole_transcript = pgd.T_it == 1
        what = "whole transcript" if self.whole_transcript else f"first of {pgd.T_it} iterations"
        self.name = f"{pgd!r}: view of the {what}"

    def inputs(self, data: Any) -> np.ndarray:
        """The gradients at theta_0, shape (n, d): P_1's inputs."""
        rows = split_points(self.owner, data, self.pgd.n, self.pgd.d)
        return self.pgd._gradients(self.gradient, self.pgd.start(1), (rows[:, 0], rows[:, 1:]))[0]

    def _input(self, data: Any) -> np.ndarray:
        return self.inputs(data)


class BatchRelease(ExactRelease):
    """shuffle-glm, Algorithm 1: what one batch releases about its users, the shuffled view of
    P_2 on their outer products (lines 5 and 7 for the warm-up batch, 18 and 20 for batch k >= 2)
    and P_GD's transcript on their (r_t, x_t) (lines 8, 21), independent given the data.

    A user belongs to one batch. Earlier batches do not depend on it, and every later release,
    given the transcript so far, has the same law under both neighbours (the user's data is in no
    later batch; the policies are functions of released values), so the privacy loss of the whole
    multi-round transcript is that of its own batch's release, audited here (exactly when the
    P_GD view is its whole transcript, T_it = 1).

    Data: rows (r, x) for the warm-up (P_2 input x x^T, Delta = 1); with ``weighted`` rows
    (r, x, w), w the line-18 weight mu'(<x, theta_1>)/beta(x) (P_2 input w x x^T, Delta = 1/kappa*).
    The weight is a function of x and of the released theta_1, V, equal in both neighbours; taking
    it as part of the record lets a pair choose any weight the conditioning event of D.1 allows
    (w ||x||^2 <= 1/kappa*). :meth:`sample`: P_2's d(d+1)/2 counts, then P_GD's d counts."""

    paper = "shuffle-glm"
    source = "Algorithm 1, lines 5/7 and 18/20 (P_2) and 8/21 (P_GD): one batch's release, Theorem 5.1"

    def __init__(self, summation: ShuffledMatrixSummation, optimizer: FirstIterationView, weighted: bool = False):
        if not optimizer.whole_transcript:
            raise ValueError(f"{self.owner}: the P_GD transcript's law is a product only with T_it = 1, "
                             f"got T_it = {optimizer.pgd.T_it}")
        if (summation.n, summation.d) != (optimizer.pgd.n, optimizer.pgd.d):
            raise ValueError(f"{self.owner}: P_2 and P_GD must see the same batch (n, d), got "
                             f"{(summation.n, summation.d)} and {(optimizer.pgd.n, optimizer.pgd.d)}")
        self.summation, self.optimizer, self.weighted = summation, optimizer, bool(weighted)
        self.name = f"Algorithm 1 batch: {summation!r} and {optimizer!r}"

    def parts(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        """(P_2's matrices (n, d, d), P_GD's records (r, x) (n, 1 + d))."""
        n, d = self.summation.n, self.summation.d
        rows = split_points(self.owner, data, n, d, extra=int(self.weighted))
        x = rows[:, 1:1 + d]
        weight = rows[:, -1] if self.weighted else np.ones(n)
        if (weight < 0).any():
            raise ValueError(f"{self.owner}: the weights w = mu'/beta must be >= 0")
        return weight[:, None, None] * np.einsum("ni,nj->nij", x, x), rows[:, :1 + d]

    def _input(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        return self.parts(data)

    def _distribution(self, parts: tuple[np.ndarray, np.ndarray]) -> ProductDistribution:
        matrices, points = parts
        return ProductDistribution(self.summation.distribution(matrices).coordinates
                              + self.optimizer.distribution(points).coordinates)

    def _sample(self, parts: tuple[np.ndarray, np.ndarray], size: int, rng: np.random.Generator) -> np.ndarray:
        matrices, points = parts
        views = [self.summation.sample(matrices, size, rng), self.optimizer.sample(points, size, rng)]
        return np.concatenate(views, axis=1)


class CriterionTwoUserView(ExactRelease):
    """shuffle-glm, Algorithm 2 (Lemma I.7, Theorem 6.2's privacy): the exact law of everything one
    criterion-II user's data can change in what Algorithm 2 releases, with the schedule fixed.

    Setting (N-jdp, conditional on T_o minus {i} equal, as the proof of Lemma I.7 conditions): user i
    plays a criterion-II round (i not in T_o under both neighbours), one of the n criterion-II rounds
    ``rounds`` before the switch round tau at which line 12 calls P_GD (the only criterion-II call
    when count2_cutoff = 1: later switches are skipped by the stop rule). User i's record (r_i, x_i),
    x_i its played arm (a function of X_i and of released values), enters:
      - B_H's leaf i, line 24: (mu'(<x_i, theta_o>)/e) x_i x_i^T (logistic mu), theta_o the current
        criterion-I estimate (released; equal in both neighbours);
      - the line-12 call's transcript: P_GD on the n criterion-II records, here one P_1 view of the
        gradients at theta_0 (T_it = 1, :class:`FirstIterationView`; the returned average is theta_0
        itself, so the audited view is an upper bound on what theta_tau reveals).
    Nothing else depends on it: B_V's leaf i is 0 under both neighbours, so V, T_o (criterion I reads
    only V and X_t) and the criterion-I calls (records of T_o) have the same law under both, and the
    switch indicators, H_tau and the other users' actions are post-processing of the H-tree's nodes,
    theta_tau and the other users' own contexts. So the release audited is B_H's T nodes (whitened,
    :class:`~dpaudit.mechanisms.glm.exploration_set.SymmetricGaussianTree`) and the call's d counts,
    independent given the data: a product of Gaussian and finite coordinates.

    Choices where the paper is silent: theta_o in line 24 is the criterion-two domain's centre (the
    theta_o of the call's ellipsoid; no criterion-I round lies between the rounds and tau, so it is
    the same estimate); the other rounds' H-leaves are 0 (T_o rounds) or, after tau, left out as 0:
    they shift both neighbours' nodes alike, which changes no privacy loss of Gaussian nodes.

    Data: the n criterion-II users' records (r, x), shape (n, 1 + d), in the order of ``rounds``
    (1-based round indices < T), ||x|| <= 1. :meth:`sample`: the T d(d+1)/2 node coordinates
    (block-major), then the call's d counts."""

    paper = "shuffle-glm"
    source = "Algorithm 2, lines 12 and 24: one criterion-II user's view, Lemma I.7, Theorem 6.2"

    def __init__(self, tree: SymmetricGaussianTree, optimizer: FirstIterationView, rounds: Any):
        if not optimizer.whole_transcript:
            raise ValueError(f"{self.owner}: the P_GD transcript's law is a product only with T_it = 1, "
                             f"got T_it = {optimizer.pgd.T_it}")
        if not isinstance(optimizer.pgd.domain, Ellipsoid):
            raise ValueError(f"{self.owner}: the criterion-II call's Theta must be the ellipsoid around theta_o")
        if tree.d != optimizer.pgd.d:
            raise ValueError(f"{self.owner}: the tree's d = {tree.d} and the call's d = {optimizer.pgd.d} differ")
        self.rounds = np.asarray(rounds, dtype=np.int64)
        n = optimizer.pgd.n
        if (self.rounds.shape != (n,) or len(set(self.rounds.tolist())) != n or (self.rounds < 1).any()
                or (self.rounds >= tree.T).any()):
            raise ValueError(f"{self.owner}: rounds must be the call's n = {n} distinct criterion-II rounds in "
                             f"[1, T - 1] = [1, {tree.T - 1}], got {np.asarray(rounds).tolist()}")
        self.tree, self.optimizer = tree, optimizer
        self.theta_o = optimizer.pgd.domain.center
        self.name = f"Algorithm 2, one criterion-II user: B_H {tree!r} and {optimizer!r}"

    def leaves(self, data: Any) -> np.ndarray:
        """B_H's T leaves, shape (T, d, d): line 24's (mu'(<x, theta_o>)/e) x x^T at ``rounds``, else 0."""
        rows = split_points(self.owner, data, self.optimizer.pgd.n, self.tree.d)
        x = rows[:, 1:]
        if (np.einsum("ni,ni->n", x, x) > 1 + NORM_SLACK).any():
            raise ValueError(f"{self.owner}: every played arm needs ||x|| <= 1")
        weight = logistic_slope(x @ self.theta_o) / math.e
        out = np.zeros((self.tree.T, self.tree.d, self.tree.d))
        out[self.rounds - 1] = weight[:, None, None] * np.einsum("ni,nj->nij", x, x)
        return out

    def _input(self, data: Any) -> tuple[np.ndarray, Any]:
        """(B_H's leaves, the records the call's view reads and checks itself)."""
        return self.leaves(data), data

    def _distribution(self, x: tuple[np.ndarray, Any]) -> ProductDistribution:
        leaves, data = x
        return ProductDistribution(self.tree.distribution(leaves).coordinates
                              + self.optimizer.distribution(data).coordinates)

    def _sample(self, x: tuple[np.ndarray, Any], size: int, rng: np.random.Generator) -> np.ndarray:
        leaves, data = x
        nodes = self.tree.sample(leaves, size, rng).reshape(size, -1)
        return np.concatenate([nodes, self.optimizer.sample(data, size, rng)], axis=1)


__all__ = ["BatchRelease", "CriterionTwoUserView", "FirstIterationView", "LinearLossTranscript", "Transcript",
           "split_points"]
