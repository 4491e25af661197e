"""Evidence plots of the regret and lower-bound auditors: "regret-bound", "regret-rate", "lower-bound" and
"regret-order". Realistic plot data comes from the real auditors (explore-then-commit on two Bernoulli
arms; private-online's Theorem 10 claims with few runs); the ordering's data is built by hand in the
format its auditor emits. Every renderer must give a PNG, or None when nothing is drawable, without
raising, for missing optional keys, NaN / inf, values a log axis cannot show, one grid point, and lists
as well as numpy arrays."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.audits import private_online as po
from dpaudit.core.results import Finding, to_jsonable
from dpaudit.reports import plots
from dpaudit.reports.plots import render
from dpaudit.testing import ExploreThenCommit, explore_then_commit_regret

MEANS = [0.6, 0.5]
PNG = b"\x89PNG\r\n\x1a\n"


def _size(png: bytes) -> tuple[int, int]:
    """(width, height) in pixels from the PNG's IHDR chunk."""
    return struct.unpack(">II", png[16:24])


def _png(data: dict, title: str = "claim: verdict") -> bytes | None:
    return render(Finding("not-refuted", "test", plot_data=data), title)


def _is_png(png: bytes | None) -> bool:
    return png is not None and png.startswith(PNG)


def _as_json(data: dict) -> dict:
    """The plot data as it would read back from JSON (lists; non-finite numbers as strings)."""
    return json.loads(json.dumps(to_jsonable(data)))


@pytest.fixture(scope="module")
def audits() -> dict[str, dpaudit.AuditResult]:
    etc, env = ExploreThenCommit(2), BernoulliBandit(MEANS)
    grid = [10, 30, 100, 300, 1000]
    exact = dpaudit.RegretBound(lambda T: 1.2 * explore_then_commit_regret(MEANS, 2, T), "1.2 x exact E[R_T]")
    point = po._thm10_point(4, 0.1, 14)
    return {
        # simulated, for the lower confidence band (ETC's regret is also known exactly: "exact" below)
        "expectation": dpaudit.audit_regret(etc, env, exact, horizons=grid, runs=60, seed=1, auditor="statistical"),
        "too-low": dpaudit.audit_regret(etc, env, dpaudit.RegretBound(lambda T: 0.1 * np.sqrt(T), "0.1 sqrt T"),
                                        horizons=grid, runs=60, seed=1, auditor="statistical"),
        "exact": dpaudit.audit_regret(etc, env, exact, horizons=grid, seed=1),
        "high-probability": dpaudit.audit_regret(etc, env, dpaudit.RegretBound(lambda T: 0.1 * np.sqrt(T),
                                                                               probability=0.1),
                                                 horizons=grid, runs=60, seed=1),
        "rate": dpaudit.audit_regret(etc, env, dpaudit.RegretRate(0.5, log_power=1),
                                     horizons=np.unique(np.geomspace(10, 3000, 16).astype(int)), runs=60, seed=1),
        "lower-bound": dpaudit.audit_lower_bound(po.thm10_claim(point), po.thm10_contenders(point["eps"]), runs=30,
                                                 seed=1),
        "lower-bound-error": dpaudit.audit_lower_bound(po.eq58_claim(point), po.thm10_contenders(point["eps"]),
                                                       runs=30, seed=1),
    }


def _order_data() -> dict:
    grid = np.array([10, 100, 1000, 10_000])
    means = [5 * np.log(grid), 2 * np.sqrt(grid), 1.5 * np.sqrt(grid), 0.5 * np.sqrt(grid) - 5]
    return {"kind": "regret-order", "grid": grid,
            "labels": ["linucb", "private-linucb (eps=1)", "private-linucb (eps=0.1)", "linucb − private-linucb"],
            "mean": means, "lower": [m - 4 for m in means], "upper": [m + 4 for m in means],
            "groups": [["linucb"], ["private-linucb (eps=1)"], ["private-linucb (eps=0.1)"]], "at": "final",
            "violations": [["private-linucb (eps=1)", "private-linucb (eps=0.1)"]]}


