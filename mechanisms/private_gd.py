"""shuffle-glm's P_GD: multi-round shuffle-private projected gradient descent (Appendix T,
Algorithm 7, after Cheu et al. 2021, Lemma B.4).

    T_it = eps^2 n^2 / (d log^3(n d / delta)),   eta = 2 D / (L sqrt(T_it))
    theta_0 = 0;  for each iteration t:
        g_bar_t = (1/n) P_1(grad l(theta_t, x_1), ..., grad l(theta_t, x_n);
                            eps / (2 sqrt(2 T_it log(1/delta))), delta / (T_it + 1), Delta = L)
        theta_{t+1} = Pi_Theta(theta_t - eta g_bar_t)
    return theta_bar = (1/T_it) sum_{t=0}^{T_it-1} theta_t

P_1 is :class:`~dpaudit.mechanisms.vector_summation.ShuffledVectorSummation` with bias Delta = L
(gradients of an L-Lipschitz loss have ||grad||_2 <= L). Privacy (Lemma T.2): every iteration's P_1
is (eps_r, delta_r)-shuffle private at the per-iteration budget, and advanced composition over T_it
iterations gives the whole transcript (eps, delta).

Step-size variants the paper prints (``step``):
  - ``"alg7"``: eta = 2 D / (L sqrt(T_it)) (Algorithm 7);
  - ``"lemT.2"``: eta = 2 S / (L sqrt(T_it)) with S = D / 2 the radius of the ball (Lemma T.2);
  - ``"alg1"``: eta = 2 S / (R S sqrt(T_it)) (Algorithm 1's text; needs the reward bound R).
``iterations="lemE.4"`` uses Lemma E.4's T_it = eps^2 n^2 / (d log(n d / delta)) (log, not log^3).

Choices where the paper is silent:
  - the printed loop runs t = 1..T_it with a gradient at theta_t while only theta_0 is set: the
    loop runs t = 0..T_it - 1 and averages theta_0..theta_{T_it - 1}, as line 5 writes;
  - T_it := max(1, floor(eps^2 n^2 / (d log^3(n d / delta))));
  - Theta is the Euclidean ball {||theta||_2 <= S} of diameter D = 2S (:class:`Ball`; Algorithm 1's
    domain and Algorithm 2's criterion-I call; the projection scales back to the sphere), or the
    ellipsoid {||theta - theta_o||_V <= gamma sqrt(kappa)} of Algorithm 2's criterion-II call
    (:class:`Ellipsoid`; Section 6 prints the ellipsoid, eq. (69) the Euclidean ball of the same
    radius: the ellipsoid is used). Its diameter is D = 2 gamma sqrt(kappa) / sqrt(lambda_min(V));
    the Euclidean projection onto it solves for the Lagrange multiplier nu >= 0 of
    theta - theta_o = (I + nu V)^-1 (y - theta_o) by bisection (vectorised over runs);
  - theta_0 = Pi_Theta(0) (Algorithm 7's 0 whenever 0 is in Theta, as it is for a ball; the
    criterion-II ellipsoid need not contain 0);
  - a gradient with norm above L is refused (P_1's range), never clipped silently.

With T_it = 1 the whole transcript is one P_1 view of the gradients at theta_0, whatever the loss,
so its exact law is a product of finite laws (:class:`FirstIterationView`; it is also the first
iteration's view when T_it > 1). The returned average is then theta_0 itself: only the shuffled
view carries the data, and Lemma T.2's privacy is about that view.

Algorithm 1's batch release (:class:`BatchRelease`) and Algorithm 2's criterion-II call
(:func:`algorithm2_parameters`, :func:`criterion_two_optimizer`) are built here from the printed
formulas; their choices are in their docstrings. :class:`CriterionTwoUserView`
(:func:`criterion_two_user_view`) composes B_H's Gaussian nodes with that call's view: the exact law of
what one criterion-II user changes in Algorithm 2's release (Lemma I.7, Theorem 6.2).

Paths: :meth:`PrivateGD.run` (each P_1 view drawn with one binomial per coordinate and per-user
rounding, the law of R* summed) and ``per_user=True`` (every user's R* run, as printed) give the same
law of the output (tested).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.densities import ProductDensity

from .accounting import advanced_composition
from .exploration_set import SymmetricGaussianTree, node_noise_sigma
from .params import choice, integer, positive, probability, sample_size
from .vector_summation import NORM_SLACK, ShuffledMatrixSummation, ShuffledVectorSummation, summation_parameters

STEPS = ("alg7", "lemT.2", "alg1")
ITERATIONS = ("alg7", "lemE.4")


def iterations(epsilon: float, delta: float, n: int, d: int, rule: str = "alg7") -> int:
    """T_it = max(1, floor(eps^2 n^2 / (d log^3(n d / delta)))) (``"lemE.4"``: log instead of log^3)."""
    power = 3 if rule == "alg7" else 1
    return max(1, math.floor(epsilon**2 * n**2 / (d * math.log(n * d / delta) ** power)))


def round_budget(epsilon: float, delta: float, T_it: int) -> tuple[float, float]:
    """Line 3's per-iteration budget: (eps / (2 sqrt(2 T_it log(1/delta))), delta / (T_it + 1))."""
    return epsilon / (2 * math.sqrt(2 * T_it * math.log(1 / delta))), delta / (T_it + 1)


