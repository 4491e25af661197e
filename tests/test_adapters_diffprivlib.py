"""dpaudit.adapters.diffprivlib: claims read from the parameters, exact laws with a conformance audit,
black-box audits of the rest, reproducible from the audit's seed through the RandomState bridge.

Conformance audits run at alpha = 1e-6 (a correct library fails one with at most that probability);
black-box privacy audits at confidence 0.99; every seed is fixed, so each verdict below is fixed too.
The tests are skipped one by one, with the reason, where diffprivlib is not installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpaudit
from dpaudit.adapters import audit

adapt = dpaudit.adapters.diffprivlib
SMALL = {"samples": 20_000, "conformance_samples": 20_000, "seed": 0}
NOT_INSTALLED = "diffprivlib is not installed: pip install 'dpaudit[diffprivlib]'"


@pytest.fixture
def mechanisms():
    """diffprivlib's mechanisms, or this test skipped (diffprivlib is an optional extra)."""
    return pytest.importorskip("diffprivlib.mechanisms", reason=NOT_INSTALLED)


@pytest.fixture
def tools():
    """diffprivlib's tools, or this test skipped."""
    return pytest.importorskip("diffprivlib.tools", reason=NOT_INSTALLED)


def test_laplace_is_verified_exactly_and_its_samples_conform(mechanisms):
    subject = adapt(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0), n_jobs=1)
    assert subject.claim == dpaudit.PureDP(1.0) and subject.white_box
    assert subject.relation == dpaudit.QueryDistance(1.0) and subject.pairs == [(0, 1.0)]
    res = audit(subject, **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    assert [r.verdict for r in res.conformance] == ["not-refuted", "not-refuted"] and res.inputs == [0, 1.0]
    assert "verified" in str(res).splitlines()[0]


def test_a_sensitivity_set_too_low_is_refuted_exactly_on_the_querys_real_neighbours(mechanisms):
    # the mechanism was told sensitivity 0.5, the query moves by 1: its loss on (0, 1) is 2 > 1
    subject = adapt(mechanisms.Laplace(epsilon=1.0, sensitivity=0.5), n_jobs=1)
    res = audit(subject, pairs=[(0, 1)], neighbours=dpaudit.QueryDistance(1.0), **SMALL)
    assert res.verdict == "refuted" and res.privacy.auditor == "exact"
    assert res.privacy.epsilon_lower == pytest.approx(2.0)
    with pytest.raises(dpaudit.NotNeighbours):  # the mechanism's own relation does not admit the pair
        audit(subject, pairs=[(0, 1)], **SMALL)


def test_samples_that_do_not_follow_the_stated_law_fail_conformance(mechanisms):
    """Power: a Laplace whose draws are 20% too narrow (its privacy is then 1.25, not 1) while its
    parameters state scale 1. The exact privacy of the stated law holds; the samples are refuted."""
    mech = mechanisms.Laplace(epsilon=1.0, sensitivity=1.0)
    narrow = mechanisms.Laplace._laplace_sampler
    mech._laplace_sampler = lambda *u: 0.8 * narrow(*u)
    res = audit(adapt(mech, n_jobs=1), **SMALL)
    assert res.privacy.verdict == "verified"
    assert res.verdict == "refuted" and {r.verdict for r in res.conformance} == {"refuted"}


def test_approximate_dp_at_delta_1e_5_is_decided_exactly(mechanisms):
    gauss = adapt(mechanisms.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0), n_jobs=1)
    assert gauss.claim == dpaudit.ApproxDP(1.0, 1e-5)
    res = audit(gauss, **SMALL)
    assert res.privacy.auditor == "exact" and res.verdict in ("verified", "not-refuted")
    assert res.privacy.statistic.interval[1] <= 1e-5 * (1 + 1e-6)  # the library's sigma gives its delta
    # a claim at a tenth of the delta is refuted exactly
    tighter = audit(gauss, claim=dpaudit.ApproxDP(1.0, 1e-6), **SMALL)
    assert tighter.verdict == "refuted" and tighter.privacy.auditor == "exact"


