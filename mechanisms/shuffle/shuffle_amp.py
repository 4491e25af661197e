"""shuffle-lcb's Gaussian protocol P_Amp (Chowdhury & Zhou, ICML 2022, Appendix B: Algorithms 2-4)
and the local Gaussian randomizer of LinUCB-LDP / Batched-Local-LinUCB (Zheng et al. 2020; App. F).

R_Amp (Algorithm 2): user t with phi = phi(c_t, a_t), ||phi||_2 <= 1, and reward |y| <= 1
(Assumption 3.1) sends M1 = phi y + n, n ~ N(0, sigma^2 I_d), and M2 = phi phi^T + N, N symmetric
with N_(i,j) ~ N(0, sigma^2) i.i.d. for i <= j (diagonal included) and N_(j,i) = N_(i,j). Every
theorem takes sigma1 = sigma2 = sigma (Algorithm 2 and Section 3.2 swap the indices; immaterial).
S_Amp (Algorithm 3) permutes the batch's M1 messages and, with a fresh independent permutation,
its M2 messages. A_Amp (Algorithm 4) returns the two sums.

The randomizer's release (M1, upper(M2)) is a Gaussian mechanism with i.i.d. N(0, sigma^2)
coordinates on d + d(d + 1)/2 coordinates (the lower triangle is a copy), so its local privacy
has an exact law (:meth:`GaussianRandomizer.distribution`). The shuffled view (two multisets of B
Gaussian messages) has no tractable law; the analyzer's sums are Gaussian with standard deviation
sqrt(B) sigma per coordinate (:meth:`ShuffledGaussianProtocol.sum_distribution`), a
post-processing of the view (a lower bound on its privacy loss, never a proof of its privacy).

Parameter settings of Section 3.4 (natural log):
  - Corollary B.3, Proposition F.1 and LinUCB-LDP ((eps0, delta0)-LDP, eps0 in (0, 1], delta0 in
    (0, 1]): sigma = 4 sqrt(2 log(2.5 / delta0)) / eps0 (:func:`ldp_sigma`);
  - Theorem 3.2 = B.1 (unique users, O(eps, delta)-SDP, delta in (0, 1],
    eps in (0, sqrt(log(2/delta) / B)]): sigma = 4 sqrt(2 log(2.5 B / delta) log(2 / delta)) / (eps sqrt B)
    (:func:`unique_user_sigma`), i.e. :func:`ldp_sigma` at the proof's eps0 = eps sqrt(B / log(2/delta)),
    delta0 = delta / B (:func:`unique_user_ldp_budget`); the eps range is what makes eps0 <= 1;
  - Theorem 4.2(i) = E.3 (returning users, delta in (0, 1], eps <= (2/B) log(2/delta) sqrt(2T)):
    sigma = 16 log(2/delta) sqrt(T log(5T/delta)) / (eps B) (:func:`returning_user_sigma`).

Amplification by shuffling, Lemma B.4 (a special case of Feldman, McMillan & Talwar 2021, Thm 3.8):
for an (eps0, delta0)-LDP randomizer, n users and delta' with eps0 <= log(n / (16 log(2/delta'))),
the shuffled output is (eps~, delta~)-DP with eps~ = log(1 + (e^eps0 - 1)/(e^eps0 + 1)
(8 sqrt(e^eps0 log(4/delta')) / sqrt n + 8 e^eps0 / n)) -- the same expression, with the same
condition, as FMT's Theorem 3.1 (:func:`~dpaudit.mechanisms.shuffle.shuffled_response.fmt_shuffle_epsilon`, reused)
-- and delta~ = delta' + (e^eps~ + 1)(1 + e^-eps0 / 2) n delta0 (:func:`shuffle_amplification`).

Choices where the paper is silent:
  - data are one row (phi, y) per user; inputs are checked (||phi|| <= 1, |y| <= 1, relative 1e-9);
  - the randomizer's output is (M1, upper(M2)) with upper(M2) row-major, diagonal included (M2's
    lower triangle is a copy); :meth:`GaussianRandomizer.messages` gives the full M2;
  - the fast path of the protocol draws the analyzer's sums from their exact Gaussian law; the
    per-user path runs every randomizer and both shufflers, then sums.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpaudit.core.distributions import GaussianDistribution, ProductDistribution
from dpaudit.core.logspace import log_sum_exp
from dpaudit.core.validation import integer, positive, sample_size

from ..base import ExactRelease, Release
from .shuffle_vec import user_entries
from .shuffled_response import fmt_shuffle_epsilon


def _unit_interval(owner: str, name: str, value: Any, closed_high: bool = True) -> float:
    value = positive(owner, name, value)
    if value > 1 or (value == 1 and not closed_high):
        raise ValueError(f"{owner}: {name} must be in (0, 1{']' if closed_high else ')'}, got {value!r}")
    return value


def ldp_sigma(epsilon0: float, delta0: float, strict: bool = True) -> float:
    """sigma1 = sigma2 = 4 sqrt(2 log(2.5 / delta0)) / eps0 (Corollary B.3, Proposition F.1),
    for eps0 in (0, 1] and delta0 in (0, 1]. ``strict=False`` evaluates the formula at any eps0 > 0
    (the paper's experiments run LinUCB-LDP at eps = 10, outside the corollary's range; the caller
    says so)."""
    owner = "ldp_sigma"
    epsilon0 = _unit_interval(owner, "epsilon0", epsilon0) if strict else positive(owner, "epsilon0", epsilon0)
    delta0 = _unit_interval(owner, "delta0", delta0)
    return 4 * math.sqrt(2 * math.log(2.5 / delta0)) / epsilon0


def unique_user_epsilon_max(delta: float, B: int) -> float:
    """Theorem 3.2 / B.1's largest eps: sqrt(log(2/delta) / B) (where the proof's eps0 reaches 1)."""
    return math.sqrt(math.log(2 / delta) / B)


def returning_user_epsilon_max(delta: float, B: int, T: int) -> float:
    """Theorem 4.2(i) / E.3's largest eps: (2/B) log(2/delta) sqrt(2T)."""
    return 2 / B * math.log(2 / delta) * math.sqrt(2 * T)


