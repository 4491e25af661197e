"""shuffle-lcb's bit-based vector summation P_Vec (Chowdhury & Zhou, ICML 2022, Appendix C:
Algorithms 5-7), the protocol LinUCB-SDP-Vec runs once per batch.

User t holds phi = phi(c_t, a_t) with ||phi||_2 <= 1 and a reward y with |y| <= 1 (Assumption 3.1)
and sends two labelled messages: R1(phi y) (d labels, one per coordinate) and R2(phi phi^T) (one
label per entry (i, j), i <= j; the (j, i) message is a copy). Every entry x in [-1, 1] is shifted
to w = x + Delta (Delta = 1) and sent by the scalar randomizer R~ (Algorithm 5): x_hat =
floor(w g / Delta) + Bernoulli(w g / Delta - floor(w g / Delta)), gamma2 ~ Bin(b, p), and a multiset
of bits with x_hat + gamma2 ones. S_Vec (Algorithm 6) permutes all bits of the batch and groups them
by label; the analyzer A_Vec (Algorithm 7) returns o = (Delta / g)(C - p b B) - B Delta per label,
C the label's count of ones ("instead of subtracting the norm Delta, one needs to subtract B Delta").

Sufficient statistic: bits within a label are exchangeable and their number is fixed, so the
shuffled view is equivalent to the count of ones of every label; the lower-triangle copies are a
post-processing of the upper ones. The view is therefore the d + d(d + 1)/2 counts
C_l = sum_i x_hat_{i,l} + Bin(B b, p), independent across labels: :meth:`ShuffledVectorProtocol.distribution`
is their exact law (a product of finite laws), for the exact auditor.

Parameter settings (p = 1/4 throughout; natural log):
  - Theorem 3.5 = C.1 (unique users, (eps, delta)-SDP, eps in (0, 15], delta in (0, 1/2)):
    g = max{2 sqrt B, d, 4}, b = 24 10^4 g^2 log^2(4 (d^2 + 1) / delta) / (eps^2 B) (:func:`unique_user_parameters`);
    Corollary C.2 uses the same formulas at its tuned B;
  - Corollary C.3 ((eps0, delta0)-LDP, eps0 in (0, 15], delta0 in (0, 1/2)): g = max{d, 4},
    b = 24 10^4 g^2 log^2(4 (d^2 + 1) / delta0) / eps0^2 (:func:`ldp_parameters`), i.e. the B = 1 case;
  - Theorem 4.2(ii) = E.5 (returning users, eps <= 15, delta in (0, 1/2)): g = max{2 sqrt B, d, 4},
    b = 10^7 log(2/delta) g^2 T log^2(8 T (d^2 + 1) / (B delta)) / (eps^2 B^2) (:func:`returning_user_parameters`).

Choices where the paper is silent (each recorded here and in the suite):
  - g := max{ceil(2 sqrt B), d, 4} and b := ceil(b) (Theorem 4.2(ii) says g, b in N; rounding unstated);
  - after the shift, w reaches 2 Delta, so x_hat reaches 2g while Algorithm 5 prints g + b bits (its
    count of zeros (g + b) - (x_hat + gamma2) can be negative): each message has 2g + b bits, x_hat +
    gamma2 of them ones; the analyzer counts only ones, so its formula is unchanged;
  - floor(w g / Delta) is computed as the precision-2g rounding of w / (2 Delta) in [0, 1];
  - inputs are checked: ||phi||_2 <= 1 and |y| <= 1 up to a relative 1e-9 (floating point).

Paths: :meth:`ShuffledVectorProtocol.sample` draws each label's count from its exact law (the
rounding sum and one Bin(B b, p)); :meth:`ShuffledVectorProtocol.sample_per_user` runs every user's
R~ on every entry (x_hat and its own Bin(b, p)) and sums per label, as the shuffler groups the bits;
:meth:`ShuffledVectorProtocol.run_bits` materialises the bits, permutes them and counts per label
(one run; for small b). The binomial noise is tabled on +-12 standard deviations
(:func:`~dpaudit.mechanisms.shuffle.bit_summation.binomial_table`), the mass outside bounded by Hoeffding
and carried as ``tail_mass`` (it can only count against a claim).

:func:`p_vec_parameters` is Theorem C.1's (g, b) at the paper's experiment (d = 5, B = 20, delta = 0.1)
by default. :class:`BallRows` feeds any release on rows (phi, y) (P_Vec, R_Amp, the central tree)
from the cube [-1, 1]^(d + 1), mapped one-to-one onto the inputs Assumption 3.1 allows, so that a
search over the cube covers exactly the unit ball of features.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from dpaudit.core.distributions import ProductDistribution
from dpaudit.core.validation import integer, positive, sample_size

from ..base import Adapter, ExactRelease
from ..noise import FiniteIntegerLaw
from .bit_summation import BitSummation

#: the paper's experiment: d = 5, batches of B = 20 users, delta = 0.1
EXPERIMENT_D, EXPERIMENT_B, EXPERIMENT_DELTA = 5, 20, 0.1
#: Theorem 3.5 / C.1, Corollary C.3 and Theorem E.5: eps in (0, 15], delta in (0, 1/2)
EPSILON_MAX = 15.0
DELTA_MAX = 0.5
DELTA_SHIFT = 1.0  # Delta_1 = Delta_2 = 1 (Algorithm 5, lines 12 and 22)
NORM_SLACK = 1e-9


def _budget(owner: str, epsilon: float, delta: float,
            names: tuple[str, str] = ("epsilon", "delta")) -> tuple[float, float]:
    epsilon = positive(owner, names[0], epsilon)
    if epsilon > EPSILON_MAX:
        raise ValueError(f"{owner}: {names[0]} must be in (0, {EPSILON_MAX:g}] (Theorem 3.5 / C.3 / E.5 range), "
                         f"got {epsilon!r}")
    delta = positive(owner, names[1], delta)
    if not delta < DELTA_MAX:
        raise ValueError(f"{owner}: {names[1]} must be in (0, 1/2) (Theorem 3.5 / C.3 / E.5 range), got {delta!r}")
    return epsilon, delta


def accuracy_g(d: int, B: int) -> int:
    """g = max{ceil(2 sqrt B), d, 4}."""
    return max(math.ceil(2 * math.sqrt(B)), d, 4)


def unique_user_parameters(epsilon: float, delta: float, d: int, B: int) -> tuple[int, int]:
    """(g, b) of Theorem 3.5 / C.1: g = max{ceil(2 sqrt B), d, 4},
    b = ceil(24e4 g^2 log^2(4 (d^2 + 1) / delta) / (eps^2 B))."""
    owner = "unique_user_parameters"
    epsilon, delta = _budget(owner, epsilon, delta)
    d, B = integer(owner, "d", d, 1), integer(owner, "B", B, 1)
    g = accuracy_g(d, B)
    b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * B))
    return g, b


def p_vec_parameters(eps: float, delta: float = EXPERIMENT_DELTA, d: int = EXPERIMENT_D,
                     users: int = EXPERIMENT_B) -> tuple[int, int]:
    """(g, b) of Theorem C.1 (:func:`unique_user_parameters`) at the experiment's d, B, delta by default."""
    return unique_user_parameters(eps, delta, d, users)