class Ball:
    """Theta = {||theta||_2 <= radius}: diameter 2 radius, projection by scaling back to the sphere."""

    owner = "Ball"
    d = None  # any dimension

    def __init__(self, radius: float):
        self.radius = positive(self.owner, "radius", radius)
        self.diameter = 2 * self.radius
        self.max_norm = self.radius

    def __repr__(self) -> str:
        return f"Ball(S={self.radius:g})"

    def project(self, theta: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(theta, axis=-1, keepdims=True)
        return theta * np.minimum(1.0, self.radius / np.maximum(norms, 1e-300))


class Ellipsoid:
    """Theta = {theta : (theta - center)^T V (theta - center) <= radius^2}, V symmetric positive
    definite: Algorithm 2's criterion-II domain {||theta - theta_o||_V <= gamma sqrt(kappa)}.

    Diameter 2 radius / sqrt(lambda_min(V)); every point has ||theta|| <= ||center|| +
    radius / sqrt(lambda_min(V)) (``max_norm``, what a Lipschitz constant over Theta needs). The
    Euclidean projection of y outside is center + (I + nu V)^-1 (y - center), with nu > 0 the root
    of ||(I + nu V)^-1 (y - center)||_V = radius, decreasing in nu: bisection in V's eigenbasis,
    ending on the inner side so the result is always in Theta."""

    owner = "Ellipsoid"
    BISECTIONS = 200

    def __init__(self, center: Any, matrix: Any, radius: float):
        self.center = np.asarray(center, dtype=float)
        if self.center.ndim != 1 or not np.isfinite(self.center).all():
            raise ValueError(f"{self.owner}: center must be a finite vector, got shape {self.center.shape}")
        self.d = self.center.size
        V = np.asarray(matrix, dtype=float)
        if V.shape != (self.d, self.d) or not np.isfinite(V).all() or not np.allclose(V, V.T, rtol=1e-12, atol=0):
            raise ValueError(f"{self.owner}: matrix must be a symmetric {self.d} x {self.d} matrix")
        self.eigenvalues, self.basis = np.linalg.eigh((V + V.T) / 2)
        if not self.eigenvalues[0] > 0:
            raise ValueError(f"{self.owner}: matrix must be positive definite, smallest eigenvalue "
                             f"{self.eigenvalues[0]:.6g}")
        self.matrix = V
        self.radius = positive(self.owner, "radius", radius)
        self.diameter = 2 * self.radius / math.sqrt(self.eigenvalues[0])
        self.max_norm = float(np.linalg.norm(self.center)) + self.diameter / 2

    def __repr__(self) -> str:
        return (f"Ellipsoid(center={np.round(self.center, 6).tolist()}, radius={self.radius:.6g}, "
                f"lambda_min={self.eigenvalues[0]:.6g})")

    def _norm2(self, z: np.ndarray, nu: np.ndarray) -> np.ndarray:
        """||(I + nu V)^-1 y||_V^2 for eigen-coordinates z (runs, d) of y - center."""
        lam = self.eigenvalues
        return (lam * (z / (1 + nu[:, None] * lam)) ** 2).sum(axis=1)

    def project(self, theta: np.ndarray) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        flat = theta.reshape(-1, self.d)
        z = (flat - self.center) @ self.basis
        r2 = self.radius**2
        outside = self._norm2(z, np.zeros(len(z))) > r2
        if not outside.any():
            return theta
        zo = z[outside]
        # at nu = sqrt(sum z^2 / lam) / radius the V-norm is at most radius: a bracket for the root
        low = np.zeros(len(zo))
        high = np.sqrt((zo**2 / self.eigenvalues).sum(axis=1)) / self.radius
        for _ in range(self.BISECTIONS):
            mid = (low + high) / 2
            beyond = self._norm2(zo, mid) > r2
            low, high = np.where(beyond, mid, low), np.where(beyond, high, mid)
        out = flat.copy()
        out[outside] = self.center + (zo / (1 + high[:, None] * self.eigenvalues)) @ self.basis.T
        return out.reshape(theta.shape)

    def contains(self, theta: np.ndarray) -> np.ndarray:
        z = (np.asarray(theta, dtype=float).reshape(-1, self.d) - self.center) @ self.basis
        return self._norm2(z, np.zeros(len(z))) <= self.radius**2 * (1 + 1e-12)


class PrivateGD:
    """P_GD (module docstring) for ``n`` data points in R^``d`` at budget (eps, delta), for a loss
    with Lipschitz constant ``lipschitz`` on Theta: the ball of radius ``radius``, or ``domain``
    (a :class:`Ball` or :class:`Ellipsoid`; give one of the two)."""

    owner = "PrivateGD"

    def __init__(self, epsilon: float, delta: float, n: int, d: int, lipschitz: float, radius: float | None = None,
                 step: str = "alg7", iteration_rule: str = "alg7", reward_bound: float | None = None,
                 domain: Ball | Ellipsoid | None = None):
        self.epsilon = positive(self.owner, "epsilon", epsilon)
        self.delta = positive(self.owner, "delta", delta)
        if not self.delta < 1:
            raise ValueError(f"{self.owner}: delta must be in (0, 1) (log(1/delta) > 0), got {delta!r}")
        self.n = integer(self.owner, "n", n, 1)
        self.d = integer(self.owner, "d", d, 1)
        self.lipschitz = positive(self.owner, "lipschitz", lipschitz)
        if (radius is None) == (domain is None):
            raise ValueError(f"{self.owner}: give Theta as exactly one of radius (a ball) and domain")
        self.domain = Ball(radius) if domain is None else domain
        if self.domain.d not in (None, self.d):
            raise ValueError(f"{self.owner}: domain is in R^{self.domain.d}, the data in R^{self.d}")
        self.step_rule = choice(self.owner, "step", step, STEPS)
        self.iteration_rule = choice(self.owner, "iteration_rule", iteration_rule, ITERATIONS)
        self.T_it = iterations(self.epsilon, self.delta, self.n, self.d, self.iteration_rule)
        diameter = self.domain.diameter
        if self.step_rule == "alg7":
            self.eta = 2 * diameter / (self.lipschitz * math.sqrt(self.T_it))
        elif self.step_rule == "lemT.2":  # 2S with S the ball's radius, D/2
            self.eta = diameter / (self.lipschitz * math.sqrt(self.T_it))
        else:
            if reward_bound is None:
                raise ValueError(f"{self.owner}: step='alg1' needs reward_bound (R in eta = 2S / (R S sqrt(T_it)))")
            R = positive(self.owner, "reward_bound", reward_bound)
            self.eta = 2 / (R * math.sqrt(self.T_it))  # 2S / (R S sqrt(T_it))
        self.round_epsilon, self.round_delta = round_budget(self.epsilon, self.delta, self.T_it)
        # P_1 refuses budgets outside Lemma S.1's range, which also bounds P_GD's
        self.protocol = ShuffledVectorSummation(self.round_epsilon, self.round_delta, self.d, self.n, self.lipschitz)
        self.name = (f"PrivateGD(eps={self.epsilon:g}, delta={self.delta:g}, n={self.n}, d={self.d}, L={self.lipschitz:g}, "
                     f"Theta={self.domain!r}; T_it={self.T_it})")

    def __repr__(self) -> str:
        return self.name

    def composed_budget(self) -> tuple[float, float]:
        """Lemma T.2's accounting: T_it iterations at the per-iteration budget, advanced composition
        with delta' = delta / (T_it + 1) (so that T_it delta_r + delta' = delta)."""
        return advanced_composition(self.T_it, self.round_epsilon, self.round_delta, self.delta / (self.T_it + 1))

    def project(self, theta: np.ndarray) -> np.ndarray:
        return self.domain.project(theta)

    def start(self, runs: int) -> np.ndarray:
        """theta_0 = Pi_Theta(0) for ``runs`` runs, shape (runs, d)."""
        return self.project(np.zeros((runs, self.d)))

    def _gradients(self, gradient: Callable[[np.ndarray, Any], np.ndarray], theta: np.ndarray, data: Any) -> np.ndarray:
        grads = np.asarray(gradient(theta, data), dtype=float)
        if grads.shape != (theta.shape[0], self.n, self.d):
            raise ValueError(f"{self.owner}: gradient must return shape (runs, n, d) = {(theta.shape[0], self.n, self.d)}, "
                             f"got {grads.shape}")
        if (np.linalg.norm(grads, axis=-1) > self.lipschitz * (1 + NORM_SLACK)).any():
            raise ValueError(f"{self.owner}: a gradient has norm above L = {self.lipschitz:g}; the loss is not "
                             "L-Lipschitz on Theta")
        return grads

    def run(self, gradient: Callable[[np.ndarray, Any], np.ndarray], data: Any, size: int, rng: np.random.Generator,
            per_user: bool = False) -> np.ndarray:
        """``size`` independent runs; ``gradient(theta (runs, d), data) -> (runs, n, d)`` per-point
        gradients. Returns theta_bar, shape (size, d)."""
        size = sample_size(self.owner, size)
        theta = self.start(size)
        total = np.zeros((size, self.d))
        for _ in range(self.T_it):
            total += theta
            grads = self._gradients(gradient, theta, data)
            if per_user:
                counts = self.protocol.randomize(grads, rng).sum(axis=1)
            else:
                counts = self.protocol.sample_inputs(grads, rng)
            g_bar = self.protocol.analyze(counts) / self.n
            theta = self.project(theta - self.eta * g_bar)
        return total / self.T_it


def logistic_mean(z: Any) -> np.ndarray:
    """The logistic link mu(z) = 1/(1 + e^-z), as 0.5 (1 + tanh(z/2)) (no overflow for large |z|)."""
    return 0.5 * (1 + np.tanh(np.asarray(z, dtype=float) / 2))


def logistic_gradient(regularisation: float = 0.0) -> Callable[[np.ndarray, Any], np.ndarray]:
    """Per-point gradients of the logistic log-loss l(theta, (r, x)) = -r <x, theta> + log(1 + e^<x, theta>)
    plus (regularisation / 2) ||theta||^2: (mu(<x, theta>) - r) x + regularisation theta.
    Data: (rewards (n,), contexts (n, d))."""

    def gradient(theta: np.ndarray, data: Any) -> np.ndarray:
        rewards, contexts = (np.asarray(a, dtype=float) for a in data)
        mu = logistic_mean(theta @ contexts.T)  # (runs, n)
        return (mu - rewards)[..., None] * contexts[None] + regularisation * theta[:, None, :]

    return gradient


class LinearLossTranscript:
    """The whole multi-round transcript of P_GD (every iteration's shuffled view) for the linear
    loss l(theta, u) = -<theta, u> with ||u||_2 <= L: convex and L-Lipschitz on any Theta, so
    Lemma T.2 applies, and its gradient -u does not depend on theta, so every iteration's P_1 sees
    the same inputs and the transcript's exact law is a product over iterations and coordinates.

    Data: the n points u_i, shape (n, d). :meth:`sample`: shape (size, T_it * d)."""

    owner = "LinearLossTranscript"

    def __init__(self, pgd: PrivateGD):
        self.pgd = pgd
        self.name = f"{pgd!r}, linear loss, transcript of {pgd.T_it} iterations"

    def __repr__(self) -> str:
        return self.name

    def _inputs(self, data: Any) -> np.ndarray:
        return -self.pgd.protocol.entries(data)

    def distribution(self, data: Any) -> ProductDensity:
        one = self.pgd.protocol.distribution(-np.asarray(data, dtype=float)).coordinates
        return ProductDensity(one * self.pgd.T_it)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        inputs = self._inputs(data)
        return np.concatenate([self.pgd.protocol.sample(inputs, size, rng) for _ in range(self.pgd.T_it)], axis=1)

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)