@pytest.mark.slow
def test_regret_auditors_plot_data_renders(audits):
    for name, res in audits.items():
        png = render(res)
        assert _is_png(png), name
        assert _size(png) == (880, 360), name  # 3.6 in high at 100 dpi; wider for the legend outside


def test_regret_bound_plot_data_is_what_the_renderer_reads(audits):
    data = audits["expectation"].plot_data
    assert data["kind"] == "regret-bound" and data["lower"] is not None
    hp = audits["high-probability"].plot_data
    assert hp["lower"] is None and len(hp["quantile"]) == len(hp["grid"])
    assert audits["rate"].plot_data["kind"] == "regret-rate"
    assert audits["lower-bound"].plot_data["kind"] == "lower-bound"


def test_regret_order_renders():
    png = _png(_order_data())
    assert _is_png(png) and _size(png) == (880, 360)


def _drawn(data: dict):
    """The figure drawn by the kind's renderer, with its axes, laid out as saved."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, ax = plots._figure(plots.WIDE)
    plots._RENDERERS[data["kind"]](ax, data, "title")
    FigureCanvasAgg(fig).draw()
    return fig, ax


def _legend_outside(fig, ax) -> bool:
    renderer = fig.canvas.get_renderer()
    return ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1


@pytest.mark.slow
@pytest.mark.parametrize("name", ["expectation", "high-probability", "rate", "lower-bound"])
def test_legends_sit_outside_the_axes(audits, name):
    assert _legend_outside(*_drawn(audits[name].plot_data))


def test_order_legend_ranks_and_marks_violations():
    fig, ax = _drawn(_order_data())
    texts = ax.get_legend().get_texts()
    labels = [t.get_text() for t in texts]
    assert labels[:3] == ["1. linucb", "2. private-linucb (eps=1) !", "3. private-linucb (eps=0.1) !"]
    assert labels[3].endswith("linucb − private-linucb") and "!" not in labels[3]
    assert [t.get_fontweight() for t in texts[:3]] == ["normal", "bold", "bold"]
    assert _legend_outside(fig, ax)


def test_rate_plot_labels_the_fit_and_the_claimed_constant(audits):
    data = audits["rate"].plot_data
    _, ax = _drawn(data)
    labels = ax.get_legend_handles_labels()[1]
    assert f"fitted slope {data['slope']:.3f}" in labels
    claimed = [label for label in labels if label.startswith("claimed T^0.5 log^1 T, fitted constant C = ")]
    assert len(claimed) == 1
    # the constant is the weighted mean, weights (mean / stderr)^2, of log(mean / log T) - 0.5 log T
    x, mean, se = data["x"], data["mean"], data["stderr"]
    w = (mean / se) ** 2
    c = np.exp(np.sum(w * (np.log(mean / np.log(x)) - 0.5 * np.log(x))) / w.sum())
    assert claimed[0].endswith(f"{c:.3g}")
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_bound_plot_marks_the_worst_point(audits):
    data = audits["too-low"].plot_data
    _, ax = _drawn(data)
    ratio = data["lower"] / data["bound"]
    j = int(np.argmax(ratio))
    assert any(label.startswith(f"largest lower bound / f(T): {ratio[j]:.3g} at T = {data['grid'][j]}")
               for label in ax.get_legend_handles_labels()[1])
    assert ax.get_xscale() == "log"
    short = dict(data, grid=np.array([10, 30]), mean=data["mean"][:2], lower=data["lower"][:2],
                 bound=data["bound"][:2])
    assert _drawn(short)[1].get_xscale() == "linear"  # less than a decade


def _variants(data: dict, drop: tuple[str, ...], one_point: dict) -> list[dict]:
    """Lists instead of arrays; optional keys missing; the data cut to one grid point."""
    out = [_as_json(data), {k: v for k, v in data.items() if k not in drop}, one_point]
    return out


def _spoil(value, where: int, with_: float):
    a = np.array(value, dtype=float)
    a.flat[where] = with_
    return a


@pytest.mark.slow
def test_regret_bound_edge_cases(audits):
    data = audits["expectation"].plot_data
    hp = audits["high-probability"].plot_data
    one = {k: (v[-1:] if isinstance(v, np.ndarray) else v) for k, v in data.items()}
    cases = _variants(data, ("lower", "description"), one) + [
        _as_json(hp), {k: v for k, v in hp.items() if k not in ("quantile", "description")},
        {**data, "mean": _spoil(data["mean"], 0, np.nan), "lower": _spoil(data["lower"], 1, -np.inf),
         "bound": _spoil(data["bound"], 2, np.inf)},
        {**data, "grid": [0, *data["grid"][1:]]},  # a round at 0 on a log axis
        {**data, "mean": -data["mean"], "lower": -data["lower"] - 1},  # realised regret may be negative
        {**data, "bound": np.zeros(len(data["grid"]))},
        {**data, "lower": data["lower"][:2]},  # of the wrong length: left out
        {"kind": "regret-bound", "grid": [100], "mean": [3.0], "lower": ["nan"], "bound": [None]},
    ]
    for case in cases:
        assert _is_png(_png(case))
    for missing in ({"kind": "regret-bound"}, {"kind": "regret-bound", "grid": []},
                    {"kind": "regret-bound", "grid": [1, 2], "mean": [np.nan, np.nan]}):
        assert _png(missing) is None


@pytest.mark.slow
def test_regret_rate_edge_cases(audits):
    data = audits["rate"].plot_data
    one = {**data, "x": data["x"][-1:], "mean": data["mean"][-1:], "stderr": data["stderr"][-1:]}
    cases = _variants(data, ("stderr", "slope", "intercept", "claimed", "log_power", "variable"), one) + [
        {**data, "mean": _spoil(_spoil(data["mean"], 0, 0.0), 1, -3.0)},  # dropped from the log axes
        {**data, "mean": _spoil(data["mean"], 2, np.inf), "stderr": _spoil(data["stderr"], 3, np.nan)},
        {**data, "stderr": np.zeros(len(data["x"]))},
        {**data, "slope": "nan", "claimed": None},
        {**data, "stderr": 10 * data["stderr"]},  # error bars reaching below zero: clipped
        {**data, "variable": "eps", "claimed": -1.0, "log_power": 1.0, "x": np.geomspace(0.05, 2.0, len(data["x"]))},
    ]
    for case in cases:
        assert _is_png(_png(case))
    for missing in ({"kind": "regret-rate"}, {**data, "mean": None}, {**data, "mean": np.zeros(len(data["x"]))}):
        assert _png(missing) is None


@pytest.mark.slow
def test_lower_bound_edge_cases(audits):
    data = audits["lower-bound"].plot_data
    one = {**data, "algorithms": data["algorithms"][:1], "bounds": data["bounds"][:1],
           "means": [data["means"][0][:1]], "uppers": [data["uppers"][0][:1]]}
    wide = {**data, "means": [[1e-4, 2.0, 5.0]] * 3, "uppers": [[0.0, 3.0, 50.0]] * 3}  # log y, a zero dropped
    long = {**data, "algorithms": [f"a rather long algorithm name number {i} (eps=0.1, noise_scale=2/eps)"
                                   for i in range(7)],
            "bounds": [0.1] * 7, "means": [[1.0, 1.1]] * 7, "uppers": [[1.3, 1.4]] * 7}
    cases = _variants(data, ("quantity", "uppers", "bounds"), one) + [
        _as_json(audits["lower-bound-error"].plot_data), wide, _as_json(wide), long,
        {**data, "means": [[np.nan, 1.0, np.inf, 1.0]] * 3, "bounds": [np.nan, np.inf, 0.1]},
        {**data, "means": [[1.0, 1.0]], "uppers": None},  # ragged and short: the rest drawn without members
    ]
    for case in cases:
        assert _is_png(_png(case))
    assert _drawn(wide)[1].get_yscale() == "log"
    for missing in ({"kind": "lower-bound"}, {**data, "algorithms": []},
                    {**data, "means": None, "uppers": None, "bounds": None}):
        assert _png(missing) is None


@pytest.mark.slow
def test_regret_order_edge_cases():
    data = _order_data()
    one = {**data, "grid": data["grid"][-1:], "mean": [m[-1:] for m in data["mean"]],
           "lower": [m[-1:] for m in data["lower"]], "upper": [m[-1:] for m in data["upper"]]}
    many = {**data, "labels": [f"algorithm {i}" for i in range(12)], "mean": [data["mean"][0] + i for i in range(12)],
            "lower": None, "upper": None, "groups": [[f"algorithm {i}", f"algorithm {i + 1}"] for i in range(0, 12, 2)],
            "violations": [[f"algorithm {i}", f"algorithm {i + 1}"] for i in range(6)]}
    cases = _variants(data, ("lower", "upper", "groups", "at", "violations"), one) + [
        many, _as_json(many),
        {**data, "mean": [_spoil(data["mean"][0], 0, np.nan), *data["mean"][1:3], data["mean"][3][:2]],
         "lower": [_spoil(data["lower"][0], 1, -np.inf)], "upper": "not a list"},
        {**data, "grid": [0, 10, 100, 1000]},
        {**data, "groups": ["linucb", None], "violations": [["linucb"], "x", None], "at": None},
    ]
    for case in cases:
        assert _is_png(_png(case))
    for missing in ({"kind": "regret-order"}, {**data, "labels": []}, {**data, "mean": None}):
        assert _png(missing) is None


@pytest.mark.slow
def test_a_suite_run_saves_the_lower_bound_plot():
    """The runner saves what render returns: a lower-bound entry's record names its plot."""
    from dpaudit.runner.worker import ClaimTask, run_claim

    claim_id = "private-online/thm10@K4,eps0.1,m14"
    outcome = run_claim(ClaimTask(claim_id, 0, "quick", 0.01, 600))
    assert outcome.record["plots"] == [plots.plot_filename(claim_id)]
    assert _is_png(outcome.plots[plots.plot_filename(claim_id)])