def ldp_parameters(epsilon0: float, delta0: float, d: int) -> tuple[int, int]:
    """(g, b) of Corollary C.3: g = max{d, 4}, b = ceil(24e4 g^2 log^2(4 (d^2 + 1) / delta0) / eps0^2)."""
    owner = "ldp_parameters"
    epsilon0, delta0 = _budget(owner, epsilon0, delta0, ("epsilon0", "delta0"))
    d = integer(owner, "d", d, 1)
    g = max(d, 4)
    b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta0) ** 2 / epsilon0**2)
    return g, b


def returning_user_parameters(epsilon: float, delta: float, d: int, B: int, T: int) -> tuple[int, int]:
    """(g, b) of Theorem 4.2(ii) / E.5: g = max{ceil(2 sqrt B), d, 4},
    b = ceil(10^7 log(2/delta) g^2 T log^2(8 T (d^2 + 1) / (B delta)) / (eps^2 B^2))."""
    owner = "returning_user_parameters"
    epsilon, delta = _budget(owner, epsilon, delta)
    d, B, T = integer(owner, "d", d, 1), integer(owner, "B", B, 1), integer(owner, "T", T, 1)
    if B > T:
        raise ValueError(f"{owner}: B must be in [T] = [1, {T}], got {B}")
    g = accuracy_g(d, B)
    b = math.ceil(1e7 * math.log(2 / delta) * g**2 * T * math.log(8 * T * (d**2 + 1) / (B * delta)) ** 2
                  / (epsilon**2 * B**2))
    return g, b