def split_points(owner: str, data: Any, n: int, d: int, extra: int = 0) -> np.ndarray:
    """The users' records as an (n, 1 + d + extra) array, rows (r, x_1..x_d, ...), validated."""
    rows = np.asarray(data, dtype=float)
    if rows.shape != (n, 1 + d + extra) or not np.isfinite(rows).all():
        raise ValueError(f"{owner}: data must be the {n} users' records (r, x{', w' if extra else ''}), shape "
                         f"({n}, {1 + d + extra}), got {rows.shape}")
    return rows


class FirstIterationView:
    """The shuffled view of P_GD's first iteration: P_1 (at the per-iteration budget, bias L) on the
    users' gradients at theta_0 = Pi_Theta(0). With T_it = 1 (``whole_transcript``) it is P_GD's whole
    transcript, for any loss; then its exact law is a product of finite laws over the d labels.

    Data: the n users' records (r, x), shape (n, 1 + d); ``gradient`` as for :meth:`PrivateGD.run`
    (data (rewards, contexts)). :meth:`sample`: the d counts, shape (size, d)."""

    owner = "FirstIterationView"

    def __init__(self, pgd: PrivateGD, gradient: Callable[[np.ndarray, Any], np.ndarray]):
        self.pgd = pgd
        self.gradient = gradient
        self.whole_transcript = pgd.T_it == 1
        what = "whole transcript" if self.whole_transcript else f"first of {pgd.T_it} iterations"
        self.name = f"{pgd!r}: view of the {what}"

    def __repr__(self) -> str:
        return self.name

    def inputs(self, data: Any) -> np.ndarray:
        """The gradients at theta_0, shape (n, d): P_1's inputs."""
        rows = split_points(self.owner, data, self.pgd.n, self.pgd.d)
        return self.pgd._gradients(self.gradient, self.pgd.start(1), (rows[:, 0], rows[:, 1:]))[0]

    def distribution(self, data: Any) -> ProductDensity:
        return self.pgd.protocol.distribution(self.inputs(data))

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.pgd.protocol.sample(self.inputs(data), size, rng)

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)


