"""Registry entries of private-online's algorithms (bandits and full information). Each constructor
takes the paper's keyword arguments (``eps``) and leaves K and the horizon to ``start``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpaudit.core.names import Registry

from .ftl import FollowTheLeader
from .ftnl import FollowTheNoisyLeader
from .hybrid_ucb import HybridUCB
from .lazy_ucb import AnytimeLazyUCB
from .ucb import UCB1


def ucb() -> UCB1:
    """private-online Section 6 reference: UCB1 (Auer et al. 2002), the non-private index mu^ + sqrt(2 ln t / n).

    The paper compares Hybrid-UCB with UCB1 at large eps but prints no UCB1: this is Auer et al.'s,
    every arm pulled once first, ties to the lowest arm."""
    return UCB1()


def anytime_lazy_ucb(eps: float, literal_init: bool = False, noise_scale: str = "1/eps") -> AnytimeLazyUCB:
    """private-online Algorithm 1: Anytime-Lazy-UCB, UCB on the last full doubling array's Laplace-noised mean.

    Silent points and choices: the initialisation pull is released by eq. 3 with r = 0 (a Lap(1/eps)
    draw; ``literal_init=True`` keeps the printed box, the raw reward); ties to the lowest arm;
    natural log in eq. 4. ``noise_scale="1/(2eps)"`` is a validation bug: the arrays' noise at half the
    printed scale."""
    return AnytimeLazyUCB(eps, literal_init=literal_init, noise_scale=noise_scale)


def hybrid_ucb(eps: float, noise_scale: str = "2/eps") -> HybridUCB:
    """private-online Algorithm 4: Hybrid-UCB, UCB on the hybrid (arrays + tree) mechanism's mean after every pull.

    Silent points and choices: every array and p-sum noise drawn once and reused; the estimate at the
    pull that fills a block reads its full tree; base-2 log in eq. 35; ties to the lowest arm.
    ``noise_scale="1/eps"`` and ``"1/(2eps)"`` are validation bugs: every noise at half (Lap(1/eps) arrays,
    Lap(r/eps) p-sums) or a quarter of the printed scale."""
    return HybridUCB(eps, noise_scale=noise_scale)


def ftnl(eps: float, noise_scale: str = "1/eps") -> FollowTheNoisyLeader:
    """private-online Algorithm 2: FTNL, follow the noisy leader of the last epoch by report-noisy-max.

    Silent points and choices: epoch 0 plays action 1 (action 0 here); the last epoch is cut at T;
    Lap(1/eps) as printed (``noise_scale="2/eps"``: report-noisy-max's usual scale for sums that can
    move in opposite directions); K from ``start``."""
    return FollowTheNoisyLeader(eps, variant="ftnl", noise_scale=noise_scale)


def naive_ftnl(eps: float) -> FollowTheNoisyLeader:
    """private-online Section 5 (A5): naive FTNL, every action's epoch sum with Lap(K/eps), follow the noisy leader.

    Silent points and choices: the paper says only "(eps/K)-DP per action"; Lap(K/eps) on each
    epoch sum gives it; epochs as FTNL's; K from ``start``."""
    return FollowTheNoisyLeader(eps, variant="naive")


def ftl() -> FollowTheLeader:
    """private-online Section 5 (A5): Follow-the-Leader, the argmax of the cumulative rewards (full information).

    Silent points and choices: ties (and round 1) go to the lowest action."""
    return FollowTheLeader()


ALGORITHMS: dict[str, Callable[..., Any]] = Registry("algorithm", {
    "ucb": ucb,
    "anytime-lazy-ucb": anytime_lazy_ucb,
    "hybrid-ucb": hybrid_ucb,
    "ftnl": ftnl,
    "naive-ftnl": naive_ftnl,
    "ftl": ftl,
})