def unique_user_ldp_budget(epsilon: float, delta: float, B: int) -> tuple[float, float]:
    """The proof of Theorem B.1's per-user budget: eps0 = eps sqrt(B / log(2/delta)), delta0 = delta/B.
    Refuses eps outside (0, sqrt(log(2/delta) / B)], the theorem's range (where eps0 <= 1)."""
    owner = "unique_user_ldp_budget"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = _unit_interval(owner, "delta", delta)
    B = integer(owner, "B", B, 1)
    top = unique_user_epsilon_max(delta, B)
    if epsilon > top * (1 + 1e-12):
        raise ValueError(f"{owner}: Theorem 3.2 / B.1 needs epsilon in (0, sqrt(log(2/delta)/B)] = (0, {top:.6g}] "
                         f"(delta = {delta:g}, B = {B}), got epsilon = {epsilon!r}")
    return min(epsilon * math.sqrt(B / math.log(2 / delta)), 1.0), delta / B


def unique_user_sigma(epsilon: float, delta: float, B: int, strict: bool = True) -> float:
    """Theorem 3.2 / B.1: sigma = 4 sqrt(2 log(2.5 B / delta) log(2 / delta)) / (eps sqrt B), in the
    theorem's range (:func:`unique_user_ldp_budget` checks it). ``strict=False`` evaluates the formula
    at any eps > 0 (the paper's experiments run eps = 1 and 10 at B = 20, outside the range; the
    caller says so)."""
    if strict:
        unique_user_ldp_budget(epsilon, delta, B)
    else:
        epsilon = positive("unique_user_sigma", "epsilon", epsilon)
        delta = _unit_interval("unique_user_sigma", "delta", delta)
        B = integer("unique_user_sigma", "B", B, 1)
    return 4 * math.sqrt(2 * math.log(2.5 * B / delta) * math.log(2 / delta)) / (epsilon * math.sqrt(B))


def returning_user_sigma(epsilon: float, delta: float, B: int, T: int, strict: bool = True) -> float:
    """Theorem 4.2(i) / E.3: sigma = 16 log(2/delta) sqrt(T log(5T/delta)) / (eps B), for
    delta in (0, 1], B in [T] and eps <= (2/B) log(2/delta) sqrt(2T) (``strict=False``: the formula at
    any eps > 0, for a caller that notes the theorem does not cover it)."""
    owner = "returning_user_sigma"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = _unit_interval(owner, "delta", delta)
    B, T = integer(owner, "B", B, 1), integer(owner, "T", T, 1)
    if B > T:
        raise ValueError(f"{owner}: B must be in [T] = [1, {T}], got {B}")
    top = returning_user_epsilon_max(delta, B, T)
    if strict and epsilon > top * (1 + 1e-12):
        raise ValueError(f"{owner}: Theorem 4.2(i) / E.3 needs epsilon <= (2/B) log(2/delta) sqrt(2T) = {top:.6g}, "
                         f"got epsilon = {epsilon!r}")
    return 16 * math.log(2 / delta) * math.sqrt(T * math.log(5 * T / delta)) / (epsilon * B)


