"""Other libraries' accountants as audited subjects (dpaudit.adapters.accountants), and the scripts that test them
against the certified brackets (benchmarks/accountant_grid.py, benchmarks/opacus_driver.py).

- each adapter at q = 1, where a run is one Gaussian of mu = Delta sqrt(k) / z whose eps(delta) has Balle and
  Wang's closed form (computed here in mpmath): the PLD within its discretization, the RDP ones between it and the
  classical RDP conversion computed here, prv-accountant's values around it within its eps_error; under
  replace-one (Delta = 2: the relation and autodp's sensitivity reaching the library);
- the relation mapping, "accounted as Poisson", the errors for what an adapter cannot model and for a missing
  library;
- dp-accounting's RDP of sampling without replacement under REPLACE_ONE (google/differential-privacy#378) refuted
  by the certified lower bound;
- the grid's judgement: an accountant that under-reports by 10% is refuted, one that over-reports never is; flags
  for crashes, negative and non-finite values and non-monotone curves; the grid's axes;
- the Opacus driver's JSON protocol, on a stand-in for opacus.

No test here is statistical.
"""

from __future__ import annotations

import io
import json
import math
import sys
import types

import mpmath
import pytest
from benchmark_loader import load_script as _script

from dpaudit.adapters import accountants as acc
from dpaudit.core.dpsgd import (
    BallsAndBins,
    BatchesWithReplacement,
    DPSGDConfig,
    FixedSizeBatches,
    PoissonBatches,
    ShuffledBatches,
)

pytest.importorskip("dp_accounting")


def gaussian_epsilon(mu: float, delta: float) -> float:
    """Balle and Wang's eps(delta) of N(mu, 1) against N(0, 1), by bisection in 100-digit mpmath."""
    with mpmath.workdps(100):
        def d(e):
            return mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu)
        lo, hi = mpmath.mpf(0), mpmath.mpf(200)
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
        return float(hi)


def classical_rdp_epsilon(mu: float, delta: float) -> float:
    """min over integer orders a of a mu^2 / 2 + log(1 / delta) / (a - 1): an upper bound any RDP accountant of the
    Gaussian should meet (its own conversion is at least this tight)."""
    return min(a * mu * mu / 2 + math.log(1 / delta) / (a - 1) for a in range(2, 2000))


Z, K, DELTA = 4.0, 16, 1e-5
GAUSSIAN = DPSGDConfig(PoissonBatches(1.0), Z, steps=K)  # mu = sqrt(16) / 4 = 1


def test_pld_at_q_1_is_the_gaussian_within_its_discretization():
    exact = gaussian_epsilon(1.0, DELTA)
    pessimistic = acc.DPAccountingPLD().epsilon(GAUSSIAN, DELTA)
    optimistic = acc.DPAccountingPLD(pessimistic=False).epsilon(GAUSSIAN, DELTA)
    assert optimistic - 1e-3 <= exact <= pessimistic <= exact + 1e-3
    # its delta(eps) is the inverse, with its rounding on the safe side
    assert acc.DPAccountingPLD().delta(GAUSSIAN, exact) >= DELTA * (1 - 1e-6)


def test_rdp_accountants_at_q_1_lie_between_the_gaussian_and_the_classical_conversion():
    exact, classical = gaussian_epsilon(1.0, DELTA), classical_rdp_epsilon(1.0, DELTA)
    for accountant in (acc.DPAccountingRDP(), acc.AutoDP()):
        eps = accountant.epsilon(GAUSSIAN, DELTA)
        assert exact <= eps <= classical + 1e-9, accountant.name


def test_prv_accountant_at_q_1_brackets_the_gaussian_within_its_eps_error():
    exact = gaussian_epsilon(1.0, DELTA)
    lower, estimate, upper = acc.PRVAccountant().bounds(GAUSSIAN, DELTA)
    assert lower <= exact <= upper and upper - lower <= 2 * 0.01 + 1e-3
    assert acc.PRVAccountant().epsilon(GAUSSIAN, DELTA) == upper
    assert acc.PRVAccountant(report="lower").epsilon(GAUSSIAN, DELTA) == lower


