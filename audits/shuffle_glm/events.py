"""shuffle-glm, Appendices L and M: what Algorithm 2's criterion-II rounds derive from the event E_o, checked on seeded
states of the algorithm that put E_o at its boundary.

  - Lemma L.1: if criterion I fails at t and E_o holds, |<x, theta_o - theta*>| <= 1/R for every x in X_t;
  - Corollary L.2: under E_o, H_t <= H_t^{(u),*} and H_t^{(l),*} <= e^2 H_t;
  - Lemma L.3: under E_o, ||theta_tau - theta*||_V <= 2 gamma sqrt(kappa) and ||theta_o - theta*||_V <=
    gamma(lambda_max) sqrt(kappa), with theta_tau on the boundary of P_GD's domain {||theta - theta_o||_V <= gamma
    sqrt(kappa)} pointing away from theta*;
  - Corollary M.1: under E_tau (Lemma L.4's event ||theta_tau - theta*||_{H^(u),*} <= beta(lambda_max, lambda_min),
    (71) with nu_2 = 0), |<x, theta_tau - theta*>| <= beta ||x||_{H_tau^-1}, theta_tau on E_tau's boundary towards
    an arm, H_tau the states' criterion-II matrix;
  - Lemma M.2: under E_o, after line 14's elimination (a) the optimal arm survives and (b) every surviving arm, the
    played one among them, has <x*_t - x, theta*> <= 4/R.

A state (seeded, 200 per point): theta* = S u* (u* uniform on the sphere); the exploration data's Gram matrix G with
eigenvalues spread over [1, 3] times the least g that makes V = G + N_V exceed 1.01 gamma^2 kappa R^2 I, so criterion
I fails for every unit arm (a state after about 4 10^10 exploration rounds, within count1_cutoff at T = 10^11); N_V
and every N_t diagonal with entries at the ends of Assumption I.1's band [lambda_min, lambda_max] (random signs);
H*_o = G / kappa + lambda_max I (the least the T_o data can give, mu' >= 1/kappa: E_o's ellipsoid at its widest);
theta_o = theta* + gamma(lambda_max) H*_o^{-1/2} w, w uniform on the sphere (E_o on its boundary); X_t = K = 20 unit
arms uniform on the sphere. For Corollary L.2: n = 500 criterion-II rounds before t, x_s uniform on the sphere, theta_o
at round s with <x_s, theta_o,s - theta*> = +-1/R (Lemma L.1's conclusion at its bound, the sign seeded), |<x_s,
theta*>| pushed towards S (x_s mixed with u*, so the link's curvature ratio nears its e^{+-1}), H_t = sum_s
(mu'(<x_s, theta_o,s>)/e) x_s x_s^T + N_t as line 24 builds it.

Parameters: Algorithm 2's (19)-(21) at eps = 4, delta = 0.02, zeta = 0.01, R = 1, S = 3 (Table 2's largest), T = 10^11,
d in {2, 5}; gamma(lambda_max) is (60) with nu_1 = 0 (its least: nu_1 is printed as O(.) only); Theorem J.1's
condition gamma(lambda_max) <= gamma is checked as a condition (at these points gamma(lambda_max) is about a tenth of
gamma). The steps report the least margin over the states. Findings: none; the derivations hold on every state:
Lemma L.1 with room (its left side at most 0.08 of 1/R, about gamma(lambda_max)/gamma), Lemma L.3's theta_o part to
within 1e-5 (V is within a factor 1 + 1e-5 of kappa H*_o along theta_o - theta*) and its theta_tau part at about
half, Corollary M.1 with room, Corollary L.2 with relative
margins (least eigenvalue over the norm) of 0.07-0.25 for H_t <= H^(u),* and 2.4-3.5 for H^(l),* <= e^2 H_t (with
1.5 in place of e^2 the second order fails on these states, the tests show), Lemma M.2(b) at about half of 4/R.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpaudit import LowerBound, ProofStep
from dpaudit.algorithms.glm.base import curvature
from dpaudit.algorithms.glm.parameters import algorithm2_parameters
from dpaudit.mechanisms.glm.glm_links import logistic_slope

from ._suite import suite
from .widths import beta_71, gamma_60

EPS, DELTA, ZETA, R, S = 4.0, 0.02, 0.01, 1.0, 3.0
HORIZON = 10**11
STATES, ARMS, ROUNDS = 200, 20, 500
SEED = 20242


def _sphere(rng: np.random.Generator, size: tuple[int, ...], d: int) -> np.ndarray:
    x = rng.normal(size=(*size, d))
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@functools.lru_cache(maxsize=4)
def parameters(d: int) -> dict:
    _, kappa, kappa_star = curvature("events", "logistic", S, None, None)
    p = algorithm2_parameters(EPS, DELTA, HORIZON, ZETA, d, R, S, kappa, kappa_star)
    return {"p": p, "kappa": kappa, "gamma_max": gamma_60(p), "beta": beta_71(p)}


def _band(rng: np.random.Generator, d: int, p) -> np.ndarray:
    return np.diag(np.where(rng.random(d) < 0.5, p.lam_min, p.lam_max))


@functools.lru_cache(maxsize=4)
def states(d: int) -> list[dict]:
    """The seeded states of the module docstring."""
    par = parameters(d)
    p, kappa = par["p"], par["kappa"]
    out = []
    for k in range(STATES):
        rng = np.random.default_rng([SEED, d, k])
        u_star = _sphere(rng, (), d)
        theta_star = S * u_star
        Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
        shape = Q @ np.diag(rng.uniform(1, 3, d)) @ Q.T
        N_V = _band(rng, d, p)
        need = 1.01 * p.gamma**2 * kappa * R**2
        g = (need - N_V.diagonal().min()) / np.linalg.eigvalsh(shape).min()
        G = g * shape
        V = G + N_V
        H_o = G / kappa + p.lam_max * np.eye(d)
        w, U = np.linalg.eigh(H_o)
        root_inv = U @ np.diag(w ** -0.5) @ U.T
        theta_o = theta_star + par["gamma_max"] * root_inv @ _sphere(rng, (), d)
        arms = _sphere(rng, (ARMS,), d)
        # criterion-II rounds before t, for Corollary L.2
        mix = rng.random((ROUNDS, 1))
        xs = _sphere(rng, (ROUNDS,), d) * (1 - mix) + mix * u_star * rng.choice([-1.0, 1.0], (ROUNDS, 1))
        xs /= np.maximum(1.0, np.linalg.norm(xs, axis=1, keepdims=True))
        z_star = xs @ theta_star
        z_o = z_star + rng.choice([-1.0, 1.0], ROUNDS) / R * (np.linalg.norm(xs, axis=1) > 0)
        # each of the ROUNDS plays stands for a block of `repeat` identical rounds (theta_o moves only on criterion-I
        # rounds), so that the data outweigh the noise tenfold and the orders are decided by the link's curvature
        repeat = 10 * p.lam_max / (ROUNDS * 0.25 / math.e) / d
        H_t = repeat * (xs.T * (logistic_slope(z_o) / math.e)) @ xs + _band(rng, d, p)
        data_star = repeat * (xs.T * logistic_slope(z_star)) @ xs
        # theta_tau on the boundary of P_GD's domain {||theta - theta_o||_V <= gamma sqrt(kappa)}, pointing away from
        # theta* in V's norm (Lemma L.3's worst case)
        wv, Uv = np.linalg.eigh(V)
        v_root, v_root_inv = Uv @ np.diag(wv ** 0.5) @ Uv.T, Uv @ np.diag(wv ** -0.5) @ Uv.T
        away = v_root @ (theta_o - theta_star)
        theta_tau = theta_o + p.gamma * math.sqrt(kappa) * v_root_inv @ (away / np.linalg.norm(away))
        # for Corollary M.1: theta_tau' on E_tau's boundary, ||theta_tau' - theta*||_{H^(u),*} = beta(lambda_max,
        # lambda_min), in the direction that makes <x, .> largest for one arm of X_t
        H_u = data_star + p.lam_max * np.eye(d)
        arm = arms[0]
        direction = np.linalg.solve(H_u, arm)
        theta_tau_e = theta_star + par["beta"] * direction / math.sqrt(arm @ direction)
        out.append({"theta_star": theta_star, "theta_o": theta_o, "V": V, "H_o": H_o, "arms": arms, "H_t": H_t,
                    "H_u": H_u, "H_l": data_star + p.lam_min * np.eye(d), "width": p.gamma * math.sqrt(kappa),
                    "theta_tau": theta_tau, "theta_tau_e": theta_tau_e})
    return out


def _norms(x: np.ndarray, A: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("ki,ki->k", x, np.linalg.solve(A, x.T).T))


def _distance(a: np.ndarray, b: np.ndarray, A: np.ndarray) -> float:
    """||a - b||_A."""
    return math.sqrt((a - b) @ A @ (a - b))


def _line14(st) -> tuple[np.ndarray, np.ndarray]:
    """Each arm's centre <x, theta_o> and width gamma sqrt(kappa) ||x||_{V^-1} in line 14's elimination."""
    return st["arms"] @ st["theta_o"], st["width"] * _norms(st["arms"], st["V"])


def _where() -> dict:
    return {"state": np.arange(STATES)}


def _criterion_one_fails(p):
    par = parameters(p["d"])
    lhs = np.array([(_norms(st["arms"], st["V"]) ** 2).max() for st in states(p["d"])])
    return lhs, np.full(STATES, 1 / (par["p"].gamma ** 2 * par["kappa"] * R**2)), _where()


def _e_o(p):
    par = parameters(p["d"])
    lhs = np.array([_distance(st["theta_o"], st["theta_star"], st["H_o"]) for st in states(p["d"])])
    return lhs, np.full(STATES, par["gamma_max"] * (1 + 1e-9)), _where()


def _gamma_condition(p):
    par = parameters(p["d"])
    return np.array([par["gamma_max"]]), np.array([par["p"].gamma])


def _l1(p):
    lhs = np.array([np.abs(st["arms"] @ (st["theta_o"] - st["theta_star"])).max() for st in states(p["d"])])
    return lhs, np.full(STATES, 1 / R), _where()


def _l2_upper(p):
    """min eigenvalue of H^(u),* - H_t, relative to ||H^(u),*||: >= 0."""
    lhs = np.array([np.linalg.eigvalsh(st["H_u"] - st["H_t"]).min() / np.linalg.norm(st["H_u"], 2)
                    for st in states(p["d"])])
    return lhs, np.zeros(STATES), _where()


def _l2_lower(p):
    """min eigenvalue of e^2 H_t - H^(l),*, relative to ||H^(l),*||: >= 0."""
    lhs = np.array([np.linalg.eigvalsh(math.e**2 * st["H_t"] - st["H_l"]).min() / np.linalg.norm(st["H_l"], 2)
                    for st in states(p["d"])])
    return lhs, np.zeros(STATES), _where()


def _survivors(st) -> np.ndarray:
    centre, spread = _line14(st)
    return centre + spread >= (centre - spread).max()


def _m2_a(p):
    """UCB_o(x*) - max_z LCB_o(z): >= 0 when the optimal arm survives line 14."""
    out = []
    for st in states(p["d"]):
        centre, spread = _line14(st)
        best = np.argmax(st["arms"] @ st["theta_star"])
        out.append(centre[best] + spread[best] - (centre - spread).max())
    return np.array(out), np.zeros(STATES), _where()


def _m2_b(p):
    out = []
    for st in states(p["d"]):
        values = st["arms"] @ st["theta_star"]
        out.append(values.max() - values[_survivors(st)].min())
    return np.array(out), np.full(STATES, 4 / R), _where()


def _l3_tau(p):
    par = parameters(p["d"])
    lhs = np.array([_distance(st["theta_tau"], st["theta_star"], st["V"]) for st in states(p["d"])])
    return lhs, np.full(STATES, 2 * par["p"].gamma * math.sqrt(par["kappa"])), _where()


def _l3_o(p):
    par = parameters(p["d"])
    lhs = np.array([_distance(st["theta_o"], st["theta_star"], st["V"]) for st in states(p["d"])])
    return lhs, np.full(STATES, par["gamma_max"] * math.sqrt(par["kappa"])), _where()


def _m1(p):
    """max over X_t of |<x, theta_tau - theta*>| - beta ||x||_{H_tau^-1}: <= 0 (H_tau: the states' H_t)."""
    par = parameters(p["d"])
    out = []
    for st in states(p["d"]):
        values = np.abs(st["arms"] @ (st["theta_tau_e"] - st["theta_star"]))
        out.append((values - par["beta"] * _norms(st["arms"], st["H_t"])).max())
    return np.array(out), np.zeros(STATES), _where()


def _e_tau(p):
    par = parameters(p["d"])
    lhs = np.array([_distance(st["theta_tau_e"], st["theta_star"], st["H_u"]) for st in states(p["d"])])
    return lhs, np.full(STATES, par["beta"] * (1 + 1e-9)), _where()


CONDITIONS = (
    ProofStep("criterion I fails", "max_{x in X_t} ||x||^2_{V^-1} < 1/(gamma^2 kappa R^2)", _criterion_one_fails, "<"),
    ProofStep("E_o", "||theta_o - theta*||_{H*_o} <= gamma(lambda_max)", _e_o, "<="),
    ProofStep("gamma(lambda_max) <= gamma", "gamma(lambda_max) of (60) <= gamma of (21) (Theorem J.1's condition)",
              _gamma_condition, "<="),
)
L1_TEXT = "Lemma L.1: if criterion I fails at t and E_o holds, |<x, theta_o - theta*>| <= 1/R for all x in X_t"
L2_TEXT = "Corollary L.2: under E_o, H_t <= H_t^{(u),*} and H_t^{(l),*} <= e^2 H_t"
L3_TEXT = ("Lemma L.3: under E_o, ||theta_tau - theta*||_V <= 2 gamma sqrt(kappa) and ||theta_o - theta*||_V <= "
           "gamma(lambda_max) sqrt(kappa)")
M1_TEXT = "Corollary M.1: under E_tau, |<x, theta_tau - theta*>| <= beta ||x||_{H_tau^-1} for all x in X_t"
E_TAU = ProofStep("E_tau", "||theta_tau - theta*||_{H^(u),*} <= beta(lambda_max, lambda_min) (Lemma L.4's event)",
                  _e_tau, "<=")
M2_TEXT = ("Lemma M.2: under E_o, after line 14's elimination (a) the optimal arm x*_t survives and (b) <x*_t - x_t, "
           "theta*> <= 4/R")
for _d in (2, 5):
    _point = {"d": _d, "eps": EPS, "delta": DELTA, "zeta": ZETA, "S": S, "T": HORIZON, "states": STATES}
    _tail = f"d{_d},T1e11"
    suite.lower_bound(f"shuffle-glm/lemL.1@states,{_tail}", claim=LowerBound(
        L1_TEXT, _point, steps=(ProofStep("|<x, theta_o - theta*>| <= 1/R", L1_TEXT, _l1, "<="),),
        conditions=CONDITIONS),
        title=f"Lemma L.1 on {STATES} seeded states of Algorithm 2 with E_o at its boundary (d = {_d}, T = 1e11)")
    suite.lower_bound(f"shuffle-glm/corL.2@states,{_tail}", claim=LowerBound(
        L2_TEXT, _point, steps=(ProofStep("H_t <= H^(u),*", "lambda_min(H^(u),* - H_t) >= 0", _l2_upper, ">="),
                                ProofStep("H^(l),* <= e^2 H_t", "lambda_min(e^2 H_t - H^(l),*) >= 0", _l2_lower, ">=")),
        conditions=CONDITIONS),
        title=f"Corollary L.2's two orders on the same states, {ROUNDS} criterion-II rounds with Lemma L.1 at its "
              f"bound (d = {_d})")
    suite.lower_bound(f"shuffle-glm/lemL.3@states,{_tail}", claim=LowerBound(
        L3_TEXT, _point, steps=(ProofStep("theta_tau", "||theta_tau - theta*||_V <= 2 gamma sqrt(kappa)", _l3_tau,
                                          "<="),
                                ProofStep("theta_o", "||theta_o - theta*||_V <= gamma(lambda_max) sqrt(kappa)", _l3_o,
                                          "<=")),
        conditions=CONDITIONS),
        title=f"Lemma L.3 on the same states, theta_tau on the boundary of P_GD's domain away from theta* (d = {_d})")
    suite.lower_bound(f"shuffle-glm/corM.1@states,{_tail}", claim=LowerBound(
        M1_TEXT, _point, steps=(ProofStep("|<x, theta_tau - theta*>| <= beta ||x||_{H_tau^-1}", M1_TEXT, _m1, "<="),),
        conditions=(*CONDITIONS, E_TAU)),
        title=f"Corollary M.1 on the same states, theta_tau on E_tau's boundary (in H^(u),*'s norm) towards an arm, "
              f"H_tau the states' criterion-II matrix (d = {_d})")
    suite.lower_bound(f"shuffle-glm/lemM.2@states,{_tail}", claim=LowerBound(
        M2_TEXT, _point, steps=(ProofStep("(a) x* survives", "UCB_o(x*) >= max_z LCB_o(z)", _m2_a, ">="),
                                ProofStep("(b) gap <= 4/R", "max over surviving x of <x* - x, theta*> <= 4/R", _m2_b,
                                          "<=")),
        conditions=CONDITIONS),
        title=f"Lemma M.2 on the same states: line 14 keeps the optimal arm and no arm worse by more than 4/R "
              f"(d = {_d}, K = {ARMS})")
