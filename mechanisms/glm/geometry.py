"""Projection domains Theta of shuffle-glm's private gradient descent (P_GD, Appendix T, Algorithm 7).

Choices where the paper is silent: Theta is the Euclidean ball {||theta||_2 <= S} of diameter D = 2S
(:class:`Ball`; Algorithm 1's domain and Algorithm 2's criterion-I call; the projection scales back to
the sphere), or the ellipsoid {||theta - theta_o||_V <= gamma sqrt(kappa)} of Algorithm 2's
criterion-II call (:class:`Ellipsoid`; Section 6 prints the ellipsoid, eq. (69) the Euclidean ball of
the same radius: the ellipsoid is used). Its diameter is D = 2 gamma sqrt(kappa) / sqrt(lambda_min(V));
the Euclidean projection onto it solves for the Lagrange multiplier nu >= 0 of
theta - theta_o = (I + nu V)^-1 (y - theta_o) by bisection (vectorised over runs).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpaudit.core.validation import positive


class Ball:
    """Theta = {||theta||_2 <= radius}: diameter 2 radius, projection by scaling back to the sphere."""

    owner = "Ball"
    d = None  # any dimension

    def __init__(self, radius: float):
        self.radius = positive(self.owner, "radius", radius)
        self.diameter = 2 * self.radius
        self.max_norm = self.radius

    def __repr__(self) -> str:
        return f"Ball(S={self.radius:g})"

    def project(self, theta: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(theta, axis=-1, keepdims=True)
        return theta * np.minimum(1.0, self.radius / np.maximum(norms, 1e-300))


class Ellipsoid:
    """Theta = {theta : (theta - center)^T V (theta - center) <= radius^2}, V symmetric positive
    definite: Algorithm 2's criterion-II domain {||theta - theta_o||_V <= gamma sqrt(kappa)}.

    Diameter 2 radius / sqrt(lambda_min(V)); every point has ||theta|| <= ||center|| +
    radius / sqrt(lambda_min(V)) (``max_norm``, what a Lipschitz constant over Theta needs). The
    Euclidean projection of y outside is center + (I + nu V)^-1 (y - center), with nu > 0 the root
    of ||(I + nu V)^-1 (y - center)||_V = radius, decreasing in nu: bisection in V's eigenbasis,
    ending on the inner side so the result is always in Theta."""

    owner = "Ellipsoid"
    BISECTIONS = 200

    def __init__(self, center: Any, matrix: Any, radius: float):
        self.center = np.asarray(center, dtype=float)
        if self.center.ndim != 1 or not np.isfinite(self.center).all():
            raise ValueError(f"{self.owner}: center must be a finite vector, got shape {self.center.shape}")
        self.d = self.center.size
        V = np.asarray(matrix, dtype=float)
        if V.shape != (self.d, self.d) or not np.isfinite(V).all() or not np.allclose(V, V.T, rtol=1e-12, atol=0):
            raise ValueError(f"{self.owner}: matrix must be a symmetric {self.d} x {self.d} matrix")
        self.eigenvalues, self.basis = np.linalg.eigh((V + V.T) / 2)
        if not self.eigenvalues[0] > 0:
            raise ValueError(f"{self.owner}: matrix must be positive definite, smallest eigenvalue "
                             f"{self.eigenvalues[0]:.6g}")
        self.matrix = V
        self.radius = positive(self.owner, "radius", radius)
        self.diameter = 2 * self.radius / math.sqrt(self.eigenvalues[0])
        self.max_norm = float(np.linalg.norm(self.center)) + self.diameter / 2

    def __repr__(self) -> str:
        return (f"Ellipsoid(center={np.round(self.center, 6).tolist()}, radius={self.radius:.6g}, "
                f"lambda_min={self.eigenvalues[0]:.6g})")

    def _norm2(self, z: np.ndarray, nu: np.ndarray) -> np.ndarray:
        """||(I + nu V)^-1 y||_V^2 for eigen-coordinates z (runs, d) of y - center."""
        lam = self.eigenvalues
        return (lam * (z / (1 + nu[:, None] * lam)) ** 2).sum(axis=1)

    def project(self, theta: np.ndarray) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        flat = theta.reshape(-1, self.d)
        z = (flat - self.center) @ self.basis
        r2 = self.radius**2
        outside = self._norm2(z, np.zeros(len(z))) > r2
        if not outside.any():
            return theta
        zo = z[outside]
        # at nu = sqrt(sum z^2 / lam) / radius the V-norm is at most radius: a bracket for the root
        low = np.zeros(len(zo))
        high = np.sqrt((zo**2 / self.eigenvalues).sum(axis=1)) / self.radius
        for _ in range(self.BISECTIONS):
            mid = (low + high) / 2
            beyond = self._norm2(zo, mid) > r2
            low, high = np.where(beyond, mid, low), np.where(beyond, high, mid)
        out = flat.copy()
        out[outside] = self.center + (zo / (1 + high[:, None] * self.eigenvalues)) @ self.basis.T
        return out.reshape(theta.shape)

    def contains(self, theta: np.ndarray) -> np.ndarray:
        z = (np.asarray(theta, dtype=float).reshape(-1, self.d) - self.center) @ self.basis
        return self._norm2(z, np.zeros(len(z))) <= self.radius**2 * (1 + 1e-12)


__all__ = ["Ball", "Ellipsoid"]