class BatchRelease:
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

    owner = "BatchRelease"

    def __init__(self, summation: ShuffledMatrixSummation, optimizer: FirstIterationView, weighted: bool = False):
        if not optimizer.whole_transcript:
            raise ValueError(f"{self.owner}: the P_GD transcript's law is a product only with T_it = 1, "
                             f"got T_it = {optimizer.pgd.T_it}")
        if (summation.n, summation.d) != (optimizer.pgd.n, optimizer.pgd.d):
            raise ValueError(f"{self.owner}: P_2 and P_GD must see the same batch (n, d), got "
                             f"{(summation.n, summation.d)} and {(optimizer.pgd.n, optimizer.pgd.d)}")
        self.summation, self.optimizer, self.weighted = summation, optimizer, bool(weighted)
        self.name = f"Algorithm 1 batch: {summation!r} and {optimizer!r}"

    def __repr__(self) -> str:
        return self.name

    def parts(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        """(P_2's matrices (n, d, d), P_GD's records (r, x) (n, 1 + d))."""
        n, d = self.summation.n, self.summation.d
        rows = split_points(self.owner, data, n, d, extra=int(self.weighted))
        x = rows[:, 1:1 + d]
        weight = rows[:, -1] if self.weighted else np.ones(n)
        if (weight < 0).any():
            raise ValueError(f"{self.owner}: the weights w = mu'/beta must be >= 0")
        return weight[:, None, None] * np.einsum("ni,nj->nij", x, x), rows[:, :1 + d]

    def distribution(self, data: Any) -> ProductDensity:
        matrices, points = self.parts(data)
        return ProductDensity(self.summation.distribution(matrices).coordinates
                              + self.optimizer.distribution(points).coordinates)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        matrices, points = self.parts(data)
        views = [self.summation.sample(matrices, size, rng), self.optimizer.sample(points, size, rng)]
        return np.concatenate(views, axis=1)

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)


