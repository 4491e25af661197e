"""The DP-SGD auditor's steps on fixed data (dpaudit.auditors.dpsgd): the verdict, the record and the plot data it
makes of a certified bracket, the runs it derives (scaled noise, the Poisson run an accountant models), the sweep's
data and the accountants' answers.

The certified accounting itself is tested in test_certified_accounting.py and end to end in test_dpsgd_audit.py; here
``certify`` is replaced by a stub returning a fixed bracket, so that every test is exact and takes milliseconds
(the mutation record runs these against each mutant of the auditor). Nothing here is statistical.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from dpaudit import (
    ApproxDP,
    BallsAndBins,
    ComposedDPSGD,
    DPSGDConfig,
    FixedSizeBatches,
    PoissonBatches,
    PureDP,
    RenyiDP,
    ShuffledBatches,
    UnsupportedAudit,
)
from dpaudit.auditors import dpsgd
from dpaudit.auditors.dpsgd import (
    THREAT_MODEL,
    CertifiedAccountingAuditor,
    as_dpsgd_run,
    as_poisson,
    noise_sweep,
    rdp_epsilon,
    run_name,
    scaled,
)
from dpaudit.core.results import NOT_REFUTED, REFUTED, VERIFIED, Statistic
from dpaudit.exact.accounting import Bracket

POISSON = DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000)
SHUFFLED = DPSGDConfig(ShuffledBatches(10, 200), 0.8, epochs=2, relation="zero-out")
POISSON_ZERO = DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000, relation="zero-out")  # composes with SHUFFLED
DETAILS = {"grid": 2.0**-10, 3: (1.0, math.inf), "losses": [-math.inf, float("nan")]}


class _Certify:
    """A stand-in for certify: records its calls and returns a fixed bracket (its fields given)."""

    def __init__(self, **fields):
        self.fields = {"eps_lower": 1.5, "eps_upper": 1.7, "delta_lower": 1e-6, "delta_upper": 2e-6,
                       "witness": {"order": "forward", "pairs": ["(0, 1)"]}, "upper_footing": "dominating pairs",
                       "tight": True, "details": DETAILS, **fields}
        self.calls = []

    def __call__(self, run, *, delta=None, epsilon=None, knot=None):
        self.calls.append((run, delta, epsilon, knot))
        return Bracket(delta=delta, epsilon=epsilon, **self.fields)


@pytest.fixture
def stub(monkeypatch):
    def install(**fields):
        fake = _Certify(**fields)
        monkeypatch.setattr(dpsgd, "certify", fake)
        return fake

    return install


def test_the_subject_is_a_configuration_or_describes_one():
    composed = ComposedDPSGD((POISSON_ZERO, SHUFFLED))
    assert as_dpsgd_run(POISSON) is POISSON and as_dpsgd_run(composed) is composed

    class Loop:
        def __init__(self, run):
            self.run = run

        def dpsgd_config(self):
            return self.run

        def __repr__(self):
            return "Loop()"

    assert as_dpsgd_run(Loop(SHUFFLED)) is SHUFFLED
    with pytest.raises(TypeError, match=r"^Loop\(\)\.dpsgd_config\(\) must return a DPSGDConfig or ComposedDPSGD, "
                                        r"got 'poisson'$"):
        as_dpsgd_run(Loop("poisson"))

    class Described:
        dpsgd_config = POISSON  # not callable: not a description

        def __repr__(self):
            return "Described()"

    for subject, shown in ((Described(), "Described()"), ("poisson", "'poisson'")):
        with pytest.raises(TypeError, match=r"^a DP-SGD audit needs a DPSGDConfig, a ComposedDPSGD, or an object with "
                                            r"dpsgd_config\(\) \(a traced training loop\); got " + re.escape(shown)):
            as_dpsgd_run(subject)


def test_a_run_is_named_by_its_label_or_its_description():
    labelled = DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000, label="mine")
    assert run_name(labelled) == "mine" and run_name(POISSON) == POISSON.describe()
    assert run_name(ComposedDPSGD((POISSON_ZERO, SHUFFLED))) == ComposedDPSGD((POISSON_ZERO, SHUFFLED)).describe()


def test_the_auditor_takes_dp_claims_about_dpsgd_runs():
    auditor = CertifiedAccountingAuditor()
    assert auditor.name == "certified-accounting" and auditor.statistical is False
    assert auditor.supports(POISSON, ApproxDP(1.0, 1e-5)).level == "attempts"
    assert auditor.supports(POISSON, PureDP(1.0)).level == "attempts"
    renyi = auditor.supports(POISSON, RenyiDP(2.0, 1.0))
    assert not renyi and renyi.noted
    assert renyi.reason == "certified accounting decides (epsilon, delta) and pure DP claims; got a renyi-dp claim"
    subject = auditor.supports("poisson", ApproxDP(1.0, 1e-5))
    assert not subject and subject.noted is False and subject.reason.startswith("a DP-SGD audit needs a DPSGDConfig")
    with pytest.raises(UnsupportedAudit, match="got a renyi-dp claim"):
        auditor.audit(POISSON, RenyiDP(2.0, 1.0))


def _finding(claim, subject=POISSON, **kwargs):
    return CertifiedAccountingAuditor().audit(subject, claim, **kwargs)


@pytest.mark.parametrize("d_lo, d_hi, verdict", [(2e-5, 3e-5, REFUTED), (1e-5, 2e-5, NOT_REFUTED),
                                                 (5e-6, 1e-5, VERIFIED), (5e-6, 1.0000001e-5, NOT_REFUTED),
                                                 (0.0, 0.0, VERIFIED)])
def test_an_approximate_claim_is_decided_by_where_its_delta_lies_in_the_bracket(stub, d_lo, d_hi, verdict):
    """Refuted when the lower bound on delta(eps) exceeds the claimed delta (a lower bound equal to it does not),
    verified when the upper bound is at most it, not refuted in between; the record field by field."""
    fake = stub(delta_lower=d_lo, delta_upper=d_hi)
    finding = _finding(ApproxDP(1.6, 1e-5), knot=2.0**-8)
    assert fake.calls == [(POISSON, 1e-5, 1.6, 2.0**-8)]
    assert finding.verdict == verdict and finding.auditor == "certified-accounting"
    assert finding.statistic == Statistic("epsilon at delta=1e-05", None, (1.5, 1.7), "exact")
    assert finding.epsilon_lower == 1.5 and finding.delta_lower == d_lo and finding.confidence == 1.0
    assert finding.samples == 0 and finding.power is None
    notes = [f"threat model: {THREAT_MODEL}", "upper bound: dominating pairs"]
    if verdict == NOT_REFUTED:
        notes.append(f"undecided: the certified bracket delta(1.6) in [{d_lo:.6g}, {d_hi:.6g}] contains the claimed "
                     "delta 1e-05; a claim below the lower bound would be refuted")
    assert finding.notes == notes
    assert finding.parameters == {"dpsgd": POISSON.to_dict(), "delta_upper": d_hi, "epsilon_upper": 1.7,
                                  "tight": True, "threat_model": THREAT_MODEL,
                                  "certification": {"grid": 2.0**-10, "3": [1.0, "inf"], "losses": ["-inf", "nan"]}}
    assert finding.plot_data == {"kind": "dpsgd-bracket", "eps": 1.6, "delta": 1e-5, "delta_bracket": (d_lo, d_hi),
                                 "eps_bracket": (1.5, 1.7), "tight": True}
    if verdict == REFUTED:
        assert finding.witness == {"order": "forward", "pairs": ["(0, 1)"], "epsilon": 1.6, "delta_lower": d_lo,
                                   "claimed_delta": 1e-5, "datasets": dpsgd._datasets(POISSON)}
    else:
        assert finding.witness == {}


def test_a_refutations_witness_keeps_the_brackets_thresholds_and_a_loose_bracket_says_so(stub):
    stub(delta_lower=0.2, delta_upper=0.3, tight=False, upper_footing="a coupling",
         witness={"order": "reverse", "pairs": [], "thresholds": [0.5, 1.0]})
    finding = _finding(ApproxDP(1.0, 0.1), subject=SHUFFLED)
    assert finding.verdict == REFUTED
    assert finding.witness == {"order": "reverse", "pairs": [], "epsilon": 1.0, "delta_lower": 0.2,
                               "claimed_delta": 0.1, "datasets": dpsgd._datasets(SHUFFLED), "thresholds": [0.5, 1.0]}
    assert finding.notes[1] == "upper bound: a coupling (the bracket is not tight)"
    assert finding.parameters["tight"] is False and finding.plot_data["tight"] is False
    stub(delta_lower=0.2, delta_upper=0.3, witness={})
    assert _finding(ApproxDP(1.0, 0.1)).witness == {"order": None, "pairs": None, "epsilon": 1.0, "delta_lower": 0.2,
                                                    "claimed_delta": 0.1, "datasets": dpsgd._datasets(POISSON)}


@pytest.mark.parametrize("d_lo, verdict", [(1e-300, REFUTED), (0.0, NOT_REFUTED)])
def test_a_pure_claim_is_refuted_by_any_positive_lower_bound_and_never_verified(stub, d_lo, verdict):
    """delta = 0: the bracket of delta at the claimed epsilon, asked without a delta; an upper bound of 0 does not
    verify it (Gaussian noise never gives pure DP, and the auditor does not claim it)."""
    fake = stub(delta_lower=d_lo, delta_upper=0.0, eps_lower=None, eps_upper=None)
    finding = _finding(PureDP(3.0), sweep=4)
    assert fake.calls == [(POISSON, None, 3.0, None)]  # no sweep for a pure claim
    assert finding.verdict == verdict
    assert finding.statistic == Statistic("delta at epsilon=3", None, (d_lo, 0.0), "exact")
    assert finding.epsilon_lower is None and finding.delta_lower == d_lo
    assert finding.parameters["epsilon_upper"] is None and "sweep" not in finding.parameters
    assert finding.plot_data == {"kind": "dpsgd-bracket", "eps": 3.0, "delta": 0.0, "delta_bracket": (d_lo, 0.0),
                                 "eps_bracket": None, "tight": True}
    if verdict == NOT_REFUTED:
        assert finding.notes[-1] == ("undecided: the certified bracket delta(3) in [0, 0] contains the claimed "
                                     "delta 0; a claim below the lower bound would be refuted")


def test_a_sweep_replaces_the_plot_and_is_recorded(stub):
    fake = stub()
    asked = []

    def accountant(run, delta):
        asked.append((run, delta))
        return run.noise_multiplier

    finding = _finding(ApproxDP(1.6, 1e-5), sweep=3, knot=0.25, accountants={"mine": accountant})
    assert finding.parameters["sweep"] == 3 and finding.plot_data["kind"] == "dpsgd-sweep"
    assert finding.plot_data["claim"] == (1.0, 1.6)  # the claim at the run's own noise multiplier
    assert finding.plot_data["accountants"] == {"mine": [0.5, 1.0, 2.0]}
    assert [call[1:] for call in fake.calls] == [(1e-5, 1.6, 0.25)] + [(1e-5, None, 0.25)] * 3
    assert [run.noise_multiplier for run, _ in asked] == [0.5, 1.0, 2.0]
    assert "sweep" not in _finding(ApproxDP(1.6, 1e-5), sweep=0).parameters


def test_scaling_multiplies_every_noise_multiplier_and_keeps_the_rest():
    assert scaled(POISSON, 2.0) == DPSGDConfig(PoissonBatches(0.01), 2.0, steps=1000)
    assert scaled(SHUFFLED, 0.5) == DPSGDConfig(ShuffledBatches(10, 200), 0.4, epochs=2, relation="zero-out")
    fixed = DPSGDConfig(FixedSizeBatches(10, 100), 1.0, epochs=3, relation="replace-one")  # steps: 30
    assert scaled(fixed, 3.0) == DPSGDConfig(FixedSizeBatches(10, 100), 3.0, steps=30, relation="replace-one")
    composed = scaled(ComposedDPSGD((POISSON_ZERO, SHUFFLED)), 2.0)
    assert [p.noise_multiplier for p in composed.parts] == [2.0, 1.6] and composed.parts[1].epochs == 2


def test_the_poisson_run_an_accountant_models_has_the_nominal_rate_the_steps_and_add_remove():
    assert as_poisson(POISSON) is None
    assert as_poisson(SHUFFLED) == DPSGDConfig(PoissonBatches(0.05), 0.8, steps=40)  # zero-out -> add-remove
    replace = DPSGDConfig(FixedSizeBatches(25, 100), 1.5, steps=7, relation="replace-one")
    assert as_poisson(replace) == DPSGDConfig(PoissonBatches(0.25), 1.5, steps=7, relation="replace-one")
    assert as_poisson(DPSGDConfig(BallsAndBins(8), 1.0, epochs=2)) == DPSGDConfig(PoissonBatches(0.125), 1.0,
                                                                                   steps=16)
    full = DPSGDConfig(ShuffledBatches(5, 5), 1.0, epochs=1, relation="replace-one")
    assert as_poisson(full) == DPSGDConfig(PoissonBatches(1.0), 1.0, steps=1, relation="replace-one")
    # a composition's Poisson part stays, about add-remove with the others (a zero-out composition with a Poisson
    # part once made a composition of two relations, which ComposedDPSGD refuses: rdp_epsilon and the sweep raised)
    composed = as_poisson(ComposedDPSGD((POISSON_ZERO, SHUFFLED)))
    assert composed == ComposedDPSGD((DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000), as_poisson(SHUFFLED)))
    by_epochs = DPSGDConfig(PoissonBatches(0.25), 2.0, epochs=2, relation="zero-out")  # steps and epochs both set
    assert as_poisson(ComposedDPSGD((by_epochs, SHUFFLED))).parts[0] == DPSGDConfig(PoissonBatches(0.25), 2.0, steps=8)
    replace = ComposedDPSGD((DPSGDConfig(PoissonBatches(0.1), 1.0, steps=5, relation="replace-one"),
                             DPSGDConfig(ShuffledBatches(10, 100), 1.0, epochs=1, relation="replace-one")))
    assert as_poisson(replace).parts[0] is replace.parts[0]
    assert as_poisson(ComposedDPSGD((POISSON, POISSON))) is None
    assert as_poisson(ComposedDPSGD((POISSON_ZERO, POISSON_ZERO))) is None


def _dp_accounting_epsilon(parts, delta, relation):
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    accountant = rdp_privacy_accountant.RdpAccountant(neighboring_relation=relation)
    for rate, z, steps in parts:
        event = dp_event.GaussianDpEvent(z)
        accountant.compose(event if rate == 1 else dp_event.PoissonSampledDpEvent(rate, event), steps)
    return accountant.get_epsilon(delta)


def test_the_rdp_epsilon_is_dp_accountings_for_the_run_as_poisson():
    from dp_accounting import NeighboringRelation

    add, replace = NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_ONE
    assert rdp_epsilon(POISSON, 1e-5) == _dp_accounting_epsilon([(0.01, 1.0, 1000)], 1e-5, add)
    assert rdp_epsilon(SHUFFLED, 1e-5) == _dp_accounting_epsilon([(0.05, 0.8, 40)], 1e-5, add)
    replace_one = DPSGDConfig(FixedSizeBatches(25, 100), 1.5, steps=7, relation="replace-one")
    assert rdp_epsilon(replace_one, 1e-3) is None  # dp-accounting has no Poisson sampling under replace-one
    full = DPSGDConfig(ShuffledBatches(5, 5), 2.0, epochs=3, relation="replace-one")  # no sampling: it has that
    assert rdp_epsilon(full, 1e-5) == _dp_accounting_epsilon([(1.0, 2.0, 3)], 1e-5, replace)
    both = ComposedDPSGD((POISSON_ZERO, SHUFFLED))  # zero-out accounted as add-remove
    assert rdp_epsilon(both, 1e-5) == _dp_accounting_epsilon([(0.01, 1.0, 1000), (0.05, 0.8, 40)], 1e-5, add)
    assert rdp_epsilon(POISSON, -1.0) is None  # dp-accounting refuses the delta: no answer, not an error


def test_the_sweep_asks_the_certified_bracket_and_each_accountant_at_each_noise_multiplier(stub):
    fake = stub(eps_lower=1.0, eps_upper=2.0)
    data = noise_sweep(SHUFFLED, 1.3, 1e-5, 3, knot=0.5,
                       accountants={"half": lambda run, delta: run.noise_multiplier / 2,
                                    "fails": lambda run, delta: 1 / 0})
    factors = np.geomspace(0.5, 2.0, 3)
    assert data == {"kind": "dpsgd-sweep", "z": (0.8 * factors).tolist(), "delta": 1e-5, "claim": (0.8, 1.3),
                    "sampler": SHUFFLED.describe()[:80],
                    "bands": {"certified, shuffle batches": ([1.0] * 3, [2.0] * 3),
                              "certified, Poisson at the same rate": ([1.0] * 3, [2.0] * 3)},
                    "accountants": {"half": (0.4 * factors).tolist(), "fails": [None] * 3}}
    assert len(SHUFFLED.describe()) > 80
    assert [call[0] for call in fake.calls] == ([scaled(SHUFFLED, f) for f in factors]
                                                + [scaled(as_poisson(SHUFFLED), f) for f in factors])
    assert {call[1:] for call in fake.calls} == {(1e-5, None, 0.5)}


def test_a_poisson_sweep_has_one_band_and_at_least_two_points_and_a_composition_sweeps_its_first_multiplier(stub):
    stub()
    data = noise_sweep(POISSON, None, 1e-5, 1, accountants={"none": lambda run, delta: None})
    assert data["claim"] is None and data["z"] == [0.5, 2.0] and list(data["bands"]) == ["certified, poisson batches"]
    assert data["accountants"] == {"none": [None, None]} and data["sampler"] == POISSON.describe()[:80]
    composed = ComposedDPSGD((SHUFFLED, POISSON_ZERO), label="two runs")
    data = noise_sweep(composed, 2.0, 1e-5, 2.7, accountants={"one": lambda run, delta: 1})
    assert data["z"] == [0.4, 1.6] and data["claim"] == (0.8, 2.0) and data["sampler"] == "two runs"
    assert list(data["bands"]) == ["certified, poisson + shuffle batches", "certified, Poisson at the same rate"]
    assert data["accountants"] == {"one": [1.0, 1.0]} and isinstance(data["accountants"]["one"][0], float)


def test_the_default_accountant_is_dp_accountings_rdp_as_poisson(stub):
    stub()
    data = noise_sweep(POISSON, 1.8, 1e-5, 2)
    assert data["accountants"] == {"dp-accounting RDP (as Poisson)": [rdp_epsilon(scaled(POISSON, f), 1e-5)
                                                                      for f in (0.5, 2.0)]}


def test_an_accountants_failure_or_non_finite_answer_is_a_gap():
    def raising(run, delta):
        raise ArithmeticError("diverged")

    assert dpsgd._accounted(raising, POISSON, 1e-5) is None
    for value in (None, math.nan, math.inf, -math.inf):
        assert dpsgd._accounted(lambda run, delta, v=value: v, POISSON, 1e-5) is None
    assert dpsgd._accounted(lambda run, delta: np.float32(1.5), POISSON, 1e-5) == 1.5
    assert type(dpsgd._accounted(lambda run, delta: 2, POISSON, 1e-5)) is float


def test_the_datasets_behind_a_lower_bound_in_words():
    tail = ("; the query each step (any function of norm at most the clip norm, chosen adaptively, as DP-SGD's "
            "gradients may be) gives every other example the same value, named in the pair")
    expected = {"add-remove": "one has an example the other lacks",
                "zero-out": "one example's clipped gradient is replaced by 0",
                "replace-one": "one example's clipped gradient is replaced by its negative"}
    for relation, change in expected.items():
        run = DPSGDConfig(PoissonBatches(0.1), 1.0, steps=2, relation=relation)
        assert dpsgd._datasets(run) == f"two datasets of which {change}{tail}"
    assert dpsgd._datasets(ComposedDPSGD((SHUFFLED,))) == dpsgd._datasets(SHUFFLED)


def test_the_certification_details_are_made_json_safe():
    assert dpsgd._jsonable({1: (math.inf, -math.inf, math.nan), "a": [{"b": 2.5}], "c": "d", "e": None, "f": 3}) == {
        "1": ["inf", "-inf", "nan"], "a": [{"b": 2.5}], "c": "d", "e": None, "f": 3}
    assert dpsgd._sampler_label(ComposedDPSGD((SHUFFLED, POISSON_ZERO, SHUFFLED))) == "poisson + shuffle batches"
