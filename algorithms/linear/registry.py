"""Registry entries of the linear contextual bandit algorithms: shuffle-lcb's LinUCB and its private
variants (Algorithm 1 on each trust model's release of the batch statistics).

Keywords are the paper's: ``eps``, ``delta`` (the LDP variants' (eps0, delta0)), ``B``, ``lam``,
``alpha``; ``T=None`` is the simulated horizon. delta = 0.1 and B = 20 are the experiments' (Sec. 5).
Regularizer and radius: :mod:`~dpaudit.algorithms.linear.private_linucb` (Lemma A.4 with the
constants set to 1, lambda = max{1, sigma_tot (sqrt d + sqrt log(T / (B alpha)))}). Where the paper
runs a value its theorem does not cover (eps = 1 and 10 at B = 20 for Theorem 3.2, eps0 > 1 for the
LDP randomizer, eps > 1 for Proposition F.3), the entry warns and notes it, and runs the printed
formula.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpaudit.core.names import Registry
from dpaudit.core.validation import constant_set, integer, positive
from dpaudit.mechanisms.shuffle.shuffle_amp import unique_user_epsilon_max

from .cs_linucb import CentralTreeStatistics, ConcurrentShuffleStatistics, TreeLinUCB
from .linucb import LinUCB
from .private_linucb import PrivateLinUCB
from .released_code import ReleasedCodeLinUCB
from .statistics import LocalGaussianSums, ShuffledGaussianSums, ShuffledVectorSums, TreeSums

DELTA = 0.1  # the experiments' delta (Sec. 5)
BATCH = 20  # the experiments' batch size for the SDP variants (Sec. 5)


def _released(owner: str, constants: str, variant: str, given: dict, **kwargs: Any) -> ReleasedCodeLinUCB | None:
    """The variant with the released code's constants when ``constants`` asks for them (else None); the
    regularizer and radius are then the code's, so ``lam`` and ``alpha`` may not be given."""
    if constant_set(owner, constants) == "theorem":
        return None
    fixed = sorted(k for k, v in given.items() if v is not None)
    if fixed:
        raise ValueError(f"{owner}: the released code fixes its regularizer and radius; {', '.join(fixed)} cannot be "
                         "given with constants='released-code'")
    return ReleasedCodeLinUCB(variant, **kwargs)


def linucb(*, B: int = 1, lam: float | None = None, alpha: float | None = None, constants: str = "theorem") -> LinUCB:
    """shuffle-lcb Sec. 5 baseline: LinUCB (Abbasi-Yadkori et al. 2011), Algorithm 1 with no noise, batch size B.

    lambda = 1 and alpha = 1/T by default (the paper does not state its simulation constants);
    ``constants="released-code"``: the released code's (lambda = 1e-4, a fixed width; released_code.py)."""
    released = _released("linucb", constants, "linucb", {"lam": lam, "alpha": alpha}, B=B)
    return released if released is not None else LinUCB(B, 1.0 if lam is None else lam, alpha)


def _ldp_range(eps: float) -> tuple[str, ...]:
    if eps > 1:
        return (f"eps0 = {eps:g} is outside Corollary B.3 / Proposition F.1's range eps0 in (0, 1]: the sigma "
                "formula 4 sqrt(2 log(2.5/delta0))/eps0 is used, the LDP guarantee is not covered",)
    return ()


def _central_range(eps: float, delta: float) -> tuple[str, ...]:
    if eps > 1:
        return (f"eps = {eps:g} is outside Proposition F.3's range eps in [0, 1] (the tree's analytic-Gaussian "
                "calibration holds at any eps; the regret bound is not covered)",)
    return ()


def linucb_jdp(*, eps: float, delta: float = DELTA, lam: float | None = None, alpha: float | None = None,
               T: int | None = None, constants: str = "theorem") -> PrivateLinUCB:
    """shuffle-lcb Sec. 5 baseline: LinUCB-JDP (Shariff & Sheffet 2018), LinUCB on the central tree (event-level JDP).

    One leaf z z^T (z = [phi; y]) per round in a tree of T leaves, node noise from
    CentralTreeMechanism.event_level (analytic Gaussian at l2 sensitivity 2 sqrt 2 sqrt L; the paper
    prints no calibration), model updated every round; sigma_tot = node sigma sqrt L.
    ``constants="released-code"``: the released code's (released_code.py)."""
    eps, delta = positive("linucb-jdp", "eps", eps), positive("linucb-jdp", "delta", delta)
    released = _released("linucb-jdp", constants, "jdp", {"lam": lam, "alpha": alpha}, eps=eps, delta=delta, T=T)
    if released is not None:
        return released
    return PrivateLinUCB(TreeSums(eps, delta), 1, f"LinUCB-JDP(eps={eps:g}, delta={delta:g})", lam, alpha, T,
                         _central_range(eps, delta))