def returning_user_batch_budget(epsilon: float, delta: float, B: int, T: int) -> tuple[float, float]:
    """The proof of Theorem E.3's per-batch budget (Theorem E.2 with k = M = T/B, delta' = delta/2):
    eps_m = eps / (2 sqrt(2 M log(2/delta))), delta_m = delta / (2M)."""
    owner = "returning_user_batch_budget"
    epsilon = positive(owner, "epsilon", epsilon)
    delta = _unit_interval(owner, "delta", delta)
    B, T = integer(owner, "B", B, 1), integer(owner, "T", T, 1)
    M = T / B
    return epsilon / (2 * math.sqrt(2 * M * math.log(2 / delta))), delta / (2 * M)


def shuffle_amplification(epsilon0: float, delta0: float, n: int, delta_prime: float) -> tuple[float, float]:
    """Lemma B.4: (eps~, delta~) of n shuffled (eps0, delta0)-LDP randomizers; eps~ is
    :func:`~dpaudit.mechanisms.shuffle.shuffled_response.fmt_shuffle_epsilon` (the same statement, which raises
    ``ValueError`` unless eps0 <= log(n / (16 log(2/delta')))), and
    delta~ = delta' + (e^eps~ + 1)(1 + e^-eps0 / 2) n delta0."""
    owner = "shuffle_amplification"
    delta0 = float(delta0)
    if not 0 <= delta0 <= 1:
        raise ValueError(f"{owner}: delta0 must be in [0, 1], got {delta0!r}")
    eps_tilde = fmt_shuffle_epsilon(epsilon0, n, delta_prime)
    delta_tilde = delta_prime + (math.exp(eps_tilde) + 1) * (1 + math.exp(-epsilon0) / 2) * n * delta0
    return eps_tilde, delta_tilde