@pytest.mark.parametrize("labels", [3, 30], ids=["short legend", "long legend"])
def test_the_axes_are_fitted_so_their_labels_and_the_legend_outside_lie_within_the_figure(audits, labels):
    """_fit replaces matplotlib's constrained layout with one measured pass: after it, every label, drawn tick label
    and the (left-aligned) title lie within the figure, to a pixel, and the legend outside the axes does not cover
    them; a legend wider than the figure overflows on the right, never the axis labels on the left."""
    from dpaudit.reports.plots._axes import WIDE, _figure, _fit, _legend_outside, _note, _title

    fig, ax = _figure(WIDE)
    x = np.geomspace(10, 1e5, 7)
    ax.set_xscale("log")
    ax.plot(x, 1e4 * np.sqrt(x), "o-", label="mean regret of an algorithm with a long name")
    for i in range(labels):
        _note(ax, f"note {i}: a line of the legend as long as a finding's note may be, cut at seventy chars")
    ax.set_xlabel("rounds T")
    ax.set_ylabel("regret R_T")
    _title(ax, "a claim id of ordinary length@with,parameters,and,more,of,them: not-refuted")
    _legend_outside(ax)
    _fit(fig, ax)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = fig.bbox.expanded(1.0, 1.0)
    frame = ax.get_window_extent(renderer)
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    ticks = ([t for t in ax.get_xticklabels() if x0 <= t.get_position()[0] <= x1]  # the ones drawn
             + [t for t in ax.get_yticklabels() if y0 <= t.get_position()[1] <= y1])
    assert len(ticks) >= 4
    for text in [ax.xaxis.label, ax.yaxis.label, ax.title, ax._left_title, ax._right_title, *ticks]:
        box = text.get_window_extent(renderer)
        if text.get_text():
            assert inside.x0 - 1 <= box.x0 and box.x1 <= inside.x1 + 1 and inside.y0 - 1 <= box.y0, text.get_text()
    legend = ax.get_legend().get_window_extent(renderer)
    assert legend.x0 >= frame.x1  # beside the axes, never over them
    if labels < 10:
        assert legend.x1 <= fig.bbox.x1 + 1 and frame.width > 0.35 * fig.bbox.width
    else:  # two columns wider than the figure: the legend runs off the right edge, the axes keep a fifth of it
        assert legend.x1 > fig.bbox.x1 and frame.width >= 0.2 * fig.bbox.width - 1


