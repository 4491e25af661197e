"""The GLM fit's compiled pass (algorithms/glm/compiled.py): the inverse Mills ratio and each Newton step's gradient
and Hessian are the numpy link's to rounding, on both sides of the deep-tail switch and with weights; a fit is the
numpy fit's; the GLM bandits make the same decisions with the compiled pass as without it."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import GLMBandit
from dpaudit.algorithms.glm import mle
from dpaudit.algorithms.glm.glm_ucb import GLMUCB
from dpaudit.algorithms.glm.rs_glinucb import RSGLinUCB
from dpaudit.mechanisms.glm import glm_links
from dpaudit.mechanisms.glm.glm_links import LINKS

pytestmark = pytest.mark.skipif(not mle.AVAILABLE, reason="numba is not installed (pip install dpaudit[fast])")


def test_inverse_mills_is_the_links_on_both_sides_of_the_deep_tail_switch():
    from dpaudit.algorithms.glm.compiled import inverse_mills
    u = np.concatenate([np.linspace(-45, -30.5, 30), [-30.000001, -30.0, -29.999999], np.linspace(-29, 12, 83)])
    got = np.array([inverse_mills(v) for v in u])
    np.testing.assert_allclose(got, glm_links._mills(u), rtol=1e-12)
    mpmath.mp.dps = 40  # the continued fraction below -30 is exact to rounding; above, exp and erfc to 1e-13
    exact = np.array([float(mpmath.npdf(v) / mpmath.ncdf(v)) for v in u])
    deep = u < -30
    np.testing.assert_allclose(got[deep], exact[deep], rtol=1e-15)
    np.testing.assert_allclose(got[~deep], exact[~deep], rtol=2e-13)


def numpy_terms(link, X, r, w, theta):
    z = np.einsum("rnd,rd->rn", X, theta)
    slope, curvature = link.loss_derivatives(z, r)
    return (np.einsum("rn,rnd->rd", w * slope, X),
            np.einsum("rn,rnd,rne->rde", w * curvature, X, X))


def exact_derivatives(link, z, r):
    """loss' and loss'' at 40 digits (mpmath), per point."""
    mpmath.mp.dps = 40
    slope, curvature = np.empty(z.shape), np.empty(z.shape)
    for index in np.ndindex(z.shape):
        zi, ri = mpmath.mpf(float(z[index])), float(r[index])
        if link == "probit":
            sign = 2 * ri - 1
            u = sign * zi
            h = mpmath.npdf(u) / mpmath.ncdf(u)
            slope[index], curvature[index] = float(-sign * h), float(h * (u + h))
        else:
            mu = 1 / (1 + mpmath.exp(-zi))
            slope[index], curvature[index] = float(mu - ri), float(mu * (1 - mu))
    return slope, curvature


@pytest.mark.parametrize("link", ["probit", "logistic"])
@pytest.mark.parametrize("weighted", [False, True])
def test_newton_terms_are_the_links_for_the_rows_asked(link, weighted):
    """Against the derivatives at 40 digits (to 1e-12), and the numpy link's (to 1e-12 where |z| < 30; beyond,
    probit's loss'' = h(u)(u + h(u)) cancels, and the numpy link's h, computed through logs there, is 1e-13 off,
    the compiled one exact to rounding)."""
    from dpaudit.algorithms.glm.compiled import newton_terms
    rng = np.random.default_rng(3)
    runs, n, d = 5, 70, 3
    X = rng.normal(size=(runs, n, d))
    r = (rng.random((runs, n)) < 0.5).astype(float)
    w = (rng.random((runs, n)) < 0.7).astype(float) if weighted else np.ones((runs, n))
    rows = np.array([4, 0, 2])
    theta = rng.normal(size=(rows.size, d))
    for far in (False, True):
        if far:  # |z| far beyond the deep-tail switch on both sides
            X[:, :4] *= 25
        gradient, hessian = np.full((rows.size, d), np.nan), np.full((rows.size, d, d), np.nan)
        newton_terms(X, r, w if weighted else np.ones((runs, 0)), theta, rows, link == "probit", gradient, hessian)
        z = np.einsum("rnd,rd->rn", X[rows], theta)
        assert (np.abs(z).max() > 40) == far
        slope, curvature = exact_derivatives(link, z, r[rows])
        g = np.einsum("rn,rnd->rd", w[rows] * slope, X[rows])
        H = np.einsum("rn,rnd,rne->rde", w[rows] * curvature, X[rows], X[rows])
        np.testing.assert_allclose(gradient, g, rtol=1e-12, atol=1e-12 * np.abs(g).max())
        np.testing.assert_allclose(hessian, H, rtol=1e-12, atol=1e-12 * np.abs(H).max())
        if not far:
            g, H = numpy_terms(LINKS[link], X[rows], r[rows], w[rows], theta)
            np.testing.assert_allclose(gradient, g, rtol=1e-12, atol=1e-12 * np.abs(g).max())
            np.testing.assert_allclose(hessian, H, rtol=1e-12, atol=1e-12 * np.abs(H).max())