def test_replace_one_doubles_the_sensitivity_in_every_library_that_models_it():
    """q = 1 under replace-one is the Gaussian with mu = 2 sqrt(k) / z: dp-accounting's PLD gets the relation as
    REPLACE_ONE, autodp gets sigma = z / 2 (its sigma is std / sensitivity) for a full fixed-size batch."""
    exact = gaussian_epsilon(2.0, DELTA)
    pld = acc.DPAccountingPLD().epsilon(DPSGDConfig(PoissonBatches(1.0), Z, steps=K, relation="replace-one"), DELTA)
    assert exact <= pld <= exact + 1e-3
    full_batch = DPSGDConfig(FixedSizeBatches(50, 50), Z, steps=K, relation="replace-one")
    assert exact <= acc.AutoDP().epsilon(full_batch, DELTA) <= classical_rdp_epsilon(2.0, DELTA) + 1e-9


def test_relations_map_to_dp_accountings_and_zero_out_is_add_remove_for_poisson():
    import dp_accounting

    rel = dp_accounting.NeighboringRelation
    assert acc.neighboring_relation("add-remove") is rel.ADD_OR_REMOVE_ONE
    assert acc.neighboring_relation("zero-out") is rel.REPLACE_SPECIAL
    assert acc.neighboring_relation("replace-one") is rel.REPLACE_ONE
    with pytest.raises(ValueError, match="unknown relation"):
        acc.neighboring_relation("swap")
    run = DPSGDConfig(PoissonBatches(0.05), 2.0, steps=5)
    zero_out = DPSGDConfig(PoissonBatches(0.05), 2.0, steps=5, relation="zero-out")
    for accountant in acc.accountants():
        assert accountant.epsilon(run, DELTA) == pytest.approx(accountant.epsilon(zero_out, DELTA), rel=1e-9)
    replace = DPSGDConfig(PoissonBatches(0.05), 2.0, steps=5, relation="replace-one")
    assert acc.DPAccountingPLD().epsilon(replace, DELTA) > acc.DPAccountingPLD().epsilon(run, DELTA)


def test_events_carry_the_noise_multiplier_as_gaussian_dp_event_documents_it():
    event = acc.dp_event(DPSGDConfig(FixedSizeBatches(100, 10000), 1.3, steps=1, relation="replace-one"))
    assert (type(event).__name__, event.source_dataset_size, event.sample_size) == \
        ("SampledWithoutReplacementDpEvent", 10000, 100)
    assert event.event.noise_multiplier == 1.3  # std / C, not std / (2C)
    assert type(acc.dp_event(DPSGDConfig(PoissonBatches(0.1), 1.3, steps=1))).__name__ == "PoissonSampledDpEvent"


def test_accounted_as_poisson_is_the_poisson_run_at_batch_over_size():
    shuffled = DPSGDConfig(ShuffledBatches(100, 10000), 1.0, epochs=2, relation="zero-out")
    poisson = DPSGDConfig(PoissonBatches(0.01), 1.0, steps=200, relation="zero-out")
    assert acc.as_poisson(shuffled) == poisson
    assert acc.as_poisson(DPSGDConfig(BallsAndBins(50), 1.0, epochs=3)) == DPSGDConfig(PoissonBatches(0.02), 1.0,
                                                                                          steps=150)
    for accountant in acc.accountants():
        ok, why = accountant.supports(shuffled)
        assert not ok and "assume_poisson=True" in why
        with pytest.raises(ValueError, match="shuffled batches"):
            accountant.epsilon(shuffled, DELTA)
    for accountant in acc.accountants(assume_poisson=True):
        assert accountant.epsilon(shuffled, DELTA) == accountant.epsilon(poisson, DELTA)
    # a fixed-size run too, and the Poisson reading's own limits are said as such
    fixed = DPSGDConfig(FixedSizeBatches(100, 10000), 1.0, steps=200, relation="replace-one")
    ok, why = acc.PRVAccountant(assume_poisson=True).supports(fixed)
    assert not ok and "accounted as Poisson sampling at rate 0.01" in why and "replace-one" in why
    with pytest.raises(ValueError, match="drawn with replacement"):
        acc.as_poisson(DPSGDConfig(BatchesWithReplacement(10, 100), 1.0, steps=1, relation="zero-out"))