# -- Algorithm 1's and Algorithm 2's calls, parameters from the printed formulas --------------------


def algorithm1_lambdas(epsilon: float, delta: float, d: int, n: int, T: int, kappa_star: float, R: float = 1.0
                       ) -> tuple[float, float, float]:
    """(sigma, lambda, lambda_max) of Algorithm 1, eqs. (8), (10), (15), M = ceil(log2 log2 T):
        lambda     = 20 d R log T + sigma 6 sqrt(log(2 d M T / delta))                       (8)
        lambda_max = lambda + (8 R log(d^2/delta) / (kappa* eps)) (sqrt d + 6 sqrt(log(2 M T / delta)))  (15)
    sigma is printed as O(R log(d^2/delta) / (kappa* eps)); choice (spec): the standard deviation of one
    P_2 output entry at (eps/2, delta/2) with Delta = 1/kappa* on a batch of n, at its largest
    (rounding variance n/4): (Delta/g) sqrt(n/4 + n b p (1 - p))."""
    owner = "algorithm1_lambdas"
    if not 0 < epsilon < 5 or not 0 < delta < 0.5:
        raise ValueError(f"{owner}: Theorem 5.1 covers eps in (0, 5) and delta in (0, 1/2), got eps={epsilon!r}, "
                         f"delta={delta!r}")
    T = integer(owner, "T", T, 3)
    M = math.ceil(math.log2(math.log2(T)))
    g, b, p = summation_parameters(epsilon / 2, delta / 2, d, n, "algorithm1_lambdas")
    sigma = (1 / kappa_star) / g * math.sqrt(n / 4 + n * b * p * (1 - p))
    lam = 20 * d * R * math.log(T) + sigma * 6 * math.sqrt(math.log(2 * d * M * T / delta))
    width = 8 * R * math.log(d**2 / delta) / (kappa_star * epsilon)
    lam_max = lam + width * (math.sqrt(d) + 6 * math.sqrt(math.log(2 * M * T / delta)))
    return sigma, lam, lam_max