def linucb_ldp(*, eps: float, delta: float = DELTA, lam: float | None = None, alpha: float | None = None,
               T: int | None = None, constants: str = "theorem") -> PrivateLinUCB:
    """shuffle-lcb Sec. 5 baseline: LinUCB-LDP (Zheng et al. 2020), every user's R_Amp at Cor B.3's sigma, B = 1.

    eps, delta are the randomizer's (eps0, delta0); the identity shuffler; the server sums the
    messages and updates every round; sigma_tot = sqrt(T) sigma. ``constants="released-code"``: the
    released code's (released_code.py)."""
    eps, delta = positive("linucb-ldp", "eps", eps), positive("linucb-ldp", "delta", delta)
    released = _released("linucb-ldp", constants, "ldp", {"lam": lam, "alpha": alpha}, eps=eps, delta=delta, T=T)
    if released is not None:
        return released
    return PrivateLinUCB(LocalGaussianSums(eps, delta), 1, f"LinUCB-LDP(eps={eps:g}, delta={delta:g})", lam, alpha,
                         T, _ldp_range(eps))


def linucb_sdp_amp(*, eps: float, delta: float = DELTA, B: int = BATCH, lam: float | None = None,
                   alpha: float | None = None, T: int | None = None, constants: str = "theorem") -> PrivateLinUCB:
    """shuffle-lcb Algorithm 1: LinUCB-SDP-Amp, P_Amp's shuffled Gaussian sums (Thm 3.2), unique users.

    sigma = 4 sqrt(2 log(2.5B/delta) log(2/delta))/(eps sqrt B) (unique_user_sigma), B = 20 by default
    (the experiments'); sigma_tot = sqrt(T) sigma. Theorem 3.2 needs eps <= sqrt(log(2/delta)/B)
    (0.387 at the experiments' B = 20, delta = 0.1): beyond it the entry warns, notes it and runs the
    formula, as the paper's experiments do at eps = 1 and 10. ``constants="released-code"``: the released
    code's (released_code.py)."""
    owner = "linucb-sdp-amp"
    eps, delta, B = positive(owner, "eps", eps), positive(owner, "delta", delta), integer(owner, "B", B, 1)
    released = _released(owner, constants, "sdp-amp", {"lam": lam, "alpha": alpha}, eps=eps, delta=delta, B=B, T=T)
    if released is not None:
        return released
    top = unique_user_epsilon_max(delta, B)
    notes = () if eps <= top else (
        f"eps = {eps:g} is outside Theorem 3.2's range eps <= sqrt(log(2/delta)/B) = {top:.4g} (delta = {delta:g}, "
        f"B = {B}): its sigma formula is used (as in the paper's experiments), the O(eps, delta)-SDP guarantee is "
        "not covered",)
    return PrivateLinUCB(ShuffledGaussianSums(eps, delta, B), B,
                         f"LinUCB-SDP-Amp(eps={eps:g}, delta={delta:g}, B={B})", lam, alpha, T, notes)


