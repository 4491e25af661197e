"""Generalised linear bandits in the shuffle model (shuffle-glm): the parameters of Algorithms 1 and 2
and the private gradient-descent calls they make; the non-private baselines of its experiments (GLM-UCB,
GLOC, RS-GLinUCB) and the batched regularised MLE they share (:mod:`.mle`)."""

from .glm_ucb import GLMUCB
from .gloc import GLOC
from .parameters import (
    Algorithm2Parameters,
    algorithm1_lambdas,
    algorithm1_optimizer,
    algorithm2_parameters,
    criterion_two_optimizer,
    criterion_two_user_view,
)
from .rs_glinucb import RSGLinUCB

__all__ = ["GLMUCB", "GLOC", "Algorithm2Parameters", "RSGLinUCB", "algorithm1_lambdas", "algorithm1_optimizer",
           "algorithm2_parameters", "criterion_two_optimizer", "criterion_two_user_view"]
