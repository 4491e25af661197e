"""Registry entries of the generalised linear contextual bandit algorithms (shuffle-glm)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .jdp_glm import JDPGLM
from .private_glm import PrivateGLM


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
                tree: str = "repository") -> PrivateGLM:
    """shuffle-glm Algorithm 2: Private-GLM, Algorithm 2 as run in the experiments (Remark A.1, DP-SGD).

    The cited code's hyperparameters (lambda, gamma, beta, threshold, cutoffs of commit ab8fd160) and tree
    calibration (tree="printed": Lemma I.4's); delta = zeta = 0.02 as in Sec. 8."""
    return PrivateGLM(eps, delta, zeta, S, kappa, kappa_star, link, R, T, tree)


ALGORITHMS: dict[str, Callable[..., Any]] = {"jdp-glm": jdp_glm, "private-glm": private_glm}