class GaussianRandomizer(ExactRelease):
    """R_Amp (Algorithm 2) for one user: (M1, upper(M2)) = (phi y, upper(phi phi^T)) + N(0, sigma^2)
    on each of the d + d(d + 1)/2 coordinates (module docstring).

    Data: one user's row (phi, y), shape (d + 1,), or a batch of one, shape (1, d + 1) (for
    ``ReplaceUser(batch_size=1)``, the local model's "any two data points of one user").
    Output: shape (size, d + d(d + 1)/2). Build it from a theorem with :meth:`ldp`,
    :meth:`unique_users` or :meth:`returning_users`.
    """

    paper = "shuffle-lcb"
    source = "R_Amp, Appendix B, Algorithm 2 (the local randomizer of LinUCB-LDP, Corollary B.3)"

    def __init__(self, sigma: float, d: int, setting: str = "given sigma", norm_bound: float = 1.0):
        self.sigma = positive(self.owner, "sigma", sigma)
        self.d = integer(self.owner, "d", d, 1)
        self.coordinates = self.d + self.d * (self.d + 1) // 2
        self.upper = np.triu_indices(self.d)
        self.norm_bound = positive(self.owner, "norm_bound", norm_bound)  # user_entries' largest ||phi||
        bound = "" if self.norm_bound == 1 else f", ||phi|| <= {self.norm_bound:.6g}"
        self.name = f"R_Amp({setting}; d={self.d}, sigma={self.sigma:.6g}{bound})"

    @classmethod
    def ldp(cls, epsilon0: float, delta0: float, d: int, strict: bool = True) -> GaussianRandomizer:
        """Corollary B.3 / Proposition F.1 / LinUCB-LDP: claimed (eps0, delta0)-LDP (``strict=False``:
        :func:`ldp_sigma`'s formula also at eps0 > 1)."""
        return cls(ldp_sigma(epsilon0, delta0, strict), d, f"Cor B.3, eps0={epsilon0:g}, delta0={delta0:g}")

    @classmethod
    def unique_users(cls, epsilon: float, delta: float, B: int, d: int, strict: bool = True) -> GaussianRandomizer:
        """Theorem 3.2 / B.1's randomizer for batches of B unique users (``strict=False``: the formula
        also outside the theorem's eps range)."""
        return cls(unique_user_sigma(epsilon, delta, B, strict), d,
                   f"Thm 3.2, eps={epsilon:g}, delta={delta:g}, B={B}")

    @classmethod
    def returning_users(cls, epsilon: float, delta: float, B: int, T: int, d: int,
                        strict: bool = True) -> GaussianRandomizer:
        """Theorem 4.2(i) / E.3's randomizer for returning users (``strict=False``: the formula also
        outside the theorem's eps range)."""
        return cls(returning_user_sigma(epsilon, delta, B, T, strict), d,
                   f"Thm E.3, eps={epsilon:g}, delta={delta:g}, B={B}, T={T}")

    def means(self, data: Any, users: int | None = None) -> np.ndarray:
        """The noiseless release (phi y, upper(phi phi^T)); shape (coordinates,) for one user's row,
        (users, coordinates) for ``users`` rows."""
        x = np.asarray(data, dtype=float)
        if users is None:
            single = x.reshape(1, -1) if x.ndim == 1 else x
            if single.shape[0] != 1:
                raise ValueError(f"{self.owner}: data must be one user's row (phi, y) of length {self.d + 1}, "
                                 f"got shape {x.shape}")
            return user_entries(self.owner, single, 1, self.d, self.norm_bound)[0]
        return user_entries(self.owner, x, users, self.d, self.norm_bound)

    def _input(self, data: Any) -> np.ndarray:
        return self.means(data)

    def _distribution(self, means: np.ndarray) -> ProductDistribution:
        """The exact law of the release: independent N(mean, sigma^2) coordinates."""
        return ProductDistribution(tuple(GaussianDistribution(float(m), self.sigma) for m in means))

    def noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Algorithm 2's noise as printed, reduced to the released coordinates: n ~ N(0, sigma^2 I_d),
        and N with i.i.d. N(0, sigma^2) entries on and above the diagonal (shape (*shape, coordinates))."""
        return rng.normal(0.0, self.sigma, (*shape, self.coordinates))

    def _sample(self, means: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return means + self.noise((size,), rng)

    def release_rows(self, rows: Any, rng: np.random.Generator) -> np.ndarray:
        """Every row's release at once: rows (..., d + 1), each one user's (phi, y) (e.g. (runs, n,
        d + 1): n users of each of R runs) -> (..., coordinates), the noiseless release plus
        :meth:`noise` of the rows' shape (the law of :meth:`sample` on each row, rows independent)."""
        x = np.asarray(rows, dtype=float)
        if x.ndim < 1 or x.shape[-1] != self.d + 1:
            raise ValueError(f"{self.owner}: rows must have a last axis (phi, y) of length {self.d + 1}, "
                             f"got shape {x.shape}")
        flat = x.reshape(-1, self.d + 1)
        means = user_entries(self.owner, flat, flat.shape[0], self.d, self.norm_bound)
        means = means.reshape(*x.shape[:-1], self.coordinates)
        return means + self.noise(x.shape[:-1], rng)

    def messages(self, released: Any) -> tuple[np.ndarray, np.ndarray]:
        """(M1, M2) from released coordinates (..., coordinates): M2 symmetric, shape (..., d, d)."""
        r = np.asarray(released, dtype=float)
        m2 = np.zeros((*r.shape[:-1], self.d, self.d))
        m2[..., self.upper[0], self.upper[1]] = r[..., self.d:]
        m2[..., self.upper[1], self.upper[0]] = r[..., self.d:]
        return r[..., : self.d], m2