def linucb_sdp_vec(*, eps: float, delta: float = DELTA, B: int = BATCH, lam: float | None = None,
                   alpha: float | None = None, T: int | None = None, constants: str = "theorem",
                   scale: float = 1.0) -> PrivateLinUCB:
    """shuffle-lcb Algorithm 1: LinUCB-SDP-Vec, P_Vec's shuffled bit sums (Thm 3.5), unique users.

    g = max{ceil(2 sqrt B), d, 4}, b = ceil(24e4 g^2 log^2(4(d^2+1)/delta)/(eps^2 B)), p = 1/4
    (unique_user_parameters; eps in (0, 15], delta in (0, 1/2), else ValueError); each label's count
    drawn from its exact law; sigma_tot = sqrt(T // B) (1/g) sqrt(B/4 + 3Bb/16). ``constants="released-code"``:
    the released code's (released_code.py; ``scale`` its b's factor, 1 as shipped)."""
    owner = "linucb-sdp-vec"
    eps, delta, B = positive(owner, "eps", eps), positive(owner, "delta", delta), integer(owner, "B", B, 1)
    released = _released(owner, constants, "sdp-vec", {"lam": lam, "alpha": alpha}, eps=eps, delta=delta, B=B, T=T,
                         scale=scale)
    if released is not None:
        return released
    if scale != 1.0:
        raise ValueError(f"{owner}: scale is the released code's factor on b; give it with constants='released-code'")
    return PrivateLinUCB(ShuffledVectorSums(eps, delta, B), B, f"LinUCB-SDP-Vec(eps={eps:g}, delta={delta:g}, B={B})",
                         lam, alpha, T)


def batched_local_linucb(*, eps: float, delta: float = DELTA, B: int = BATCH, lam: float | None = None,
                         alpha: float | None = None, T: int | None = None) -> PrivateLinUCB:
    """shuffle-lcb Algorithm 1: Batched-Local-LinUCB (Prop F.1), R_Amp at Cor B.3's sigma, identity shuffler.

    eps, delta are (eps0, delta0); B = 20 by default (the paper: any B in [T]); sigma_tot = sqrt(T) sigma."""
    owner = "batched-local-linucb"
    eps, delta, B = positive(owner, "eps", eps), positive(owner, "delta", delta), integer(owner, "B", B, 1)
    return PrivateLinUCB(LocalGaussianSums(eps, delta), B,
                         f"Batched-Local-LinUCB(eps={eps:g}, delta={delta:g}, B={B})", lam, alpha, T, _ldp_range(eps))


def batched_central_linucb(*, eps: float, delta: float = DELTA, B: int = BATCH, lam: float | None = None,
                           alpha: float | None = None, T: int | None = None) -> PrivateLinUCB:
    """shuffle-lcb Algorithm 1: Batched-Central-LinUCB (Prop F.3), the central tree with one leaf per batch.

    N = ceil(T/B) leaves (a last partial batch is never released), node noise from
    CentralTreeMechanism.event_level(batch=B); B = 20 by default; sigma_tot = node sigma sqrt L."""
    owner = "batched-central-linucb"
    eps, delta, B = positive(owner, "eps", eps), positive(owner, "delta", delta), integer(owner, "B", B, 1)
    return PrivateLinUCB(TreeSums(eps, delta, B), B, f"Batched-Central-LinUCB(eps={eps:g}, delta={delta:g}, B={B})",
                         lam, alpha, T, _central_range(eps, delta))


def linucb_sdp_amp_returning(*, eps: float, delta: float = DELTA, B: int = BATCH, lam: float | None = None,
                             alpha: float | None = None, T: int | None = None) -> PrivateLinUCB:
    """shuffle-lcb Algorithm 1: LinUCB-SDP-Amp-returning, P_Amp at Thm 4.2(i)'s sigma, users return once per batch.

    sigma = 16 log(2/delta) sqrt(T log(5T/delta))/(eps B) (returning_user_sigma); the range
    eps <= (2/B) log(2/delta) sqrt(2T) depends on T and is checked at the start (warned and noted,
    the formula still run); B = 20 by default (the theorems tune B ~ T^{2/3}); sigma_tot = sqrt(T) sigma."""
    owner = "linucb-sdp-amp-returning"
    eps, delta, B = positive(owner, "eps", eps), positive(owner, "delta", delta), integer(owner, "B", B, 1)
    return PrivateLinUCB(ShuffledGaussianSums(eps, delta, B, returning=True), B,
                         f"LinUCB-SDP-Amp-returning(eps={eps:g}, delta={delta:g}, B={B})", lam, alpha, T)