def test_laplace_with_delta_is_scaled_as_the_library_scales_it(mechanisms):
    subject = adapt(mechanisms.Laplace(epsilon=1.0, delta=0.01, sensitivity=1.0), n_jobs=1)
    assert subject.claim == dpaudit.ApproxDP(1.0, 0.01)
    res = audit(subject, **SMALL)
    assert res.verdict == "verified"  # scale 1 / (1 - log 0.99): pure DP at 1.01, delta(1) = 0.005 < 0.01


@pytest.mark.slow
def test_geometric_and_its_truncation_are_exact_laws(mechanisms):
    geo = audit(adapt(mechanisms.Geometric(epsilon=0.5, sensitivity=1), n_jobs=1), **SMALL)
    assert geo.verdict == "verified" and len(geo.conformance) == 2
    clamp = adapt(mechanisms.GeometricTruncated(epsilon=1.0, sensitivity=1, lower=0, upper=5), n_jobs=1)
    assert clamp.pairs == [(0, 1), (4, 5)]
    law = clamp.distribution(0)
    assert law.probs.sum() == pytest.approx(1.0) and law.probs[0] == pytest.approx(1 / (1 + math.exp(-1)))
    res = audit(clamp, **SMALL)
    assert res.privacy.auditor == "exact" and res.verdict != "refuted" and len(res.conformance) == 4


def test_binary_labels_are_coded_and_audited_exactly(mechanisms):
    subject = adapt(mechanisms.Binary(epsilon=1.0, value0="0", value1="1"), n_jobs=1)
    assert subject.pairs == [("0", "1")] and subject.relation is None
    codes = subject.sample("1", 1000, np.random.default_rng(0))
    assert set(np.unique(codes)) == {0, 1} and codes.mean() == pytest.approx(math.e / (1 + math.e), abs=0.05)
    res = audit(subject, **SMALL)
    assert res.privacy.auditor == "exact" and res.verdict == "not-refuted"  # epsilon = 1 up to rounding
    over = audit(subject, claim=dpaudit.PureDP(0.9), **SMALL)
    assert over.verdict == "refuted"