@functools.cache
def upper_indices(d: int) -> tuple[np.ndarray, np.ndarray]:
    """np.triu_indices(d), made once per d (it costs tens of microseconds, and the algorithms ask every round);
    read-only, since every caller shares them."""
    rows, columns = np.triu_indices(d)
    rows.flags.writeable = columns.flags.writeable = False
    return rows, columns


def user_entries(owner: str, data: Any, B: int, d: int, norm_bound: float = 1.0) -> np.ndarray:
    """The B users' randomizer inputs as label entries, shape (..., B, d + d(d + 1)/2): phi y, then the
    upper triangle (row-major, diagonal included) of phi phi^T. ``data``: (..., B, d + 1) rows (phi, y);
    leading axes (independent batches, e.g. runs) are carried through. ``norm_bound`` is the largest
    ||phi|| accepted: 1, Assumption 3.1, on which the theorems' calibrations rest; a released code's
    variant run on its own features (norm sqrt 2) passes their bound, and entries are clipped to
    [-1, 1] either way."""
    x = np.asarray(data, dtype=float)
    if x.ndim < 2 or x.shape[-2:] != (B, d + 1) or not np.isfinite(x).all():
        raise ValueError(f"{owner}: data must be the {B} users' rows (phi, y), shape ({B}, {d + 1}), got {x.shape}")
    phi, y = x[..., :d], x[..., d]
    squared = np.einsum("...i,...i->...", phi, phi)  # one reduction, called every round by the private algorithms
    if (squared > (norm_bound + NORM_SLACK) ** 2).any():
        needs = "<= 1 (Assumption 3.1)" if norm_bound == 1 else f"<= {norm_bound:.6g} (the bound given)"
        raise ValueError(f"{owner}: every feature needs ||phi||_2 {needs}, got {math.sqrt(squared.max()):.6g}")
    if (np.abs(y) > 1 + NORM_SLACK).any():
        raise ValueError(f"{owner}: every reward needs |y| <= 1 (Assumption 3.1), got {np.abs(y).max():.6g}")
    iu = upper_indices(d)
    outer = phi[..., iu[0]] * phi[..., iu[1]]  # upper(phi phi^T), without the full outer product
    return np.clip(np.concatenate([phi * y[..., None], outer], axis=-1), -1.0, 1.0)


def _fractions(entries: np.ndarray) -> np.ndarray:
    """Entries in [-1, 1] shifted by Delta and divided by 2 Delta: w / (2 Delta) in [0, 1]."""
    return (entries + DELTA_SHIFT) / (2 * DELTA_SHIFT)


