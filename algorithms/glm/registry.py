"""Registry entries of the GLM bandit algorithms (shuffle-glm: Algorithms 1 and 2, and the non-private
baselines of its experiments)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpaudit.core.names import Registry
from dpaudit.core.validation import constant_set

from .batched_ablation import BatchedGLMAblation
from .distributional_design import spike_sets
from .ecolog import ECOLog
from .glm_ucb import GLMUCB
from .gloc import GLOC
from .jdp_glm import JDPGLM
from .private_glm import PrivateGLM
from .rs_glinucb import RSGLinUCB
from .shuffle_glm import ShuffleGLM


def glm_ucb(*, link: str = "logistic", S: float = 1.0, kappa: float | None = None, delta: float = 0.02,
            lam: float | None = None, reg: float | None = None, T: int | None = None) -> GLMUCB:
    """shuffle-glm Sec. 8 baseline: GLM-UCB (Filippi et al. 2010), MLE + rho(t) ||x||_{V^-1} bonus.

    kappa defaults to the bound 1/mu'(S); lam = d, reg = 2 d and no projection as the experiments' code base;
    delta = 0.02 (the experiments')."""
    return GLMUCB(link, S, kappa, delta, lam, reg, T)


def gloc(*, link: str = "logistic", S: float = 1.0, kappa: float | None = None, delta: float = 0.02,
         lam: float | None = None, R: float = 0.5, T: int | None = None, constants: str = "theorem") -> GLOC:
    """shuffle-glm Sec. 8 baseline: GLOC (Jun et al. 2017), online Newton step + online-to-confidence-set UCB.

    kappa defaults to the bound 1/mu'(S); lam = d (the experiments' code bases); R = 1/2 the sub-Gaussian
    constant of Bernoulli noise; delta = 0.02. constants="released-code": the cited code's variant (the ONS step
    on the sphere, arms scored by mu(<x, theta_t>), alpha with mu'(0)^2 for R; algorithms/glm/gloc.py)."""
    released = constant_set("gloc", constants) == "released-code"
    return GLOC(link, S, kappa, delta, lam, R, T, variant="released-code" if released else "paper")


def rs_glinucb(*, link: str = "logistic", S: float = 1.0, kappa: float | None = None, delta: float = 0.02,
               lam: float = 0.5, R: float = 1.0, gamma: float | None = None, beta: float | None = None,
               threshold: float | None = None, switch: float = 2.0, T: int | None = None) -> RSGLinUCB:
    """shuffle-glm Sec. 8 baseline: RS-GLinUCB (Sawarni et al. 2024, Algorithm 2), rarely switching GLM UCB.

    Warm-up rounds by ||x||_{V^-1}, determinant-doubling switches of the MLE, arm elimination by the warm-up
    estimate; lam, gamma, beta and the warm-up threshold from the experiments' code base, switch = 2 (the
    paper's); kappa defaults to the bound 1/mu'(S); delta = 0.02."""
    return RSGLinUCB(link, S, kappa, delta, lam, R, gamma, beta, threshold, switch, T)


def ecolog(*, link: str = "logistic", S: float = 1.0, delta: float = 0.02, lam: float = 5.0,
           T: int | None = None) -> ECOLog:
    """shuffle-glm Fig. 1(a) baseline: ECOLog (Faury et al. 2022, ada-OFU-ECOLog), online logistic Newton step.

    Logistic only (a probit link is refused); the exact argmin of one log-loss term plus (1/2) ||theta -
    theta_t||^2_W over {||theta|| <= S} per round, its data-dependent confidence set; lam = 5 (the experiments'
    code base), delta = 0.02. The paper's silences and the choices are in the class's module docstring."""
    return ECOLog(link, S, delta, lam, T)


def jdp_glm(*, eps: float, delta: float = 0.02, zeta: float = 0.01, S: float = 1.0, kappa: float | None = None,
            kappa_star: float | None = None, link: str = "logistic", R: float = 1.0, c: float = 1.0, C: float = 1.0,
            T: int | None = None) -> JDPGLM:
    """shuffle-glm Algorithm 2: JDP-GLM, joint-DP GLM bandit with the printed parameters (19)-(21) and P_GD.

    c = C = 1 (the paper's unspecified constants); kappa, kappa* default to the link's bounds for ||theta*|| <= S;
    T defaults to the simulated horizon; Theorem 6.2 needs zeta < delta (delta = 0.02 as in the experiments,
    zeta = 0.01 to satisfy it)."""
    return JDPGLM(eps, delta, zeta, S, kappa, kappa_star, link, R, c, C, T)


def private_glm(*, eps: float, delta: float = 0.02, zeta: float = 0.02, S: float = 1.0, kappa: float | None = None,
                kappa_star: float | None = None, link: str = "logistic", R: float = 1.0, T: int | None = None,
                tree: str | None = None, project: bool = False, constants: str = "theorem") -> PrivateGLM:
    """shuffle-glm Algorithm 2: Private-GLM, Algorithm 2 as run in the experiments (Remark A.1, DP-SGD).

    The cited code's hyperparameters (lambda, gamma, beta, threshold, cutoffs of commit ab8fd160) and tree
    calibration (tree="repository", the default; tree="printed": Lemma I.4's); delta = zeta = 0.02 as in
    Sec. 8; project=True keeps the criterion-I estimates in Algorithm 2's ball {||theta|| <= S} (the code does
    not). constants="released-code"
    adds the code's DP-SGD adaptation when the noise is large (epochs, burn-in, learning rate) and its departures
    from Algorithm 2 (variant="released-code"; the presets also give it the instance's realised kappa, kappa*), and
    by default the code's tree as it runs (tree="released-code", whose query is not a prefix sum)."""
    released = constant_set("private-glm", constants) == "released-code"
    if tree is None:
        tree = "released-code" if released else "repository"
    return PrivateGLM(eps, delta, zeta, S, kappa, kappa_star, link, R, T, tree, project,
                      schedule="released-code" if released else "fixed",
                      variant="released-code" if released else "paper")


def shuffle_glm(*, eps: float, delta: float = 0.02, S: float = 1.0, kappa: float | None = None,
                kappa_star: float | None = None, link: str = "logistic", R: float = 1.0, T: int | None = None,
                warm_up: str = "printed") -> ShuffleGLM:
    """shuffle-glm Algorithm 1: ShuffleGLM, batched G-optimal design with shuffled P_2 matrices and P_GD.

    The printed parameters (8)-(10), (15) with the spec's choices for the O() constants; Theorem 5.1's range
    eps < 5, delta < 1/2 (refused outside); kappa, kappa* default to the link's bounds; T defaults to the
    simulated horizon. ``warm_up``: "printed" (default, eq. (6)'s warm-up batch B_1) or "scaled", a variant that
    is not the paper's Algorithm 1 (named ``warm-up=scaled``): B_1 = alpha, eq. (7)'s first length, as the
    non-private ablation's, so that batches k >= 2 run at simulable horizons; everything else as printed."""
    return ShuffleGLM(eps, delta, S, kappa, kappa_star, link, R, T, warm_up=warm_up)


def glm_ablation(*, design: str = "g-optimal", d: int = 4, s: float = 0.1, sets: Any = None,
                 probabilities: Any = None, link: str = "logistic", S: float = 1.0, kappa: float | None = None,
                 delta: float = 0.02, lam: float = 1.0, gamma: float | None = None, T: int | None = None
                 ) -> BatchedGLMAblation:
    """shuffle-glm Remark 4.4: non-private batched ablation of Algorithm 1 with the G-optimal or distributional design.

    Unnoised design matrices and MLE per batch, elimination with widths gamma sqrt(kappa) ||x||_{W^-1}, batches
    on eqs. (6)-(7)'s grid with B_1 = alpha; the learner knows the finite family of context sets: ``sets``
    (n, K, d) with ``probabilities``, or the spike family X_j = {e_j} u {s e_k : k != j} at (d, s) when not
    given; gamma = sqrt(2 log(2 N M / delta)) unless given, lam = 1, delta = 0.02."""
    family = spike_sets(int(d), float(s)) if sets is None else sets
    return BatchedGLMAblation(family, design, probabilities, link, S, kappa, delta, lam, gamma, T)


ALGORITHMS: dict[str, Callable[..., Any]] = Registry("algorithm", {
    "glm-ucb": glm_ucb, "gloc": gloc, "ecolog": ecolog, "rs-glinucb": rs_glinucb, "jdp-glm": jdp_glm,
    "private-glm": private_glm, "shuffle-glm": shuffle_glm, "glm-ablation": glm_ablation})
