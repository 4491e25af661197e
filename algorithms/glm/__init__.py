"""Generalised linear bandits in the shuffle model (shuffle-glm): the parameters of Algorithms 1 and 2
and the private gradient-descent calls they make; the algorithms (ShuffleGLM, Algorithm 1; JDP-GLM and
Private-GLM, Algorithm 2) with their per-run references; the non-private baselines of its experiments (GLM-UCB,
GLOC, RS-GLinUCB) and the batched regularised MLE they share (:mod:`.mle`); Remark 4.4's non-private batched
ablation of Algorithm 1 with either design (BatchedGLMAblation)."""

from .batched_ablation import BatchedGLMAblation
from .glm_ucb import GLMUCB
from .gloc import GLOC
from .jdp_glm import JDPGLM
from .parameters import (
    Algorithm2Parameters,
    algorithm1_lambdas,
    algorithm1_optimizer,
    algorithm2_parameters,
    criterion_two_optimizer,
    criterion_two_user_view,
)
from .private_glm import PrivateGLM
from .rs_glinucb import RSGLinUCB
from .shuffle_glm import ShuffleGLM

__all__ = ["BatchedGLMAblation", "GLMUCB", "GLOC", "JDPGLM", "Algorithm2Parameters", "PrivateGLM", "RSGLinUCB",
           "ShuffleGLM", "algorithm1_lambdas", "algorithm1_optimizer", "algorithm2_parameters",
           "criterion_two_optimizer", "criterion_two_user_view"]
