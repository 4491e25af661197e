"""Registry entries of the linear contextual bandit algorithms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .cs_linucb import CentralTreeStatistics, ConcurrentShuffleStatistics, TreeLinUCB
from .linucb import LinUCB


def linucb(*, B: int = 1, lam: float = 1.0, alpha: float | None = None) -> LinUCB:
    """shuffle-lcb Sec. 5 baseline: LinUCB (Abbasi-Yadkori et al. 2011), Algorithm 1 with no noise, batch size B.

    lambda = 1 and alpha = 1/T by default (the paper does not state its simulation constants)."""
    return LinUCB(B, lam, alpha)


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


ALGORITHMS: dict[str, Callable[..., Any]] = {"linucb": linucb, "cs-linucb": cs_linucb,
                                             "cs-linucb-central": cs_linucb_central}