def algorithm1_optimizer(epsilon: float, delta: float, d: int, n: int, T: int, kappa_star: float,
                         R: float = 1.0, S: float = 1.0) -> tuple[PrivateGD, Callable[[np.ndarray, Any], np.ndarray]]:
    """Algorithm 1 lines 8 / 21: P_GD on a batch of n at (eps/2, delta/2), loss l + (lambda_max/(2 n))||theta||^2
    (logistic) on {||theta|| <= S}, eta = 2S/(R S sqrt(T_it)), L = R S + S + S lambda_max / n (D.2's value,
    stated for this regularised loss). Returns (P_GD, per-point gradient)."""
    _, _, lam_max = algorithm1_lambdas(epsilon, delta, d, n, T, kappa_star, R)
    lipschitz = R * S + S + S * lam_max / n
    pgd = PrivateGD(epsilon / 2, delta / 2, n, d, lipschitz, radius=S, step="alg1", reward_bound=R)
    return pgd, logistic_gradient(regularisation=lam_max / n)


@dataclass(frozen=True)
class Algorithm2Parameters:
    """Algorithm 2's parameters (eqs. (19), (21) and "Optimizer and loss details"); see
    :func:`algorithm2_parameters`."""

    epsilon: float
    delta: float
    T: int
    zeta: float
    d: int
    R: float
    S: float
    kappa: float
    kappa_star: float
    lam: float
    lam_min: float
    lam_max: float
    gamma: float
    count1_cutoff: int
    count2_cutoff: int
    explore_budget: tuple[float, float]
    switch_budget: tuple[float, float]