class ShuffledGaussianProtocol(Release):
    """P_Amp = (R_Amp, S_Amp, A_Amp) on a batch of ``B`` users (Algorithms 2-4).

    Data: a (B, d + 1) array, user i's row (phi_i, y_i). :meth:`sample` (= :meth:`sample_per_user`)
    is the shuffled view: shape (size, B, coordinates), row j of a run the j-th message of each
    shuffled list (the M1 part permuted by S1, the upper(M2) part by an independent S2).
    :meth:`sample_sums` draws the analyzer's output (A1, A2 as released coordinates) from its exact
    law; :meth:`sample_sums_per_user` computes it from the per-user path.
    """

    paper = "shuffle-lcb"
    source = "P_Amp, Appendix B, Algorithms 2-4"

    def __init__(self, randomizer: GaussianRandomizer, B: int):
        if not isinstance(randomizer, GaussianRandomizer):
            raise TypeError(f"{self.owner}: randomizer must be a GaussianRandomizer, got {randomizer!r}")
        self.randomizer = randomizer
        self.B = integer(self.owner, "B", B, 1)
        self.d = randomizer.d
        self.name = f"P_Amp({randomizer!r}, B={self.B})"

    def means(self, data: Any) -> np.ndarray:
        return self.randomizer.means(data, users=self.B)

    def shuffle(self, messages: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """S1 and S2: independent uniform permutations of the users' M1 parts and of their M2 parts,
        per run (messages of shape (size, B, coordinates))."""
        size, users = messages.shape[:2]
        out = np.empty_like(messages)
        offsets = (np.arange(size) * users)[:, None]
        for part in (slice(0, self.d), slice(self.d, None)):
            order = np.argsort(rng.random((size, users)), axis=1)  # a uniform permutation per run
            # the part's rows gathered from a contiguous copy by flat index: a fancy index of the whole messages
            # array, then the part, moved every coordinate twice and took most of an audit of the view
            rows = np.ascontiguousarray(messages[..., part]).reshape(size * users, -1)
            out[..., part] = np.take(rows, (order + offsets).ravel(), axis=0).reshape(size, users, -1)
        return out

    def _input(self, data: Any) -> np.ndarray:
        return self.means(data)

    def _sample(self, means: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """The per-user path: every user's R_Amp, then S_Amp's two permutations."""
        return self.shuffle(self._randomized(means, size, rng), rng)

    def _randomized(self, means: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        messages = self.randomizer.noise((size, self.B), rng)
        messages += means  # in place: no second array of B * coordinates values per run
        return messages

    def randomized(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Every user's R_Amp message before S_Amp: shape (size, B, coordinates), row j user j's message (the
        view :meth:`sample_per_user` draws is these rows with each list permuted)."""
        size = sample_size(self.owner, size)
        return self._randomized(self.means(data), size, rng)

    def sample_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size = sample_size(self.owner, size)
        return self._sample(self.means(data), size, rng)

    def analyze(self, view: Any) -> np.ndarray:
        """A1 and A2: the sums of the shuffled messages, as released coordinates (..., coordinates)
        (:meth:`GaussianRandomizer.messages` turns them into (u~, V~))."""
        return np.asarray(view, dtype=float).sum(axis=-2)

    def sum_distribution(self, data: Any) -> ProductDistribution:
        """The exact law of the analyzer's output: sum of the inputs + N(0, B sigma^2) per coordinate."""
        total = self.means(data).sum(axis=0)
        sigma = self.randomizer.sigma * math.sqrt(self.B)
        return ProductDistribution(tuple(GaussianDistribution(float(m), sigma) for m in total))

    def sample_sums(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """The analyzer's output from its exact law (fast path; its cost does not grow with B)."""
        size = sample_size(self.owner, size)
        total = self.means(data).sum(axis=0)
        return total + self.sum_noise((size,), rng)

    def sum_noise(self, shape: tuple[int, ...], rng: np.random.Generator, out: np.ndarray | None = None) -> np.ndarray:
        """The noise of the analyzer's output, the sum of B users' N(0, sigma^2) per coordinate: N(0, B sigma^2)
        i.i.d., shape (*shape, coordinates) (the draws :meth:`sample_sums` and :meth:`release_batches` add; drawn
        ahead for many batches at once, the same values as batch after batch). ``out``: a C-contiguous float array
        of that shape to draw into, the same values (numpy's normal is loc + scale times its standard normal): a
        compiled loop that draws block after block reuses one buffer, where a fresh array each block costs its
        pages' faults."""
        scale = self.randomizer.sigma * math.sqrt(self.B)
        full = (*shape, self.randomizer.coordinates)
        if out is None:
            return rng.normal(0.0, scale, full)
        if out.shape != full or out.dtype != np.float64 or not out.flags.c_contiguous:
            raise ValueError(f"{self.owner}: out must be a C-contiguous float array of shape {full}, got {out.dtype} "
                             f"{out.shape}")
        rng.standard_normal(out=out)
        out *= scale
        return out

    def release_batches(self, rows: Any, rng: np.random.Generator) -> np.ndarray:
        """The analyzer's output for R batches at once (R runs' batches, each its own data), from the
        exact law of :meth:`sample_sums`: rows (R, B, d + 1) -> (R, coordinates), each batch's sum of
        the noiseless releases plus N(0, B sigma^2) per coordinate. With every batch equal and the
        same generator state it returns exactly :meth:`sample_sums` (data, R, rng)."""
        x = np.asarray(rows, dtype=float)
        if x.ndim != 3 or x.shape[1:] != (self.B, self.d + 1):
            raise ValueError(f"{self.owner}: rows must be R batches of the {self.B} users' rows (phi, y), shape "
                             f"(R, {self.B}, {self.d + 1}), got {x.shape}")
        total = self.randomizer.means(x.reshape(-1, self.d + 1), users=x.shape[0] * self.B)
        total = total.reshape(x.shape[0], self.B, -1).sum(axis=1)
        return total + self.sum_noise((x.shape[0],), rng)

    def sample_sums_per_user(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """The analyzer's output as printed: every user randomizes, S_Amp shuffles, A_Amp sums."""
        return self.analyze(self.sample_per_user(data, size, rng))



class CloneLikelihoodRatio(Release):
    """An audit view of P_Amp's shuffled messages: the log-likelihood ratio of the view between a
    batch whose users all hold ``base`` and the same batch with one user holding ``target``:

        L(view) = sum over the two shuffled lists of log((1/B) sum_j exp((<y_j - m_c, u> - ||u||^2 / 2) / sigma^2)),

    m_c the base row's noiseless release, u = m_target - m_c restricted to the list's coordinates,
    y_j the j-th shuffled message. For that pair of batches L is the exact privacy loss of the view
    (the B - 1 users at ``base`` make the shuffled law a uniform mixture over the target's position;
    the two lists are permuted independently), so threshold events on L are the Neyman-Pearson
    tests of the pair. For any data it is a fixed post-processing of the view: an audit of L bounds
    the view's privacy loss from below, and a refutation carries over to the view.

    Views are drawn by the per-user path in blocks of runs, so memory stays bounded: every user's
    randomizer (:meth:`ShuffledGaussianProtocol.randomized`), without the shufflers. L is symmetric in
    each list's messages, so it takes the same value on the shuffled lists as on the unshuffled ones,
    for any permutations S_Amp draws (its law is exactly the law of L on the view; only the order of a
    floating-point sum differs): permuting 200 users' messages took half of an audit of the view and
    cannot move L. Output: shape (size,)."""

    paper = "shuffle-lcb"
    source = "P_Amp's shuffled view (Appendix B, Algorithms 2-3), as its log-likelihood ratio"
    BLOCK_VALUES = 4_000_000

    def __init__(self, protocol: ShuffledGaussianProtocol, base: Any, target: Any):
        if not isinstance(protocol, ShuffledGaussianProtocol):
            raise TypeError(f"{self.owner}: protocol must be a ShuffledGaussianProtocol, got {protocol!r}")
        self.protocol = protocol
        r = protocol.randomizer
        self.base_mean = r.means(base)
        self.shift = r.means(target) - self.base_mean
        self.parts = (slice(0, r.d), slice(r.d, None))
        self.name = (f"log-likelihood ratio of the view of {protocol!r}, "
                     f"one user {np.round(np.asarray(target, float), 4).tolist()} "
                     f"among users at {np.round(np.asarray(base, float), 4).tolist()}")

    def statistic(self, views: np.ndarray) -> np.ndarray:
        sigma2 = self.protocol.randomizer.sigma ** 2
        total = np.zeros(views.shape[0])
        for part in self.parts:
            u = self.shift[part]
            # <y - m_c, u> as <y, u> - <m_c, u>: no centred copy of the views
            scores = (views[..., part] @ u - (self.base_mean[part] @ u + u @ u / 2)) / sigma2
            total += log_sum_exp(scores, axis=1) - math.log(self.protocol.B)
        return total

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """L of the protocol's per-user messages, a block at a time (which checks the data: no _input)."""
        per_run = self.protocol.B * self.protocol.randomizer.coordinates
        block = max(1, self.BLOCK_VALUES // per_run)
        out = np.empty(size)
        for start in range(0, size, block):
            m = min(block, size - start)
            out[start: start + m] = self.statistic(self.protocol.randomized(data, m, rng))
        return out


__all__ = ["CloneLikelihoodRatio", "GaussianRandomizer", "ShuffledGaussianProtocol", "ldp_sigma",
           "returning_user_batch_budget", "returning_user_epsilon_max", "returning_user_sigma", "shuffle_amplification",
           "unique_user_epsilon_max", "unique_user_ldp_budget", "unique_user_sigma"]
