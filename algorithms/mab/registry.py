"""Registry entries of the multi-armed bandit algorithms: dist-mab's Algorithm 1 under each of its
batch protocols, and the DP-SE baseline. Keyword names are the paper's (``eps``, ``s``, ``p``, ``eta``);
``T=None`` is the simulated horizon; ``p=None`` is the theorems' p = 1/T (the experiments use 0.1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpaudit.core.names import Registry

from .batch_se import BatchSuccessiveElimination
from .dp_se import DPSuccessiveElimination


def se(*, p: float | None = None, eta: float = 2, T: int | None = None) -> BatchSuccessiveElimination:
    """dist-mab Algorithm 1: SE, batch successive elimination with exact batch sums (no privacy; sigma = h = 0).

    Batches of eta^b pulls per active arm (eta = 2 as printed; the released code uses 4), confidence
    radius eq. (2) with sigma = h = 0; choices as in :mod:`~dpaudit.algorithms.mab.batch_se`."""
    return BatchSuccessiveElimination("exact", p=p, eta=eta, T=T)


def dist_dp_se(*, eps: float, p: float | None = None, eta: float = 2, T: int | None = None
               ) -> BatchSuccessiveElimination:
    """dist-mab Algorithm 1: Dist-DP-SE, Polya shares and SecAgg, pure eps-DP in the distributed model (Theorem 1).

    Shares Polya(1/n, e^{-eps/g}) differences (total Lap_Z(g/eps)), g = ceil(eps sqrt n),
    tau = ceil((g/eps) log(2/p)); radius eq. (2) with sigma = sqrt 2/eps, h = 1/eps (Sec. 6). Choices
    (order of arms, stop at T, p, integer batch sizes) as in :mod:`~dpaudit.algorithms.mab.batch_se`."""
    return BatchSuccessiveElimination("polya", eps, p=p, eta=eta, T=T)


def dist_rdp_se(*, eps: float, s: float = 10.0, p: float | None = None, eta: float = 2, T: int | None = None
                ) -> BatchSuccessiveElimination:
    """dist-mab Algorithm 1: Dist-RDP-SE, Skellam shares and SecAgg, Renyi DP in the distributed model (Theorem 2).

    Shares Sk(0, g^2/(n eps^2)), g = ceil(s eps sqrt n), s = 10 by default (the experiments' value; 100
    also run); tau reconstructed with the square root; radius eq. (2) with the released code's
    sigma = 2/eps + sqrt 2/(s eps), h = 1/(s eps) (the paper prints O(1/eps) and 1/(s eps))."""
    return BatchSuccessiveElimination("skellam", eps, s=s, p=p, eta=eta, T=T)


def dist_cdp_se(*, eps: float, s: float = 10.0, p: float | None = None, eta: float = 2, T: int | None = None
                ) -> BatchSuccessiveElimination:
    """dist-mab Algorithm 1: Dist-CDP-SE, discrete Gaussian shares and SecAgg, concentrated DP (Theorem 4).

    eps in (0, 1) (Theorem 4's range; the release refuses others). Shares N_Z(0, g^2/(n eps^2)),
    g = ceil(s eps sqrt n); radius eq. (2) with h = 0 and sigma = sqrt 2/eps + sqrt 2/(s eps) (chosen: the
    paper prints O(1/eps); the total noise is (g/eps)^2-sub-Gaussian and the rounding adds Term (ii))."""
    return BatchSuccessiveElimination("discrete-gaussian", eps, s=s, p=p, eta=eta, T=T)


def cdp_se(*, eps: float, p: float | None = None, eta: float = 2, T: int | None = None) -> BatchSuccessiveElimination:
    """dist-mab Algorithms 1-3: CDP-SE, the central model (trusted analyzer adds Lap_Z(g/eps)), pure eps-DP (Theorem 5).

    eps in (0, 1) (Theorem 5's range). Theorem 1's g, tau and noise law, so Theorem 1's radius
    constants (chosen: the paper prints O(1/eps))."""
    return BatchSuccessiveElimination("central", eps, p=p, eta=eta, T=T)


def ldp_se(*, eps: float, p: float | None = None, eta: float = 2, T: int | None = None) -> BatchSuccessiveElimination:
    """dist-mab Algorithms 1, 4-5: LDP-SE, the local model (every user adds Lap_Z(g/eps)), eps-LDP (Theorem 6).

    eps in (0, 1). tau and the confidence radius use Lemma 5, whose constant c the paper never prints:
    c = LEMMA5_C = 1.6, the mechanism layer's choice; radius = Hoeffding + [(sqrt 2/eps) sqrt L +
    max{(c/eps) sqrt(2 l L), (2c/eps) L}] / l, L = log(2 |Phi| b^2 / p) (chosen: "separate analysis")."""
    return BatchSuccessiveElimination("local", eps, p=p, eta=eta, T=T)


def shuffle_dp_se(*, eps: float, p: float | None = None, eta: float = 2, T: int | None = None,
                  noise_parameter: str = "printed") -> BatchSuccessiveElimination:
    """dist-mab Algorithm 1: Shuffle-DP-SE, Theorem 3's protocol as far as printed (the mod sum POST recovers).

    Polya(1/n, e^{-eps/g}) shares as printed, g = ceil(eps' sqrt n), tau = ceil((g/eps') log(2/p')),
    eps' = eps/2, p' = p/2 (1/(2T) in the theorem), through ``ShuffleModSum``. Missing: the Cheu-Yan
    randomizer R~ mapping each message to a random bit vector of length d, and d itself, are not
    specified by the paper, so the shuffled messages and the relaxed SecAgg's failure probability q are
    not simulated: the analyzer reads the exact mod sum, which POST recovers with probability >= 1 - q.
    Radius eq. (2) with Theorem 1's constants at eps' (sigma = sqrt 2/eps', h = 1/eps').
    ``noise_parameter="primed"`` reads the shares' decay as e^{-eps'/g}, a prime the dump may have lost."""
    return BatchSuccessiveElimination("shuffle", eps, p=p, eta=eta, T=T, noise_parameter=noise_parameter)


def dp_se(*, eps: float, p: float | None = None, beta: float | None = None, T: int | None = None,
          shared_noise: bool = False) -> DPSuccessiveElimination:
    """dist-mab Sec. 7 / private-online Sec. 6 baseline DP-SE (Sajed & Sheffet 2019): successive elimination, eps-DP.

    Epoch lengths and elimination as reconstructed (dist-mab 3.5, private-online A3). The failure
    probability is ``p`` in dist-mab's notation and ``beta`` in private-online's (give one of them);
    1/T by default (private-online's experiments; dist-mab's use 0.1). Lap(1/eps) on each arm's sum;
    ``shared_noise=True`` is dist-mab's released code's variant, one Laplace draw per epoch added to
    every arm's sum, which cancels in the elimination rule (its decisions are then those of the
    non-private rule)."""
    if p is not None and beta is not None:
        raise ValueError("dp-se: give the failure probability once, as p (dist-mab) or beta (private-online)")
    return DPSuccessiveElimination(eps, beta if p is None else p, noise="shared" if shared_noise else "per-arm", T=T)


ALGORITHMS: dict[str, Callable[..., Any]] = Registry("algorithm", {
    "se": se,
    "dist-dp-se": dist_dp_se,
    "dist-rdp-se": dist_rdp_se,
    "dist-cdp-se": dist_cdp_se,
    "cdp-se": cdp_se,
    "ldp-se": ldp_se,
    "shuffle-dp-se": shuffle_dp_se,
    "dp-se": dp_se,
})