def algorithm2_parameters(epsilon: float, delta: float, T: int, zeta: float, d: int, R: float, S: float,
                          kappa: float, kappa_star: float, c: float = 1.0) -> Algorithm2Parameters:
    """Algorithm 2's parameters as printed:
        lambda  = 64 (4 sqrt d + 1) log(32/delta) log T (log(16 T/zeta) + sqrt d) / (eps kappa*)      (19)
        gamma   = c R^5 S^4 d log^2(T d/zeta) log(32/delta) / (min(eps, 1) kappa*^2)                   (21)
        lambda_min = 4 sqrt d lambda / (4 sqrt d + 1),  lambda_max = (4 sqrt d + 2) lambda / (4 sqrt d + 1)
        count1_cutoff = 8 d R^2 kappa gamma^2 log T
        count2_cutoff = log2(lambda_max/lambda_min + (T / kappa*^2) / (lambda_min d))
        (eps_o, delta_o)     = (eps / (6 sqrt(2 count1_cutoff log(4/delta))), delta / (6 count1_cutoff))
        (eps_tau, delta_tau) = (eps / (6 sqrt(2 count2_cutoff log(4/delta))), delta / (6 count2_cutoff))
    Choices: c = 1 (an unspecified universal constant); the cutoffs count optimizer calls, so they are
    rounded up to integers >= 1 (count2_cutoff as printed is below 1 unless T >~ kappa*^2 lambda_min d:
    log2 of about 1 + 1/(2 sqrt d)), and the budgets use the rounded cutoffs. Theorem 6.2 needs
    delta > zeta."""
    owner = "algorithm2_parameters"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = probability(owner, "delta", delta)
    zeta = probability(owner, "zeta", zeta)
    if not delta > zeta:
        raise ValueError(f"{owner}: zeta must be < delta (Theorem 6.2 / Lemma I.7 need delta > zeta), got "
                         f"zeta={zeta!r}, delta={delta!r}")
    T = integer(owner, "T", T, 2)
    d = integer(owner, "d", d, 1)
    R, S = positive(owner, "R", R), positive(owner, "S", S)
    kappa, kappa_star = positive(owner, "kappa", kappa), positive(owner, "kappa_star", kappa_star)
    root = math.sqrt(d)
    log32 = math.log(32 / delta)
    lam = 64 * (4 * root + 1) * log32 * math.log(T) * (math.log(16 * T / zeta) + root) / (epsilon * kappa_star)
    gamma = c * R**5 * S**4 * d * math.log(T * d / zeta) ** 2 * log32 / (min(epsilon, 1.0) * kappa_star**2)
    lam_min, lam_max = lam * 4 * root / (4 * root + 1), lam * (4 * root + 2) / (4 * root + 1)
    count1 = max(1, math.ceil(8 * d * R**2 * kappa * gamma**2 * math.log(T)))
    count2 = max(1, math.ceil(math.log2(lam_max / lam_min + (T / kappa_star**2) / (lam_min * d))))

    def split(cutoff: int) -> tuple[float, float]:
        return epsilon / (6 * math.sqrt(2 * cutoff * math.log(4 / delta))), delta / (6 * cutoff)

    return Algorithm2Parameters(epsilon, delta, T, zeta, d, R, S, kappa, kappa_star, lam, lam_min, lam_max, gamma,
                                count1, count2, split(count1), split(count2))