class ShuffledVectorProtocol(BitSummation):
    """P_Vec = (R_Vec, S_Vec, A_Vec) on one batch of ``B`` users in dimension ``d`` with accuracy
    ``g``, ``b`` noise bits per entry and p = 1/4 (module docstring). With B = 1 the view is one
    user's own labelled messages (the local-privacy view of Corollary C.3 and Remark 3.7).

    Data: a (B, d + 1) array, user i's row (phi_i, y_i). :meth:`sample` and :meth:`distribution`:
    the shuffled view as the count of ones of every label, d vector labels then the d(d + 1)/2
    upper-triangular matrix labels. :meth:`analyze` maps views to (o_vector (d,), o_matrix (d, d)).
    Build it from a theorem with :meth:`unique_users`, :meth:`ldp` or :meth:`returning_users`.
    """

    paper = "shuffle-lcb"
    source = "P_Vec, Appendix C, Algorithms 5-7"

    def __init__(self, g: int, b: int, d: int, B: int, setting: str = "given (g, b)", norm_bound: float = 1.0):
        self.d = integer(self.owner, "d", d, 1)
        self.B = integer(self.owner, "B", B, 1)
        super().__init__(g, b, self.B, self.d + self.d * (self.d + 1) // 2)
        self.upper = np.triu_indices(self.d)
        self.norm_bound = positive(self.owner, "norm_bound", norm_bound)  # user_entries' largest ||phi||
        bound = "" if self.norm_bound == 1 else f", ||phi|| <= {self.norm_bound:.6g}"
        self.name = f"P_Vec({setting}; d={self.d}, B={self.B}, g={self.g}, b={self.b:,}{bound})"

    @classmethod
    def unique_users(cls, epsilon: float, delta: float, d: int, B: int) -> ShuffledVectorProtocol:
        """Theorem 3.5 / C.1's protocol (claimed (eps, delta)-SDP)."""
        g, b = unique_user_parameters(epsilon, delta, d, B)
        return cls(g, b, d, B, f"Thm 3.5, eps={epsilon:g}, delta={delta:g}")

    @classmethod
    def ldp(cls, epsilon0: float, delta0: float, d: int, B: int = 1) -> ShuffledVectorProtocol:
        """Corollary C.3's protocol (claimed (eps0, delta0)-LDP for every B)."""
        g, b = ldp_parameters(epsilon0, delta0, d)
        return cls(g, b, d, B, f"Cor C.3, eps0={epsilon0:g}, delta0={delta0:g}")

    @classmethod
    def returning_users(cls, epsilon: float, delta: float, d: int, B: int, T: int) -> ShuffledVectorProtocol:
        """Theorem E.5's per-batch protocol (claimed (eps, delta)-SDP over all M = T/B batches)."""
        g, b = returning_user_parameters(epsilon, delta, d, B, T)
        return cls(g, b, d, B, f"Thm E.5, eps={epsilon:g}, delta={delta:g}, T={T}")

    def with_batch(self, B: int) -> ShuffledVectorProtocol:
        """The same randomizer (g, b) on a batch of B users (B = 1: one user's own messages)."""
        other = ShuffledVectorProtocol(self.g, self.b, self.d, B, norm_bound=self.norm_bound)
        other.name = self.name.replace(f"B={self.B},", f"B={other.B},")
        return other

    # -- inputs --------------------------------------------------------------------------------

    def entries(self, data: Any) -> np.ndarray:
        """The users' label entries in [-1, 1], shape (B, labels)."""
        return user_entries(self.owner, data, self.B, self.d, self.norm_bound)

    def fractions(self, data: Any) -> np.ndarray:
        """w / (2 Delta) in [0, 1], which precision-2g rounding takes to x_hat = R~'s rounded value."""
        return _fractions(self.entries(data))

    def round_users(self, rows: Any, rng: np.random.Generator) -> np.ndarray:
        """R~'s rounded values x_hat of single users' entries (the first half of R_Vec; gamma2 is drawn
        for the whole batch by :meth:`batch_noise`): ``rows`` (..., d + 1), one user's (phi, y) per
        leading index, each rounded independently at this protocol's precision 2g; shape (..., labels).
        A batch's count of ones is the sum of its users' x_hat plus :meth:`batch_noise`: the law of
        :meth:`sample_per_user` (Bin(b, p) summed over the B users is Bin(B b, p))."""
        return self.rounding.round(self.user_fractions(rows), rng)

    def user_fractions(self, rows: Any) -> np.ndarray:
        """What :meth:`round_users` rounds: single users' entries as w / (2 Delta) in [0, 1], shape (..., labels),
        checked once (a tree rounds the same rows at every level's precision)."""
        x = np.asarray(rows, dtype=float)
        return _fractions(user_entries(self.owner, x[..., None, :], 1, self.d, self.norm_bound)[..., 0, :])

    def batch_noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """sum_i gamma2_i of a whole batch, Bin(B b, p) per label: shape (*shape, labels)."""
        return rng.binomial(self.B * self.b, self.p, (*shape, self.labels))

    # -- R_Vec, S_Vec and the exact law of the view --------------------------------------------

    def randomize(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """R_Vec for every user, ``size`` times: each user's count of ones per label (x_hat + gamma2),
        shape (size, B, labels) -- a multiset of bits is its size and its count of ones."""
        size = sample_size(self.owner, size)
        return self.randomize_fractions(np.broadcast_to(self.fractions(data), (size, self.B, self.labels)), rng)

    def run_bits(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        """One run with every bit materialised: each user's labelled multisets (2g + b bits per label,
        x_hat + gamma2 ones, in random order -- footnote 9), S_Vec's uniform permutation of all the
        batch's bits, and the count of ones of each label. For small b only (B labels (2g + b) bits)."""
        ones = self.randomize(data, 1, rng)[0]  # (B, labels)
        n_bits = self.bits_per_entry
        if self.B * self.labels * n_bits > 50_000_000:
            raise ValueError(f"{self.owner}: run_bits materialises {self.B * self.labels * n_bits:,} bits; use sample")
        bits = (np.arange(n_bits)[None, None, :] < ones[..., None]).astype(np.int8)
        bits = rng.permuted(bits, axis=2)  # each user's own random order
        labels = np.broadcast_to(np.arange(self.labels)[None, :, None], bits.shape)
        order = rng.permutation(bits.size)  # S_Vec: one permutation of every bit of the batch
        shuffled_bits, shuffled_labels = bits.ravel()[order], labels.ravel()[order]
        return np.bincount(shuffled_labels, weights=shuffled_bits, minlength=self.labels).astype(np.int64)

    def release_batches(self, rows: Any, rng: np.random.Generator) -> np.ndarray:
        """The shuffled views of R batches at once (R runs' batches, each its own data): rows
        (R, B, d + 1) -> counts (R, labels), each label's count drawn from its exact law -- every
        user's rounding x_hat (:class:`~dpaudit.mechanisms.noise.RandomizedRounding`), summed over the
        batch, plus one Bin(B b, p) for the batch's noise bits (the sum of its users' Bin(b, p)). The
        same law as :meth:`sample` and :meth:`distribution` on each batch; no bit is materialised, so
        b of the order of 10^9 costs nothing more."""
        x = np.asarray(rows, dtype=float)
        if x.ndim != 3 or x.shape[1:] != (self.B, self.d + 1):
            raise ValueError(f"{self.owner}: rows must be R batches of the {self.B} users' rows (phi, y), shape "
                             f"(R, {self.B}, {self.d + 1}), got {x.shape}")
        return self.round_users(x, rng).sum(axis=1) + self.batch_noise((x.shape[0],), rng)

    # -- A_Vec ---------------------------------------------------------------------------------

    def debias(self, counts: Any) -> np.ndarray:
        """A~ and the re-centring, per label: o = (Delta / g)(C - p b B) - B Delta."""
        return super().debias(counts, DELTA_SHIFT)

    def analyze(self, counts: Any) -> tuple[np.ndarray, np.ndarray]:
        """A1 and A2: the estimates of sum_i phi_i y_i (shape (..., d)) and of sum_i phi_i phi_i^T
        (shape (..., d, d), the (j, i) entry a copy of the (i, j) one)."""
        o = self.debias(counts)
        vector = o[..., : self.d]
        matrix = np.zeros((*o.shape[:-1], self.d, self.d))
        matrix[..., self.upper[0], self.upper[1]] = o[..., self.d:]
        matrix[..., self.upper[1], self.upper[0]] = o[..., self.d:]
        return vector, matrix

    def error_law(self, data: Any, label: int) -> FiniteIntegerLaw:
        """The exact law of one label's error o - sum_i x_i, in units of Delta / g: the count minus
        its mean g sum_i w_i / Delta + p b B. Integer-valued only when g sum_i w_i is an integer, which
        is checked (pick inputs on the grid 1/g, or with fraction 1/2)."""
        label = integer(self.owner, "label", label, 0)
        if label >= self.labels:
            raise ValueError(f"{self.owner}: label must be < {self.labels}, got {label}")
        law = self.count_laws(data)[label]
        mean = 2 * self.g * float(self.fractions(data)[:, label].sum()) + self.p * self.b * self.B
        if not float(mean).is_integer():
            raise ValueError(f"{self.owner}: the error of label {label} is not on the integers (mean {mean!r}); "
                             "use inputs whose scaled sum g sum w is an integer")
        return FiniteIntegerLaw(law.offset - int(mean), law.probs, law.tail_mass, law.log_error,
                                name=f"P_Vec label {label} error x g/Delta ({self.name})")


class ReturningUserTranscript(ExactRelease):
    """Theorem E.5's view of M batches in which the same B users return (Assumption E.1: each user
    at most once per batch): the M shuffled views of P_Vec, independent given the data.

    Data: a (B, M, d + 1) array, user-major (user i's rows (phi, y) in batches 1..M), so
    ``ReplaceUser(batch_size=B)`` replaces one returning user in every batch she joins.
    :meth:`distribution` is the product over batches and labels (exact PLD composition)."""

    paper = "shuffle-lcb"
    source = "Theorem 4.2(ii) / E.5 (returning users, Assumption E.1)"

    def __init__(self, protocol: ShuffledVectorProtocol, M: int):
        self.protocol = protocol
        self.M = integer(self.owner, "M", M, 1)
        self.name = f"{protocol!r} over M={self.M} batches"

    def _input(self, data: Any) -> np.ndarray:
        """The batches, batch-major: shape (M, B, d + 1)."""
        x = np.asarray(data, dtype=float)
        p = self.protocol
        if x.shape != (p.B, self.M, p.d + 1):
            raise ValueError(f"{self.owner}: data must be ({p.B}, {self.M}, {p.d + 1}): users x batches x (phi, y), "
                             f"got {x.shape}")
        return np.swapaxes(x, 0, 1)

    def _distribution(self, batches: np.ndarray) -> ProductDistribution:
        coords: list[Any] = []
        for batch in batches:
            coords += list(self.protocol.distribution(batch).coordinates)
        return ProductDistribution(tuple(coords))

    def _sample(self, batches: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate([self.protocol.sample(batch, size, rng) for batch in batches], axis=1)


class BallRows(Adapter):
    """The mechanism on rows (x, y) in [-1, 1]^(d + 1) mapped to (x ||x||_inf / ||x||_2, y): a search
    over the cube covers exactly the unit ball of features (row-wise bijection, so one replaced row
    is one replaced user). The release is ``mechanism``'s (:attr:`inner`) on the mapped rows
    (:meth:`rows`)."""

    paper = "shuffle-lcb"
    source = "Assumption 3.1's inputs ||phi||_2 <= 1, |y| <= 1, reached from the cube"

    def __init__(self, mechanism, d: int):
        self.mechanism = self.inner = mechanism
        self.d = d
        self.name = f"{mechanism!r} on cube rows mapped onto the unit ball"

    def rows(self, data):
        x = np.array(data, dtype=float)
        phi = x[..., : self.d]
        two = np.linalg.norm(phi, axis=-1, keepdims=True)
        scale = np.divide(np.abs(phi).max(axis=-1, keepdims=True), two, out=np.zeros_like(two), where=two > 0)
        x[..., : self.d] = phi * scale
        return x

    def _input(self, data: Any) -> np.ndarray:
        return self.rows(data)


__all__ = ["EXPERIMENT_B", "EXPERIMENT_D", "EXPERIMENT_DELTA", "BallRows", "ReturningUserTranscript",
           "ShuffledVectorProtocol", "accuracy_g", "ldp_parameters", "p_vec_parameters", "returning_user_parameters",
           "unique_user_parameters", "user_entries"]