def test_a_history_view_is_read_in_place():
    """The fit passes the History's views (not contiguous: the capacity is larger than n) as they are."""
    from dpaudit.algorithms.glm.compiled import newton_terms
    rng = np.random.default_rng(4)
    history = mle.History(3, 2, capacity=8)
    for _ in range(5):
        history.add(rng.normal(size=(3, 2)), (rng.random(3) < 0.5).astype(float))
    assert not history.contexts.flags.c_contiguous
    theta = rng.normal(size=(3, 2))
    gradient, hessian = np.empty((3, 2)), np.empty((3, 2, 2))
    newton_terms(history.contexts, history.rewards, np.ones((3, 0)), theta, np.arange(3), True, gradient, hessian)
    g, H = numpy_terms(LINKS["probit"], history.contexts, history.rewards, np.ones((3, 5)), theta)
    np.testing.assert_allclose(gradient, g, rtol=1e-12)
    np.testing.assert_allclose(hessian, H, rtol=1e-12)


@pytest.mark.parametrize("link", ["probit", "logistic"])
def test_a_compiled_fit_is_the_numpy_fit(link, monkeypatch):
    rng = np.random.default_rng(1)
    lk = LINKS[link]
    x = rng.normal(size=(6, 80, 3)) / 2
    x[:, :5] *= 40  # far points: the first Newton steps from 0 need damping
    theta = rng.normal(size=(6, 3)) * 2
    r = (rng.random((6, 80)) < lk.mean(np.einsum("rnd,rd->rn", x, theta))).astype(float)
    weights = (rng.random((6, 80)) < 0.6)  # booleans, as RS-GLinUCB passes them
    fast = mle.fit_mle(lk, x, r, weights, np.zeros((6, 3)), reg=0.5)
    monkeypatch.setattr(mle, "AVAILABLE", False)
    slow = mle.fit_mle(lk, x, r, weights, np.zeros((6, 3)), reg=0.5)
    assert fast.converged.all() and fast.iterations == slow.iterations
    np.testing.assert_allclose(fast.theta, slow.theta, rtol=1e-11, atol=1e-12)


def test_the_compiled_pass_takes_what_it_computes_exactly(monkeypatch):
    """Probit rewards outside {0, 1} (the link's general derivatives) and links it does not know go to numpy."""
    assert mle._compiled_link(LINKS["probit"], np.array([[0.0, 1.0]])) is True
    assert mle._compiled_link(LINKS["logistic"], np.array([[0.3, 1.0]])) is False
    assert mle._compiled_link(LINKS["probit"], np.array([[0.5, 1.0]])) is None
    other = glm_links.Link("other", *[getattr(LINKS["logistic"], f) for f in (
        "mean", "slope", "loss", "loss_slope", "loss_curvature", "cumulant", "loss_derivatives")])
    assert mle._compiled_link(other, np.array([[0.0, 1.0]])) is None
    monkeypatch.setattr(mle, "AVAILABLE", False)
    assert mle._compiled_link(LINKS["probit"], np.array([[0.0, 1.0]])) is None


@pytest.mark.parametrize("make", [lambda: GLMUCB("probit", S=2.0), lambda: GLMUCB("logistic", S=2.0),
                                  lambda: RSGLinUCB("probit", S=2.0)])
def test_the_bandits_decide_alike_with_the_compiled_pass_and_without(make, monkeypatch):
    results = {}
    for available in (True, False):
        monkeypatch.setattr(mle, "AVAILABLE", available)
        results[available] = dpaudit.simulate(make(), GLMBandit(8, 3, 2.0, link=make().link.name), horizon=250,
                                              runs=4, seed=3, grid=[50, 250])
    np.testing.assert_array_equal(results[True].pulls, results[False].pulls)
    np.testing.assert_allclose(results[True].regret, results[False].regret, rtol=1e-12)