@pytest.mark.parametrize("accountant,config,message", [
    (acc.PRVAccountant(), DPSGDConfig(PoissonBatches(0.1), 1.0, steps=1, relation="replace-one"), "replace-one"),
    (acc.AutoDP(), DPSGDConfig(PoissonBatches(0.1), 1.0, steps=1, relation="replace-one"), "replace-one"),
    (acc.DPAccountingRDP(), DPSGDConfig(PoissonBatches(0.1), 1.0, steps=1, relation="replace-one"),
     "PoissonSampledDpEvent under REPLACE_ONE"),
    (acc.DPAccountingRDP(), DPSGDConfig(FixedSizeBatches(10, 100), 1.0, steps=1, relation="zero-out"),
     "SampledWithoutReplacementDpEvent under REPLACE_SPECIAL"),
    (acc.DPAccountingPLD(), DPSGDConfig(FixedSizeBatches(10, 100), 1.0, steps=1, relation="replace-one"),
     "SampledWithoutReplacementDpEvent"),
    (acc.DPAccountingRDP(), DPSGDConfig(BatchesWithReplacement(10, 100), 1.0, steps=1, relation="replace-one"),
     "SampledWithReplacementDpEvent"),
    (acc.PRVAccountant(), DPSGDConfig(BallsAndBins(10), 1.0, epochs=1), "balls-and-bins"),
])
def test_what_an_adapter_cannot_model_is_a_value_error_with_the_reason(accountant, config, message):
    ok, why = accountant.supports(config)
    assert not ok and message in why
    with pytest.raises(ValueError, match=message):
        accountant.epsilon(config, DELTA)


def test_bad_queries_and_options_say_what_is_wrong():
    with pytest.raises(ValueError, match="delta"):
        acc.DPAccountingPLD().epsilon(GAUSSIAN, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        acc.DPAccountingRDP().delta(GAUSSIAN, -1.0)
    with pytest.raises(ValueError, match="report"):
        acc.PRVAccountant(report="middle")
    with pytest.raises(ValueError, match="discretization"):
        acc.DPAccountingPLD(discretization=0)
    with pytest.raises(ValueError, match="assume_poisson"):
        acc.AutoDP(assume_poisson="yes")
    with pytest.raises(TypeError, match="DPSGDConfig"):
        acc.AutoDP().epsilon("a run", DELTA)
    with pytest.raises(NotImplementedError, match="no delta"):
        acc.Accountant().delta(GAUSSIAN, 1.0)


@pytest.mark.parametrize("module,accountant,package", [
    ("prv_accountant", acc.PRVAccountant(eps_error=0.0123), "pip install prv-accountant"),
    ("autodp", acc.AutoDP(), "pip install autodp"),
    ("dp_accounting", acc.DPAccountingRDP(), "pip install dp-accounting"),
])
def test_a_missing_library_names_its_pip_package(monkeypatch, module, accountant, package):
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=package):
        accountant.epsilon(DPSGDConfig(PoissonBatches(0.0123), 1.23, steps=3), DELTA)


def test_dp_accountings_replace_one_rdp_of_fixed_size_batches_is_refuted():
    """google/differential-privacy#378: given z = std / C as GaussianDpEvent documents it, the RDP of
    SampledWithoutReplacementDpEvent under REPLACE_ONE reads it as std / sensitivity (2C) and under-reports."""
    from dpaudit.exact.accounting import certify

    run = DPSGDConfig(FixedSizeBatches(500, 1000), 2.0, steps=10, relation="replace-one")
    bracket = certify(run, delta=DELTA)
    assert acc.DPAccountingRDP().epsilon(run, DELTA) < 0.7 * bracket.eps_lower  # 7.16 against 10.46
    # autodp, given std / sensitivity as it documents its sigma, stays above the certified upper bound
    assert acc.AutoDP().epsilon(run, DELTA) >= bracket.eps_upper


# -- the grid --------------------------------------------------------------------------------------------------


class Scaled:
    """An accountant that reports ``factor`` times dp-accounting's pessimistic PLD (tight to 1e-4 here)."""

    bound = acc.UPPER

    def __init__(self, factor: float):
        self.factor, self.name, self.inner = factor, f"scaled-{factor}", acc.DPAccountingPLD(assume_poisson=True)

    def supports(self, config):
        return self.inner.supports(config)

    def epsilon(self, config, delta):
        return self.factor * self.inner.epsilon(config, delta)


