"""shuffle-glm, Lemma R.1: the estimate of an approximate minimiser of the regularised log-loss, on logistic data.

Lemma R.1 (Appendix R): with L_t(theta) = sum_s (b(<x_s, theta>) - r_s <x_s, theta>) + (lambda/2) ||theta||^2,
theta~ its global minimiser, theta^ in Theta with L_t(theta^) - min_Theta L_t < nu, H(theta) = sum_s mu'(<x_s,
theta>) x_s x_s^T + lambda I and g(theta) = sum_s mu(<x_s, theta>) x_s + lambda theta: if ||g(theta~) -
g(theta*)||_{H(theta*)^{-1}} <= gamma, theta* in Theta and max_s |<x_s, theta^ - theta*>| <= c/R, then
    ||theta^ - theta*||_{H(theta*)} <= (2 + c)(gamma + sqrt(nu)) + sqrt((2 + c)((R/sqrt(lambda)) gamma^2 + gamma)).

Encoded (lemR.1@...): a deterministic check on seeded logistic data (R = 1; x_s uniform on the unit sphere, rewards
Bernoulli(mu(<x_s, theta*>)), ||theta*|| = S/2 with S = 3), for t in {50, 200, 1000}, d in {2, 5}, lambda in {0.1,
1, 10} and nu in {1e-3, 0.1, 1, 10}: theta~ by BFGS to gradient 1e-10; theta^ = theta~ + s u along five seeded
directions u, s the largest step with excess loss below nu (Theta = R^d, so theta* and theta^ are in it); gamma and
c the smallest values meeting the premises (gamma = ||g(theta~) - g(theta*)||_{H(theta*)^{-1}}, c = R max_s |<x_s,
theta^ - theta*>|). Every (t, d, lambda, nu, direction) is one point of the step's grid: 360 in all. Choices where
the paper is silent: the matrix N <= lambda I the specification allows in H is lambda I (the lemma's display), Theta
the whole space.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
from scipy.optimize import minimize

from dpaudit import LowerBound, ProofStep

from ._suite import suite

SEED = 20241
GRID = {"t": (50, 200, 1000), "d": (2, 5), "lam": (0.1, 1.0, 10.0), "nu": (1e-3, 0.1, 1.0, 10.0), "direction": range(5)}
S, R = 3.0, 1.0


def _mu(z):
    return 1 / (1 + np.exp(-z))


@functools.lru_cache(maxsize=64)
def _instance(t: int, d: int, lam: float):
    rng = np.random.default_rng([SEED, t, d, int(lam * 10)])
    theta_star = rng.standard_normal(d)
    theta_star *= S / 2 / np.linalg.norm(theta_star)
    x = rng.standard_normal((t, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    r = (rng.random(t) < _mu(x @ theta_star)).astype(float)

    def loss(v):
        z = x @ v
        return float(np.sum(np.logaddexp(0, z) - r * z) + lam / 2 * v @ v)

    def gradient(v):
        return x.T @ (_mu(x @ v) - r) + lam * v

    tilde = minimize(loss, np.zeros(d), jac=gradient, method="BFGS", options={"gtol": 1e-10}).x
    slope = _mu(x @ theta_star) * (1 - _mu(x @ theta_star))
    H = (x.T * slope) @ x + lam * np.eye(d)
    return x, theta_star, tilde, loss, H


def _sides(t: int, d: int, lam: float, nu: float, direction: int) -> tuple[float, float]:
    x, theta_star, tilde, loss, H = _instance(t, d, lam)

    def g(v):
        return x.T @ _mu(x @ v) + lam * v

    diff = g(tilde) - g(theta_star)
    gamma = float(np.sqrt(diff @ np.linalg.solve(H, diff)))
    u = np.random.default_rng([SEED, t, d, int(lam * 10), direction]).standard_normal(d)
    u /= np.linalg.norm(u)
    low, high = 0.0, 100.0  # the largest step along u with excess loss below nu (bisection)
    base = loss(tilde)
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if loss(tilde + mid * u) - base < nu else (low, mid)
    hat = tilde + low * u
    c = R * float(np.max(np.abs(x @ (hat - theta_star))))
    lhs = float(np.sqrt((hat - theta_star) @ H @ (hat - theta_star)))
    rhs = (2 + c) * (gamma + np.sqrt(nu)) + np.sqrt((2 + c) * (R / np.sqrt(lam) * gamma**2 + gamma))
    return lhs, float(rhs)


def _bound(p):
    points = list(itertools.product(*(GRID[k] for k in ("t", "d", "lam", "nu", "direction"))))
    sides = np.array([_sides(*point) for point in points])
    where = {name: np.array([point[i] for point in points]) for i, name in enumerate(("t", "d", "lam", "nu",
                                                                                      "direction"))}
    return sides[:, 0], sides[:, 1], where


R1_TEXT = ("Lemma R.1: if ||g(theta~) - g(theta*)||_{H(theta*)^{-1}} <= gamma, theta* in Theta and max_s |<x_s, theta^ "
           "- theta*>| <= c/R, then ||theta^ - theta*||_{H(theta*)} <= (2 + c)(gamma + sqrt(nu)) + sqrt((2 + c)((R/"
           "sqrt(lambda)) gamma^2 + gamma))")
suite.lower_bound("shuffle-glm/lemR.1@logistic,S3,grid360",
                  claim=LowerBound(R1_TEXT, {"S": S, "R": R}, steps=(
                      ProofStep("estimation error", "||theta^ - theta*||_H(theta*) <= (2 + c)(gamma + sqrt nu) + "
                                "sqrt((2 + c)(R gamma^2/sqrt(lambda) + gamma))", _bound, "<="),)),
                  title="Lemma R.1 on seeded logistic data (R = 1, S = 3): 360 approximate minimisers over t, d, "
                        "lambda, nu and the direction of the excess loss, gamma and c at the premises' least")