def linucb_sdp_vec_returning(*, eps: float, delta: float = DELTA, B: int = BATCH, lam: float | None = None,
                             alpha: float | None = None, T: int | None = None) -> PrivateLinUCB:
    """shuffle-lcb Algorithm 1: LinUCB-SDP-Vec-returning, P_Vec at Thm 4.2(ii)'s b, users return once per batch.

    g = max{ceil(2 sqrt B), d, 4}, b = ceil(1e7 log(2/delta) g^2 T log^2(8T(d^2+1)/(B delta))/(eps^2 B^2)),
    p = 1/4 (returning_user_parameters); B = 20 by default; sigma_tot as LinUCB-SDP-Vec's."""
    owner = "linucb-sdp-vec-returning"
    eps, delta, B = positive(owner, "eps", eps), positive(owner, "delta", delta), integer(owner, "B", B, 1)
    return PrivateLinUCB(ShuffledVectorSums(eps, delta, B, returning=True), B,
                         f"LinUCB-SDP-Vec-returning(eps={eps:g}, delta={delta:g}, B={B})", lam, alpha, T)


def linucb_jdp_user_level(*, eps: float, delta: float = DELTA, M0: int, lam: float | None = None,
                          alpha: float | None = None, T: int | None = None) -> PrivateLinUCB:
    """shuffle-lcb Prop 4.3 baseline: LinUCB-JDP-user-level, the tree's noise variance times M0^2 (M0 rounds per user).

    CentralTreeMechanism.user_level (event-level sigma times M0), one leaf per round; M0 is the most
    rounds any user takes part in (ReturningUsers with U users: ceil(T/U)); Remark 4.4 takes
    M0 = T^{1/3}."""
    owner = "linucb-jdp-user-level"
    eps, delta = positive(owner, "eps", eps), positive(owner, "delta", delta)
    M0 = integer(owner, "M0", M0, 1)
    return PrivateLinUCB(TreeSums(eps, delta, rounds_per_user=M0), 1,
                         f"LinUCB-JDP-user-level(eps={eps:g}, delta={delta:g}, M0={M0})", lam, alpha, T)


def cs_linucb(*, eps: float = 0.5, delta: float = 0.1, k: Any = "log n", lam: float | None = None,
              alpha: float | None = None) -> TreeLinUCB:
    """concurrent-shuffle Algorithm 4: Concurrent Shuffle Private LinUCB, LinUCB on the k-shuffler vector counter.

    k shufflers (an integer, or "log n" for Corollary 5.2: ceil(log2 n)), n = the simulated horizon,
    Algorithm 3's tree with d = ceil(n^(2/(2k+1))), d_low = ceil(n/d^k), padded to d_low d^k users;
    Theorem C.3's alpha = 1/n, lam = 2 sigma~ sqrt d (sigma~ computed from the mechanism) and beta_t
    with sigma = 1/2 (rewards in [0, 1]). The paper fixes no eps or delta: 0.5 and 0.1 (inside
    Theorem 5.1's eps < 1, delta < 1/2) are defaults chosen here. Details: algorithms/linear/cs_linucb.py."""
    return TreeLinUCB(ConcurrentShuffleStatistics(eps, delta, k), eps, delta, lam, alpha, label="cs-linucb")


def cs_linucb_central(*, eps: float = 0.5, delta: float = 0.1, lam: float | None = None,
                      alpha: float | None = None) -> TreeLinUCB:
    """concurrent-shuffle Sec. 5 baseline: central-tree LinUCB, Algorithm 4's policy on the central tree mechanism.

    The tree over z z^T (Shariff & Sheffet 2018, the regret table's central row) with Gaussian nodes
    calibrated for the whole (eps, delta) (shuffle-lcb's CentralTreeMechanism); the same lam, beta_t
    and alpha = 1/n as cs-linucb, sigma~ from the node noise."""
    return TreeLinUCB(CentralTreeStatistics(eps, delta), eps, delta, lam, alpha, label="cs-linucb-central")


ALGORITHMS: dict[str, Callable[..., Any]] = Registry("algorithm", {
    "linucb": linucb,
    "linucb-jdp": linucb_jdp,
    "linucb-ldp": linucb_ldp,
    "linucb-sdp-amp": linucb_sdp_amp,
    "linucb-sdp-vec": linucb_sdp_vec,
    "batched-local-linucb": batched_local_linucb,
    "batched-central-linucb": batched_central_linucb,
    "linucb-sdp-amp-returning": linucb_sdp_amp_returning,
    "linucb-sdp-vec-returning": linucb_sdp_vec_returning,
    "linucb-jdp-user-level": linucb_jdp_user_level,
    "cs-linucb": cs_linucb,
    "cs-linucb-central": cs_linucb_central,
})
