"""shuffle-glm's confidence widths, as the analysis prints them: the quantities the lemmas' bounds are made of, each
computed once for the modules that check those lemmas (:mod:`.events`, :mod:`.switching`, :mod:`.domains`).

- (24) gamma(lambda_max, lambda_min) = 24 R S sqrt(log T + d) + R (log T + d)/sqrt(lambda_min) + 2 S sqrt(lambda_max)
  + sqrt(4 R S nu), Algorithm 1's parametric width;
- (60) gamma(lambda_max) = 4 R^2 S sqrt(lambda_max) + (7 S d/sqrt(lambda_max)) log(16 T/(zeta R^2 d lambda_max))
  + 4 R S sqrt(nu_1), Algorithm 2's criterion-I width;
- (71) beta(lambda_max, lambda_min) = 4 R lambda_max/sqrt(lambda_min) + (7 d/(R sqrt(lambda_min))) log(16 T/(zeta R^2
  d lambda_min)) + 10 sqrt(nu_2), Algorithm 2's criterion-II width.

The optimisation errors nu, nu_1, nu_2 are printed as O(.) only; each function takes them, 0 by default (their least,
the narrowest width).
"""

from __future__ import annotations

import math

from dpaudit.algorithms.glm.parameters import Algorithm2Parameters


def width_24(T: int, d: int, R: float, S: float, lam_min: float, lam_max: float, nu: float = 0.0) -> float:
    """(24): Algorithm 1's gamma(lambda_max, lambda_min)."""
    logs = math.log(T) + d
    return (24 * R * S * math.sqrt(logs) + R * logs / math.sqrt(lam_min) + 2 * S * math.sqrt(lam_max)
            + math.sqrt(4 * R * S * nu))


def gamma_60(p: Algorithm2Parameters, nu_1: float = 0.0) -> float:
    """(60): Algorithm 2's gamma(lambda_max)."""
    return (4 * p.R**2 * p.S * math.sqrt(p.lam_max)
            + 7 * p.S * p.d / math.sqrt(p.lam_max) * math.log(16 * p.T / (p.zeta * p.R**2 * p.d * p.lam_max))
            + 4 * p.R * p.S * math.sqrt(nu_1))


def beta_71(p: Algorithm2Parameters, nu_2: float = 0.0) -> float:
    """(71): Algorithm 2's beta(lambda_max, lambda_min)."""
    return (4 * p.R * p.lam_max / math.sqrt(p.lam_min)
            + 7 * p.d / (p.R * math.sqrt(p.lam_min)) * math.log(16 * p.T / (p.zeta * p.R**2 * p.d * p.lam_min))
            + 10 * math.sqrt(nu_2))