class Broken:
    bound, name = acc.UPPER, "broken"

    def supports(self, config):
        return True, ""

    def epsilon(self, config, delta):
        raise RuntimeError("cannot compute epsilon")


@pytest.fixture(scope="module")
def grid():
    return _script("accountant_grid")


def test_the_grid_refutes_an_accountant_that_under_reports_and_never_one_that_over_reports(grid):
    points = [grid.Point("poisson", 1.0, 0.1, k, d, "add-remove") for k in (1, 10) for d in (1e-8, 1e-5)]
    rows = grid.evaluate(points, accountants=[Scaled(0.9), Scaled(1.1), Broken()])
    by = {name: [r for r in rows if r.accountant == name] for name in ("scaled-0.9", "scaled-1.1", "broken")}
    assert all(r.refuted and r.margin() > 0.09 for r in by["scaled-0.9"]) and len(by["scaled-0.9"]) == 4
    assert not any(r.refuted for r in by["scaled-1.1"]) and all(r.gap > 0 for r in by["scaled-1.1"])
    assert all(r.crashed and "cannot compute" in r.error and not r.refuted for r in by["broken"])
    table = {t["accountant"]: t for t in grid.summary(rows)}
    assert (table["scaled-0.9"]["refuted"], table["scaled-1.1"]["refuted"], table["broken"]["crashes"]) == (4, 0, 4)
    out = io.StringIO()
    grid.print_summary(rows, witnesses=1, out=out)
    assert "scaled-0.9 on Poisson runs: 4 refuted; the worst 1:" in out.getvalue()
    assert "outside the certified [" in out.getvalue()


def test_the_grid_judges_each_claim_by_what_it_claims(grid):
    point = grid.Point("poisson", 1.0, 0.01, 10, 1e-5, "add-remove")

    def row(bound, eps):
        return grid.judge(grid.Row(point, "a", bound, eps=eps, eps_lower=1.0, eps_upper=1.2))

    assert row(acc.UPPER, 0.99).refuted and not row(acc.UPPER, 1.0).refuted and not row(acc.UPPER, 9.0).refuted
    assert row(acc.LOWER, 1.21).refuted and not row(acc.LOWER, 0.0).refuted
    assert not row(acc.ESTIMATE, 0.5).refuted
    assert row(acc.UPPER, -0.1).negative and row(acc.UPPER, math.inf).nonfinite and row(acc.UPPER, math.nan).nonfinite
    assert row(acc.UPPER, 1.3).gap == pytest.approx(0.1) and row(acc.LOWER, 1.3).gap is None
    # on a shuffled run asked as Poisson, a lower value bounds the Poisson run's epsilon, not this run's: unjudged;
    # an upper value is the claim the practice makes about the run, judged
    shuffled = grid.Point("shuffle", 1.0, 0.01, 100, 1e-5, "zero-out", 100, 10000)
    assert not grid.judge(grid.Row(shuffled, "a", acc.LOWER, eps=9.0, eps_lower=1.0, eps_upper=1.2)).refuted
    assert grid.judge(grid.Row(shuffled, "a", acc.UPPER, eps=0.5, eps_lower=1.0, eps_upper=1.2)).refuted


def test_the_grid_flags_curves_that_fall_with_steps_or_rise_with_delta(grid):
    def row(steps, delta, eps):
        return grid.Row(grid.Point("poisson", 1.0, 0.01, steps, delta, "add-remove"), "a", acc.UPPER, eps=eps)

    rows = [row(1, 1e-5, 1.0), row(10, 1e-5, 2.0), row(100, 1e-5, 1.5), row(1000, 1e-5, 2.5),
            row(10, 1e-8, 1.9)]
    grid.mark_monotonicity(rows)
    assert [r.nonmonotone_steps for r in rows] == [False, False, True, False, False]
    assert [r.nonmonotone_delta for r in rows] == [False, True, False, False, False]  # 2.0 at 1e-5 > 1.9 at 1e-8


