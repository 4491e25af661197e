"""Evidence plots of the tail auditors: "tail" (a tail against the claimed or implied bound) and "tail-cgf"
(a cumulant function against the claimed lam^2 s^2 / 2).

The statistical audits are seeded; a claim that holds is refuted with probability at most
1 - confidence = 0.01 per seed, and the refuted ones (a Laplace tail against a Gaussian bound, an MGF
45% above the claim at lam = 1) fail to refute with probability below 1e-6 at 2 * 10^5 samples.
"""

from __future__ import annotations

import json
import struct
import warnings

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit import SubExponential, SubGaussian, TailBound
from dpaudit.core.results import Finding, to_jsonable
from dpaudit.reports.plots import render

PNG = b"\x89PNG\r\n\x1a\n"
GAUSS_BOUND = TailBound(lambda t: 2 * np.exp(-(t**2) / 2), "2 exp(-t^2/2)")


def _statistical(law, claim):
    return dpaudit.audit_tail(law, claim, auditor="statistical", samples=200_000, seed=3, confidence=0.99)


AUDITS = {
    # (auditor, expected verdict, plot kind)
    "exact-tail-refuted": (lambda: dpaudit.audit_tail(stats.norm(0, 1.1), GAUSS_BOUND, auditor="exact"),
                           "refuted", "tail"),
    "exact-tail-verified": (lambda: dpaudit.audit_tail(stats.norm(0, 1), GAUSS_BOUND, auditor="exact"),
                            "verified", "tail"),
    "exact-lattice-refuted": (lambda: dpaudit.audit_tail(
        stats.binom(10, 0.5), TailBound(lambda t: 2 * np.exp(-4 * t**2 / 10), "tight", centred=True),
        auditor="exact"), "refuted", "tail"),
    "exact-implied-refuted": (lambda: dpaudit.audit_tail(stats.logistic(), SubGaussian(3), auditor="exact"),
                              "refuted", "tail"),
    "exact-cgf-refuted": (lambda: dpaudit.audit_tail(stats.binom(10, 0.5), SubGaussian(1.5, centred=True),
                                                     auditor="exact"), "refuted", "tail-cgf"),
    "exact-cgf-verified": (lambda: dpaudit.audit_tail(stats.binom(10, 0.5), SubGaussian(1.7, centred=True),
                                                      auditor="exact"), "verified", "tail-cgf"),
    "exact-subexp-refuted": (lambda: dpaudit.audit_tail(stats.laplace(), SubExponential(1.5, 2), auditor="exact"),
                             "refuted", "tail-cgf"),
    "statistical-tail-refuted": (lambda: _statistical(stats.laplace(), GAUSS_BOUND), "refuted", "tail"),
    "statistical-tail-not-refuted": (lambda: _statistical(stats.norm(), GAUSS_BOUND), "not-refuted", "tail"),
    "statistical-mgf-refuted": (lambda: _statistical(stats.laplace(), SubGaussian(1.0)), "refuted", "tail-cgf"),
    "statistical-mgf-not-refuted": (lambda: _statistical(stats.norm(), SubGaussian(1.2)), "not-refuted",
                                    "tail-cgf"),
}


@pytest.fixture(scope="module")
def audits() -> dict[str, dpaudit.AuditResult]:
    return {name: make() for name, (make, _, _) in AUDITS.items()}


def _drawn(data: dict):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from dpaudit.reports import plots

    fig, ax = plots._figure(plots.WIDE)
    plots._RENDERERS[data["kind"]](ax, data, "title")
    FigureCanvasAgg(fig).draw()
    return fig, ax


@pytest.mark.slow
@pytest.mark.parametrize("name", list(AUDITS))
def test_every_tail_finding_renders_a_wide_png_with_its_legend_outside(audits, name):
    res = audits[name]
    _, verdict, kind = AUDITS[name]
    assert res.verdict == verdict and res.plot_data["kind"] == kind
    png = render(res)
    assert png is not None and png.startswith(PNG) and len(png) > 1000
    assert struct.unpack(">II", png[16:24]) == (880, 360)
    fig, ax = _drawn(res.plot_data)
    renderer = fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    assert ax.get_yscale() == ("log" if kind == "tail" else "linear")