def test_every_rendered_plot_is_fitted_once(audits, monkeypatch):
    """render lays out each plot with _fit (no layout engine of matplotlib's is set, so without it a legend outside
    the axes would be cut off), once, after the renderer has drawn and the log axes' labels are made plain."""
    calls = []
    original = plots._fit

    def spy(fig, ax):
        calls.append(len(ax.lines))
        original(fig, ax)

    monkeypatch.setattr(plots, "_fit", spy)
    plain = []
    monkeypatch.setattr(plots, "_plain_log_labels", lambda ax: plain.append(calls.copy()))
    assert _is_png(render(audits["expectation"]))
    assert len(calls) == 1 and calls[0] > 0
    assert plain == [[]]  # the log axes' labels are made plain text before the layout measures them


def test_log_axes_label_their_ticks_as_plain_text_with_the_mathtext_labels_meaning():
    """A log axis' tick labels are plain text (10⁻³, 2×10⁻¹): the labels matplotlib's log formatters give, without
    its mathtext parser. Every label a formatter gives over twelve decades and within one decade is turned into
    the text that reads the same, and nothing else is touched."""
    from matplotlib.ticker import LogFormatterMathtext, LogFormatterSciNotation

    from dpaudit.reports.plots._axes import _figure, _log_label_as_text, _plain_log_labels

    assert _log_label_as_text(r"$\mathdefault{10^{-3}}$") == "10⁻³"
    assert _log_label_as_text(r"$\mathdefault{2\times10^{-1}}$") == "2×10⁻¹"
    assert _log_label_as_text(r"$\mathdefault{10^{12}}$") == "10¹²"
    assert _log_label_as_text(r"$\mathdefault{-10^{2}}$") == "\u221210²"
    assert _log_label_as_text(r"$\mathdefault{0}$") == "0"
    for other in ("", "0.5", r"$\mathdefault{10^{0.50}}$", r"$x^2$"):
        assert _log_label_as_text(other) == other
    decades, between = list(np.geomspace(1e-6, 1e6, 13)), [2e-3, 5e4, 0.3]
    for formatter, values in ((LogFormatterSciNotation(), decades + between), (LogFormatterMathtext(), decades),
                              (LogFormatterSciNotation(labelOnlyBase=False), decades + between)):
        for x in values:  # (a plain LogFormatterMathtext writes 10^{-2.70} between decades: left to mathtext)
            label = formatter(x)
            if label:
                assert "$" not in _log_label_as_text(label), label
    fig, ax = _figure()
    ax.set_yscale("log")
    ax.plot([0, 1], [1e-5, 3e-2])
    _plain_log_labels(ax)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert "10⁻³" in labels and all("$" not in label for label in labels)
    assert "0.0" in [t.get_text() for t in ax.get_xticklabels()]  # the linear axis keeps its own labels