@pytest.mark.slow
def test_the_exponential_mechanisms_strongest_pair_is_among_the_default_pairs(mechanisms):
    subject = adapt(mechanisms.Exponential(epsilon=1.0, sensitivity=1.0, utility=[0, 6, 6]), n_jobs=1)
    assert ([0.0, 6.0, 6.0], [1.0, 5.0, 5.0]) in subject.pairs
    res = audit(subject, **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    # the exact loss on the pairs reaches most of epsilon (one utility up, the others down)
    assert res.privacy.epsilon_lower > 0.95


def _permute_and_flip_by_every_order(utility, epsilon, sensitivity, monotonic=False):
    """Permute-and-flip's output law summed over every order of the candidates (n! of them), as the library
    runs it: candidate j kept with probability exp(eps (u_j - max u) / ((2 - monotonic) s)) when reached."""
    import itertools

    u = np.asarray(utility, dtype=float)
    keep = np.exp(epsilon * (u - u.max()) / ((2 - monotonic) * sensitivity))
    law = np.zeros(u.size)
    orders = list(itertools.permutations(range(u.size)))
    for order in orders:
        reach = 1.0
        for j in order:
            law[j] += reach * keep[j] / len(orders)
            reach *= 1 - keep[j]
    return law


@pytest.mark.parametrize("utility, monotonic", [([0.0, 2.0, 2.5, 1.0, 0.3], False), ([1.0, 1.0, 0.0, 4.0], True),
                                                ([3.0, 3.0, 3.0], False), ([0.0], False)])
def test_permute_and_flip_has_its_law_over_every_order(mechanisms, utility, monotonic):
    """The adapter's law (elementary symmetric sums) against the sum over all n! orders, ties and a single
    candidate included: equal to 1e-15."""
    from dpaudit.adapters._diffprivlib import _permute_and_flip_probs

    mech = mechanisms.PermuteAndFlip(epsilon=1.3, sensitivity=0.7, utility=[0, 1], monotonic=monotonic)
    expected = _permute_and_flip_by_every_order(utility, 1.3, 0.7, monotonic)
    np.testing.assert_allclose(_permute_and_flip_probs(mech)(utility), expected, rtol=0, atol=1e-15)


@pytest.mark.slow
def test_permute_and_flip_is_audited_exactly_its_samples_conform_and_a_smaller_claim_is_refuted(mechanisms):
    """An exact law: the privacy audit is exact on the default pairs (one utility up by the sensitivity, the
    others down), where permute-and-flip's loss is its epsilon itself (not refuted: epsilon = 1 up to the
    law's rounding, as for Laplace), the library's samples follow the law (conformance at alpha = 1e-6), and
    epsilon = 0.9 is refuted with certainty."""
    mech = mechanisms.PermuteAndFlip(epsilon=1.0, sensitivity=1.0, utility=[0.0, 1.0, 3.0, 3.5])
    subject = adapt(mech, n_jobs=1)
    assert subject.white_box and subject.claim == dpaudit.PureDP(1.0)
    res = audit(subject, **SMALL)
    assert res.verdict == "not-refuted" and res.privacy.auditor == "exact"
    assert res.privacy.epsilon_lower == pytest.approx(1.0, abs=1e-9)
    assert res.conformance and [r.verdict for r in res.conformance] == ["not-refuted"] * len(res.conformance)
    below = audit(subject, claim=dpaudit.PureDP(0.9), **SMALL)
    assert below.verdict == "refuted" and below.privacy.auditor == "exact"


@pytest.mark.slow
def test_permute_and_flip_told_half_its_sensitivity_is_refuted_on_the_querys_real_neighbours(mechanisms):
    """A permute-and-flip calibrated for sensitivity 0.5 on utilities that move by 1 between neighbours (the
    calibration bug): its exact loss on the real neighbours exceeds the claimed epsilon."""
    from dpaudit.adapters._diffprivlib import _exponential_pairs

    utility = [0.0, 1.0, 3.0, 3.5]
    subject = adapt(mechanisms.PermuteAndFlip(epsilon=1.0, sensitivity=0.5, utility=utility), n_jobs=1)
    res = audit(subject, pairs=_exponential_pairs(utility, 1.0), neighbours=dpaudit.QueryDistance(1.0), **SMALL)
    assert res.verdict == "refuted" and res.privacy.auditor == "exact" and res.privacy.epsilon_lower > 1.0


@pytest.mark.slow
def test_mechanisms_without_a_known_law_are_audited_black_box_from_their_claimed_epsilon(mechanisms):
    folded = mechanisms.Snapping(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0)
    subject = adapt(folded, n_jobs=1)
    assert subject.claim == dpaudit.PureDP(1.0) and not subject.white_box
    res = audit(subject, **SMALL)
    assert res.privacy.auditor == "black-box" and res.verdict == "not-refuted" and not res.conformance
    # the RandomState bridge: the same seed draws the same samples, so the same bound
    again = audit(adapt(folded, n_jobs=1), **SMALL)
    assert again.privacy.epsilon_lower == res.privacy.epsilon_lower
    assert "not reproducible" not in " ".join(res.privacy.notes)


def test_the_folded_laplace_is_verified_exactly_below_its_epsilon_and_its_samples_conform(mechanisms):
    """Its law: Laplace noise reflected at the bounds (a sum of two exponentials on each side of the input); the
    exact loss on the default pairs (0, 1) and (1, 2) is 0.8912 < 1 (folding is post-processing, and the mass
    folded back flattens both laws), so epsilon = 0.85 is refuted exactly; the library's draws follow the law."""
    subject = adapt(mechanisms.LaplaceFolded(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0), n_jobs=1)
    assert subject.white_box and subject.pairs == [(0.0, 1.0), (1.0, 2.0)]
    res = audit(subject, **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    assert res.privacy.epsilon_lower == pytest.approx(0.8912219168748372, abs=1e-15)
    assert [r.verdict for r in res.conformance] == ["not-refuted"] * 3
    assert audit(subject, claim=dpaudit.PureDP(0.85), **SMALL).verdict == "refuted"


def test_a_folded_laplace_that_clamps_instead_fails_conformance(mechanisms):
    """Power of the conformance audit on the folded law: draws clamped at the bounds (LaplaceTruncated's sampler,
    the folding/clamping confusion) put atoms where the folded law has none, and are refuted."""
    subject = adapt(mechanisms.LaplaceFolded(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0), n_jobs=1)
    subject.sampler = adapt(mechanisms.LaplaceTruncated(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0),
                            n_jobs=1).sampler
    res = audit(subject, **SMALL)
    assert res.privacy.verdict == "verified" and res.verdict == "refuted"
    assert all(r.verdict == "refuted" for r in res.conformance)


def test_the_folded_geometric_is_exact_with_integer_pairs_for_half_integer_bounds(mechanisms):
    subject = adapt(mechanisms.GeometricFolded(epsilon=0.5, sensitivity=1, lower=-0.5, upper=3.5), n_jobs=1)
    assert subject.white_box and subject.pairs == [(0, 1), (2, 3)]
    assert subject.distribution(0).outcomes.tolist() == [0, 1, 2, 3]
    res = audit(subject, **{**SMALL, "conformance_samples": 5_000})  # the library checks its bounds per draw: slow
    assert res.verdict == "verified" and res.privacy.auditor == "exact" and res.privacy.epsilon_lower < 0.5
    assert [r.verdict for r in res.conformance] == ["not-refuted"] * 4


@pytest.mark.slow
def test_the_discrete_gaussians_calibration_overshoots_its_delta_by_a_millionth(mechanisms):
    """A finding, reproduced exactly: GaussianDiscrete(epsilon=0.5, delta=1e-5) takes sigma = 7.0309505 from a
    bisection that stops at a relative width 1e-6 and returns the midpoint, below the root: its true delta(0.5)
    (Canonne, Kamath & Steinke, Theorem 7) is 1.0000089e-5 > 1e-5, so the claim as the library states it is
    refuted by the exact audit, by less than a millionth of delta. The library's draws follow the law."""
    subject = adapt(mechanisms.GaussianDiscrete(epsilon=0.5, delta=1e-5, sensitivity=1), n_jobs=1)
    assert subject.white_box and subject.claim == dpaudit.ApproxDP(0.5, 1e-5)
    res = audit(subject, **SMALL)
    assert res.privacy.auditor == "exact" and res.privacy.verdict == "refuted"
    low, high = res.privacy.statistic.interval
    assert 1e-5 < low <= high < 1e-5 * (1 + 1e-6)
    assert [r.verdict for r in res.conformance] == ["not-refuted"] * 2
    assert audit(subject, claim=dpaudit.ApproxDP(0.5, 1.00001e-5), **SMALL).privacy.verdict == "verified"


@pytest.mark.slow
def test_the_bounded_domain_laplace_is_verified_exactly_and_its_effective_epsilon_refuted(mechanisms):
    """Its law: the library's widened scale, noise conditioned on the range; exact epsilon 1 (to the
    rounding of the library's bisection), while effective_epsilon() = sensitivity / scale is 0.71."""
    bounded = mechanisms.LaplaceBoundedDomain(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=2.0)
    subject = adapt(bounded, n_jobs=1)
    assert subject.claim == dpaudit.PureDP(1.0) and subject.white_box  # not effective_epsilon()
    assert subject.pairs == [(0.0, 1.0), (1.0, 2.0)]
    res = audit(subject, **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    assert res.privacy.epsilon_lower == pytest.approx(1.0, abs=1e-9)
    assert [r.verdict for r in res.conformance] == ["not-refuted"] * 3
    reported = audit(subject, claim=dpaudit.PureDP(bounded.effective_epsilon()), **SMALL)
    assert reported.verdict == "refuted" and reported.privacy.auditor == "exact"
    assert bounded.effective_epsilon() == pytest.approx(0.7075, abs=1e-4)


def test_the_truncated_laplace_and_the_staircase_are_audited_exactly(mechanisms):
    truncated = adapt(mechanisms.LaplaceTruncated(epsilon=1.0, delta=0.01, sensitivity=1.0, lower=0.0, upper=5.0),
                      n_jobs=1)
    res = audit(truncated, **SMALL)
    assert res.verdict == "verified" and res.privacy.auditor == "exact"
    # the clamp is post-processing of Laplace at 1 - log(0.99) > 1: delta(1) is exact and below 0.01
    low, high = res.privacy.statistic.interval
    assert high - low < 1e-15 and low == pytest.approx(-math.expm1((1 - (1 - math.log(0.99))) / 2), rel=1e-12)
    assert {t["test"] for t in res.conformance[0].parameters["tests"]} >= {"atom counts"}
    stairs = adapt(mechanisms.Staircase(epsilon=1.0, sensitivity=1.0), n_jobs=1)
    res = audit(stairs, **SMALL)
    assert res.verdict == "verified" and res.privacy.statistic.interval == (1.0, 1.0)
    assert [r.verdict for r in res.conformance] == ["not-refuted"] * 2
    assert audit(stairs, claim=dpaudit.PureDP(0.999), **SMALL).verdict == "refuted"


def test_a_clamped_sampler_with_its_atoms_moved_fails_conformance(mechanisms):
    """Power of the atom-aware conformance tests: a LaplaceTruncated whose bounds are 0.1 tighter than
    the law's (one in about 10 outputs lands on the wrong atom) is refuted; its stated law still verifies."""
    stated = mechanisms.LaplaceTruncated(epsilon=1.0, sensitivity=1.0, lower=0.0, upper=5.0)
    subject = adapt(stated, n_jobs=1)
    tighter = mechanisms.LaplaceTruncated(epsilon=1.0, sensitivity=1.0, lower=0.1, upper=4.9)
    subject.sampler = adapt(tighter, n_jobs=1).sampler
    res = audit(subject, **SMALL)
    assert res.privacy.verdict == "verified" and res.verdict == "refuted"
    assert all(r.verdict == "refuted" for r in res.conformance)


@pytest.mark.slow
def test_a_tool_is_audited_on_datasets_that_differ_in_one_record(tools):
    subject = adapt(tools.mean, epsilon=1.0, bounds=(0, 1), n_jobs=1)
    assert subject.relation == dpaudit.ReplaceOne() and subject.claim == dpaudit.PureDP(1.0)
    res = audit(subject, pairs=[([0, 0, 0, 0], [0, 0, 0, 1])], **SMALL)
    assert res.verdict == "not-refuted" and res.privacy.auditor == "black-box"


@pytest.mark.slow
def test_process_parallel_draws_match_single_process_draws(mechanisms):
    one = adapt(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0), n_jobs=1)
    two = adapt(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0), n_jobs=2)
    a = one.sample(0.0, 9_000, np.random.default_rng(3))
    b = two.sample(0.0, 9_000, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)


def test_bad_arguments_are_clear(mechanisms, tools):
    with pytest.raises(TypeError, match="epsilon"):
        adapt(tools.mean, bounds=(0, 1))
    with pytest.raises(TypeError, match="carries its own parameters"):
        adapt(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0), epsilon=2.0)
    with pytest.raises(TypeError, match="diffprivlib mechanism or tool"):
        adapt(3)
    with pytest.raises(TypeError, match="adapters"):
        audit(mechanisms.Laplace(epsilon=1.0, sensitivity=1.0))
