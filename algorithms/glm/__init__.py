"""Generalised linear bandits in the shuffle model (shuffle-glm): the parameters of Algorithms 1 and 2
and the private gradient-descent calls they make."""

from .parameters import (
    Algorithm2Parameters,
    algorithm1_lambdas,
    algorithm1_optimizer,
    algorithm2_parameters,
    criterion_two_optimizer,
    criterion_two_user_view,
)

__all__ = ["Algorithm2Parameters", "algorithm1_lambdas", "algorithm1_optimizer", "algorithm2_parameters",
           "criterion_two_optimizer", "criterion_two_user_view"]