def test_the_grid_spans_the_axes_and_takes_whole_groups(grid):
    points = grid.full_grid()
    assert len(points) >= 10_000
    assert min(p.noise for p in points) == 0.3 and max(p.noise for p in points) == 10.0
    assert min(p.rate for p in points) == 1e-4 and max(p.rate for p in points) == 0.5
    assert {p.steps for p in points if p.family == "poisson"} == set(grid.STEPS)
    assert {p.delta for p in points} == set(grid.DELTAS) and min(grid.DELTAS) == 1e-12 and max(grid.DELTAS) == 1e-2
    assert {(p.family, p.relation) for p in points} == {("poisson", "add-remove"), ("poisson", "replace-one"),
                                                         ("shuffle", "zero-out"), ("shuffle", "replace-one")}
    chosen = grid.choose(points, 100, seed=3)
    assert len(chosen) == 100 and chosen == grid.choose(points, 100, seed=3)
    assert len({p.group for p in chosen}) <= 100 // 6 + 2  # groups of up to 36 points, kept together
    for p in chosen[:5]:
        p.config()  # every point is a valid configuration


def test_the_grid_writes_and_reads_back_its_rows(grid, tmp_path):
    point = grid.Point("shuffle", 1.0, 0.01, 100, 1e-5, "zero-out", 100, 10000)
    rows = [grid.Row(point, "a", acc.UPPER, eps=1.5, eps_lower=1.6, eps_upper=2.0, refuted=True),
            grid.Row(point, "b", acc.UPPER, error="RuntimeError: x")]
    grid.write_csv(rows, tmp_path / "rows.csv")
    back = grid.read_csv(tmp_path / "rows.csv")
    assert [(r.point, r.accountant, r.eps, r.refuted, r.error) for r in back] == \
        [(point, "a", 1.5, True, ""), (point, "b", None, False, "RuntimeError: x")]


def test_a_grid_run_stopped_while_writing_leaves_its_last_csv_whole(grid, tmp_path):
    point = grid.Point("poisson", 1.0, 0.01, 100, 1e-5, "add-remove")
    path = tmp_path / "rows.csv"
    grid.write_csv([grid.Row(point, "a", acc.UPPER, eps=1.5, eps_lower=1.0, eps_upper=2.0)], path)
    before = path.read_text()
    broken = grid.Row(None, "b", acc.UPPER)  # asdict(None) raises half way through the rows
    with pytest.raises(TypeError):
        grid.write_csv([grid.Row(point, "a", acc.UPPER, eps=9.0), broken], path)
    assert path.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["rows.csv"]