@pytest.mark.parametrize("name", [n for n, (_, _, kind) in AUDITS.items() if kind == "tail"])
def test_the_claimed_curve_is_the_bound_and_the_witness_is_inside_the_grid(audits, name):
    data = audits[name].plot_data
    claim = audits[name].claim
    t = np.asarray(data["t"])
    if claim["kind"] == "tail-bound":
        expected = GAUSS_BOUND.evaluate(t) if "tight" not in data["bound_label"] else 2 * np.exp(-4 * t**2 / 10)
    else:  # the sub-Gaussian(3) claim, through the tail it implies
        assert data["bound_label"].startswith("implied by sub-Gaussian(sigma = 3)")
        expected = 2 * np.exp(-(t**2) / 18)
    np.testing.assert_allclose(data["bound"], expected, rtol=1e-12)
    witness = audits[name].witness["t"]
    assert data["witness_t"] == witness and t.min() <= witness <= t.max() and witness in t
    assert 200 <= t.size <= 800  # small: plot data travels between processes


def test_the_exact_tail_is_the_laws_and_the_empirical_tail_has_its_band(audits):
    data = audits["exact-tail-refuted"].plot_data
    t = np.asarray(data["t"])
    np.testing.assert_allclose(data["tail"], 2 * stats.norm(0, 1.1).sf(t), rtol=1e-9, atol=1e-300)
    assert data["witness_t"] < t.max() <= 1.5 * data["witness_t"] * (1 + 1e-12)
    lattice = audits["exact-lattice-refuted"].plot_data
    assert lattice["step"] and {1.0, 2.0, 3.0, 4.0} <= set(np.asarray(lattice["t"]).tolist())
    sampled = audits["statistical-tail-refuted"].plot_data
    assert (np.asarray(sampled["band_lower"]) <= sampled["tail"]).all()
    assert (np.asarray(sampled["band_upper"]) >= sampled["tail"]).all()
    assert "DKW" in sampled["band_label"] and "0.99" in sampled["band_label"]
    assert sampled["witness_value"] == audits["statistical-tail-refuted"].witness["lower_bound"]


@pytest.mark.parametrize("name", [n for n, (_, _, kind) in AUDITS.items() if kind == "tail-cgf"])
def test_the_cgf_plot_compares_with_the_claimed_quadratic(audits, name):
    data, claim = audits[name].plot_data, audits[name].claim
    s, lam_max = (claim["sigma"], np.inf) if claim["kind"] == "sub-gaussian" else (claim["nu"], 1 / claim["b"])
    lam = np.asarray(data["lam"])
    inside = np.abs(lam) < lam_max
    np.testing.assert_allclose(np.asarray(data["claimed"])[inside], lam[inside] ** 2 * s**2 / 2, rtol=1e-12)
    assert np.isnan(np.asarray(data["claimed"])[~inside]).all()
    assert lam.min() <= data["witness_lam"] <= lam.max()
    assert data["witness_lam"] == audits[name].witness["lambda"]


@pytest.mark.slow
def test_a_law_whose_tail_underflows_renders_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hoeffding = TailBound(lambda t: 2 * np.exp(-2 * t**2 / 10), "Hoeffding", centred=True)
        for law, claim in ((stats.norm(0, 1), GAUSS_BOUND), (stats.uniform(-1, 2), GAUSS_BOUND),
                           (stats.binom(10, 0.5), hoeffding)):
            res = dpaudit.audit_tail(law, claim, auditor="exact")
            assert res.verdict == "verified" and np.asarray(res.plot_data["tail"]).max() <= 1
            assert (np.asarray(res.plot_data["tail"]) == 0).any()  # drawn up to where it underflows
            assert render(res) is not None
        # a bound that is infinite at t = 0, and one that fails there, are left out at that point
        for bound in (lambda t: 4 / np.asarray(t) ** 2,
                      lambda t: np.where(t > 0, 4 / np.where(t > 0, t, 1.0) ** 2, np.nan)):
            res = dpaudit.audit_tail(stats.norm(), TailBound(bound, "Chebyshev 4 / t^2"), auditor="exact")
            assert not np.isfinite(res.plot_data["bound"][0]) and render(res) is not None


@pytest.mark.slow
def test_plot_data_read_back_from_json_and_degenerate_data(audits):
    for res in audits.values():
        data = json.loads(json.dumps(to_jsonable(res.plot_data)))
        assert render(Finding(res.verdict, "test", plot_data=data), "t") is not None
    empty = {"kind": "tail", "t": [0.0, 1.0], "tail": [0.0, float("nan")], "bound": [None, "inf"]}
    assert render(Finding("not-refuted", "test", plot_data=empty), "t") is None
    assert render(Finding("not-refuted", "test", plot_data={"kind": "tail-cgf", "lam": []}), "t") is None


def test_plot_data_is_not_part_of_the_record(audits):
    record = audits["exact-tail-refuted"].to_dict()
    assert "plot_data" not in record and "plot_data" not in json.dumps(to_jsonable(record))