def criterion_two_optimizer(params: Algorithm2Parameters, n: int, theta_o: Any, V: Any
                            ) -> tuple[PrivateGD, Callable[[np.ndarray, Any], np.ndarray]]:
    """Algorithm 2 line 12: theta_tau by P_GD on the n = t - 1 - |T_o| criterion-II rounds so far, loss
    l + (lambda_max/(2 n))||theta||^2 (logistic), Theta = {||theta - theta_o||_V <= gamma sqrt(kappa)},
    budget (eps_tau, delta_tau), Algorithm 7's eta = 2D/(L sqrt(T_it)). The paper gives no Lipschitz
    constant for this call; choice: L = R + lambda_max max_{Theta} ||theta|| / n, bounded through
    ||theta|| <= ||theta_o|| + gamma sqrt(kappa) / sqrt(lambda_min(V)) (|mu - r| <= R for r in [0, R]).
    Returns (P_GD, per-point gradient)."""
    domain = Ellipsoid(theta_o, V, params.gamma * math.sqrt(params.kappa))
    n = integer("criterion_two_optimizer", "n", n, 1)
    lipschitz = params.R + params.lam_max * domain.max_norm / n
    eps_tau, delta_tau = params.switch_budget
    pgd = PrivateGD(eps_tau, delta_tau, n, params.d, lipschitz, domain=domain, step="alg7")
    return pgd, logistic_gradient(regularisation=params.lam_max / n)


# -- Algorithm 2's released view, for one criterion-II user (Lemma I.7 / Theorem 6.2) ---------------


def logistic_slope(z: np.ndarray) -> np.ndarray:
    """mu'(z) = mu(z)(1 - mu(z)) of the logistic link."""
    mu = logistic_mean(z)
    return mu * (1 - mu)


class CriterionTwoUserView:
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
    :class:`~dpaudit.mechanisms.exploration_set.SymmetricGaussianTree`) and the call's d counts,
    independent given the data: a product of Gaussian and finite coordinates.

    Choices where the paper is silent: theta_o in line 24 is the criterion-two domain's centre (the
    theta_o of the call's ellipsoid; no criterion-I round lies between the rounds and tau, so it is
    the same estimate); the other rounds' H-leaves are 0 (T_o rounds) or, after tau, left out as 0:
    they shift both neighbours' nodes alike, which changes no privacy loss of Gaussian nodes.

    Data: the n criterion-II users' records (r, x), shape (n, 1 + d), in the order of ``rounds``
    (1-based round indices < T), ||x|| <= 1. :meth:`sample`: the T d(d+1)/2 node coordinates
    (block-major), then the call's d counts."""

    owner = "CriterionTwoUserView"

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

    def __repr__(self) -> str:
        return self.name

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

    def distribution(self, data: Any) -> ProductDensity:
        return ProductDensity(self.tree.distribution(self.leaves(data)).coordinates
                              + self.optimizer.distribution(data).coordinates)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        nodes = self.tree.sample(self.leaves(data), size, rng).reshape(size, -1)
        return np.concatenate([nodes, self.optimizer.sample(data, size, rng)], axis=1)

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, size, rng)


def criterion_two_user_view(params: Algorithm2Parameters, rounds: Any, theta_o: Any, V: Any) -> CriterionTwoUserView:
    """:class:`CriterionTwoUserView` at Algorithm 2's printed parameters: B_H with sigma_noise of Lemma I.4
    (sqrt(36 m log^2(32/delta) / (kappa*^2 eps^2)), m = ceil(log2 T + 1)) and the line-12 call of
    :func:`criterion_two_optimizer` on the n = len(rounds) criterion-II records, Theta around theta_o in V."""
    sigma = node_noise_sigma(params.T, params.epsilon, params.delta, params.kappa_star)
    pgd, gradient = criterion_two_optimizer(params, len(np.atleast_1d(rounds)), theta_o, V)
    tree = SymmetricGaussianTree(params.T, params.d, sigma)
    return CriterionTwoUserView(tree, FirstIterationView(pgd, gradient), rounds)


__all__ = ["Algorithm2Parameters", "Ball", "BatchRelease", "CriterionTwoUserView", "Ellipsoid", "FirstIterationView",
           "LinearLossTranscript", "PrivateGD", "algorithm1_lambdas", "algorithm1_optimizer",
           "algorithm2_parameters", "criterion_two_optimizer", "criterion_two_user_view", "iterations",
           "logistic_gradient", "logistic_slope", "round_budget"]