def test_the_grid_plot_draws_every_accountant_and_counts_what_it_cannot_draw(grid, tmp_path):
    poisson = [grid.Point("poisson", 1.0, 0.01, k, 1e-5, "add-remove") for k in (1, 10, 100)]
    shuffled = grid.Point("shuffle", 1.0, 0.01, 100, 1e-5, "zero-out", 100, 10000)
    rows = [grid.judge(grid.Row(poisson[0], "up", acc.UPPER, eps=0.5, eps_lower=1.0, eps_upper=1.1)),
            grid.judge(grid.Row(poisson[1], "up", acc.UPPER, eps=-0.1, eps_lower=0.0, eps_upper=0.0)),
            grid.Row(poisson[2], "up", acc.UPPER, error="ValueError: x", eps_lower=2.0, eps_upper=2.0),
            grid.judge(grid.Row(shuffled, "up", acc.UPPER, eps=5e4, eps_lower=1.0, eps_upper=9.0)),
            grid.judge(grid.Row(poisson[0], "low", acc.LOWER, eps=1.2, eps_lower=1.0, eps_upper=1.1)),
            grid.judge(grid.Row(shuffled, "low", acc.LOWER, eps=9.0, eps_lower=1.0, eps_upper=2.0))]
    fig = grid.plot(rows, tmp_path / "grid.png")
    assert (tmp_path / "grid.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    notes = {ax.get_title(): ax.texts[0].get_text() for ax in fig.axes}
    assert notes["up"] == ("Poisson: 2 of 3 refuted, 1 crashed, 1 no ratio\n"  # -0.1 is below the certified 0
                           "shuffled, as Poisson: 0 of 1 refuted")
    assert notes["low"] == "Poisson: 1 of 1 refuted"  # a lower value about a shuffled run is not judged
    up = next(ax for ax in fig.axes if ax.get_title() == "up")
    drawn = [c.get_offsets() for c in up.collections if len(c.get_offsets())]
    assert sorted(tuple(map(float, xy)) for o in drawn for xy in o) == [(1.0, 0.5), (1.0, grid.CLIP[1])]


# -- the Opacus driver -----------------------------------------------------------------------------------------


def _fake_opacus(monkeypatch):
    """A stand-in for opacus and torch with the driver's API: rdp reports 1 + z steps q, gdp raises when eps would
    be large, prv returns inf; the noise search returns 2 / target."""
    class Accountant:
        def __init__(self, mechanism):
            self.mechanism, self.history = mechanism, []

        def get_epsilon(self, delta, **options):
            z, q, steps = self.history[0]
            if self.mechanism == "gdp":
                raise ValueError("f(a) and f(b) must have different signs")
            return math.inf if self.mechanism == "prv" else 1 + z * steps * q + options.get("extra", 0)

    opacus = types.ModuleType("opacus")
    opacus.__version__ = "0.0-test"
    opacus.accountants = types.ModuleType("opacus.accountants")
    opacus.accountants.create_accountant = lambda mechanism: Accountant(mechanism)
    opacus.accountants.utils = types.ModuleType("opacus.accountants.utils")
    opacus.accountants.utils.get_noise_multiplier = lambda **kw: 2 / kw["target_epsilon"]
    torch = types.ModuleType("torch")
    torch.__version__ = "0.0-test"
    for name, module in (("opacus", opacus), ("opacus.accountants", opacus.accountants),
                         ("opacus.accountants.utils", opacus.accountants.utils), ("torch", torch)):
        monkeypatch.setitem(sys.modules, name, module)


def test_the_opacus_driver_reads_points_and_writes_each_accountants_value_or_error(monkeypatch):
    _fake_opacus(monkeypatch)
    driver = _script("opacus_driver")
    points = [[2.0, 0.5, 3, 1e-5],
              {"noise_multiplier": 1.0, "sample_rate": 0.1, "steps": 10, "delta": 1e-5, "accountants": ["rdp"],
               "options": {"rdp": {"extra": 0.5}}},
              {"target_epsilon": 4.0, "sample_rate": 0.1, "steps": 10, "delta": 1e-5, "accountants": ["rdp"]},
              [1.0, 0.1]]
    out = io.StringIO()
    driver.main([], stdin=io.StringIO(json.dumps(points)), stdout=out)
    document = json.loads(out.getvalue())
    assert document["opacus"] == "0.0-test" and document["torch"] == "0.0-test"
    first, second, search, bad = document["results"]
    assert first == {"rdp": 4.0, "gdp": {"error": "ValueError: f(a) and f(b) must have different signs"},
                     "prv": "inf"}
    assert second == {"rdp": 2.5} and search == {"rdp": 0.5}
    assert "error" in bad and "noise_multiplier" in bad["error"]
    with pytest.raises(SystemExit):
        driver.main(["--accountants", "rdp,xyz"], stdin=io.StringIO("[]"), stdout=io.StringIO())


def test_the_grid_reads_opacus_rows_from_the_driver(grid, monkeypatch):
    """The grid turns the driver's answers into rows: numbers judged, errors as crashes, replace-one points not
    asked (Opacus accounts add-remove only)."""
    answers = [{"rdp": 0.1, "gdp": {"error": "ValueError: no"}, "prv": "inf"}]
    asked = []
    monkeypatch.setattr(grid, "opacus_values", lambda points, python, memory: asked.append(points) or answers)
    points = [grid.Point("poisson", 2.0, 0.02, 10, 1e-5, "add-remove"),
              grid.Point("poisson", 2.0, 0.02, 10, 1e-5, "replace-one")]
    rows = grid.evaluate(points, accountants=[], opacus_python="python")
    assert [p.relation for p in asked[0]] == ["add-remove"]
    by = {r.accountant: r for r in rows}
    assert by["opacus-rdp"].refuted and by["opacus-gdp"].crashed and by["opacus-prv"].nonfinite
