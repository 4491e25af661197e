from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import dpaudit
from dpaudit import (
    ZCDP,
    Accuracy,
    ApproxDP,
    InvalidClaim,
    LowerBound,
    PureDP,
    RegretBound,
    RegretRate,
    RenyiDP,
    SubExponential,
    SubGaussian,
    TailBound,
    parse_claim,
)


@pytest.mark.parametrize(
    ("make", "parameter"),
    [
        (lambda: PureDP(-0.1), "epsilon"),
        (lambda: PureDP(math.nan), "epsilon"),
        (lambda: PureDP(math.inf), "epsilon"),
        (lambda: PureDP("1"), "epsilon"),
        (lambda: ApproxDP(1.0, 1.0), "delta"),
        (lambda: ApproxDP(1.0, -1e-9), "delta"),
        (lambda: ApproxDP(-1.0, 0.0), "epsilon"),
        (lambda: RenyiDP(1.0, 0.5), "alpha"),
        (lambda: RenyiDP(0.5, 0.5), "alpha"),
        (lambda: RenyiDP(2.0, -1.0), "epsilon"),
        (lambda: ZCDP(-1), "rho"),
        (lambda: SubGaussian(0.0), "sigma"),
        (lambda: SubGaussian(-2), "sigma"),
        (lambda: SubExponential(1.0, 0.0), "b"),
        (lambda: SubExponential(0.0, 1.0), "nu"),
        (lambda: Accuracy(-1, 0.1), "alpha"),
        (lambda: Accuracy(1, 1.5), "beta"),
        (lambda: RegretRate(math.inf), "exponent"),
        (lambda: RegretRate(0.5, variable="x"), "variable"),
        (lambda: RegretRate(0.5, log_power=-1), "log_power"),
        (lambda: RegretBound(3.0), "f"),
        (lambda: RegretBound(lambda T: T, probability=1.5), "probability"),
        (lambda: LowerBound("", {}), "statement"),
    ],
)
def test_invalid_parameters_name_the_parameter(make, parameter):
    with pytest.raises(InvalidClaim, match=parameter):
        make()


def test_claims_are_immutable_and_comparable():
    c = PureDP(0.5)
    with pytest.raises(AttributeError):
        c.epsilon = 1.0  # type: ignore[misc]
    assert c == PureDP(0.5) and hash(c) == hash(PureDP(0.5))
    assert ApproxDP(1, 1e-6).to_dict() == {"kind": "approx-dp", "epsilon": 1.0, "delta": 1e-6}


def test_renyi_curve():
    c = RenyiDP((2, 4, math.inf), (0.5, 1.0, 2.0))
    assert c.points == ((2.0, 0.5), (4.0, 1.0), (math.inf, 2.0))
    with pytest.raises(InvalidClaim, match="same"):
        RenyiDP((2, 4), (0.5,))
    with pytest.raises(InvalidClaim, match="both"):
        RenyiDP((2, 4), 0.5)


def test_tail_bound_needs_a_callable_and_describes_it_when_not_told():
    assert TailBound(lambda t: 2 * math.exp(-t * t / 2), "2 exp(-t^2/2)").description == "2 exp(-t^2/2)"
    with pytest.raises(InvalidClaim, match="callable"):
        TailBound(0.5, "x")  # type: ignore[arg-type]
    with pytest.raises(InvalidClaim, match="description"):
        TailBound(lambda t: t, "")
    assert TailBound(lambda t: 2 * np.exp(-t**2 / 2)).description == "lambda t: 2 * np.exp(-t**2 / 2)"

    def gaussian_tail(t):
        return 2 * np.exp(-t**2 / 2)

    assert TailBound(gaussian_tail, two_sided=False).description == "gaussian_tail"
    # two lambdas on one line: which one is the bound is not known from the source, so no text is guessed
    pair = (lambda t: t, lambda t: 2 * t)
    assert TailBound(pair[1]).description == "<lambda>"
    assert TailBound(np.exp).description == "exp"
    result = dpaudit.audit_tail(stats.norm(), TailBound(gaussian_tail), auditor="exact")
    assert result.verdict == "verified"


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("pure-dp eps=0.1", PureDP(0.1)),
        ("pure-dp epsilon=2", PureDP(2)),
        ("approx-dp eps=1 delta=1e-6", ApproxDP(1, 1e-6)),
        ("APPROX-DP delta=0 eps=1", ApproxDP(1, 0)),
        ("renyi-dp alpha=2 eps=0.5", RenyiDP(2, 0.5)),
        ("renyi-dp alpha=2,4 eps=0.5,1", RenyiDP((2, 4), (0.5, 1))),
        ("zcdp rho=0.125", ZCDP(0.125)),
        ("sub-gaussian sigma=1", SubGaussian(1)),
        ("sub-exponential nu=2 b=0.5", SubExponential(2, 0.5)),
    ],
)
def test_parse_claim(text, claim):
    assert parse_claim(text) == claim


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("laplace eps=1", "unknown claim kind"),
        ("pure-dp", "needs epsilon"),
        ("pure-dp eps=", "needs epsilon"),
        ("pure-dp eps=abc", "must be a number"),
        ("pure-dp eps=1 eps=2", "twice"),
        ("pure-dp delta=1", "takes epsilon"),
        ("pure-dp 0.1", "key=value"),
        ("approx-dp eps=1", "needs delta"),
        ("approx-dp eps=1 delta=2", "delta must be in"),
    ],
)
def test_parse_claim_errors(text, message):
    with pytest.raises(InvalidClaim, match=message):
        parse_claim(text)


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False), st.floats(min_value=0, max_value=0.999999))
def test_parse_round_trip(eps, delta):
    assert parse_claim(ApproxDP(eps, delta).describe()) == ApproxDP(eps, delta)
    assert parse_claim(f"pure-dp eps={eps!r}") == PureDP(eps)


def test_public_names():
    for name in ("PureDP", "ApproxDP", "RenyiDP", "ZCDP", "SubGaussian", "SubExponential", "TailBound",
                 "Accuracy", "RegretBound", "RegretRate", "LowerBound", "audit_privacy", "AuditResult"):
        assert hasattr(dpaudit, name)


def test_high_probability_claims_become_their_tail_bound():
    """'w.p. >= 1 - p, |X| <= b log(2/p)' is P(|X| >= t) <= 2 e^{-t/b} (1 where that exceeds 1)."""
    import numpy as np

    from dpaudit import TailBound

    claim = TailBound.high_probability(lambda p: 40 * np.log(2 / p), "40 log(2/p)")
    t = np.array([0.0, 27.0, 28.0, 100.0, 1000.0])
    assert np.allclose(claim.bound(t), np.minimum(2 * np.exp(-t / 40), 1), rtol=1e-12)
    # thresholds infinite outside the admitted p keep the bound at the smallest admitted p
    capped = TailBound.high_probability(lambda p: np.where(p >= 0.01, np.log(1 / p), np.inf), "log(1/p), p >= 0.01")
    assert np.allclose(capped.bound(np.array([1.0, 10.0, 50.0])), [np.exp(-1.0), 0.01, 0.01], rtol=1e-9)


def test_accuracy_claims_become_their_tail_bound_and_are_decided_exactly():
    """'P(|X| > alpha) <= beta' bounds P(|X| >= t) by beta for t > alpha only. On Bin(100, 1/2)
    centred, P(|X - 50| > 15) = P(|X - 50| >= 16) = 0.00179."""
    import numpy as np

    from dpaudit import TailBound
    from dpaudit.core.errors import InvalidClaim
    from dpaudit.mechanisms.noise import Binomial

    claim = TailBound.accuracy(15, 0.01, centred=True)
    assert np.array_equal(claim.bound(np.array([1.0, 15.0, 15.5, 100.0])), [1.0, 1.0, 0.01, 0.01])
    assert claim.description == "P(|X| > 15) <= 0.01"
    law = Binomial(100, 0.5)
    assert dpaudit.audit_tail(law, claim, auditor="exact").verdict == "verified"
    refuted = dpaudit.audit_tail(law, TailBound.accuracy(15, 0.0017, centred=True), auditor="exact")
    assert refuted.verdict == "refuted" and refuted.witness["tail"] == pytest.approx(0.00178993, rel=1e-5)
    with pytest.raises(InvalidClaim, match="beta"):
        TailBound.accuracy(1.0, 2.0)


def test_regret_rates_parse_and_round_trip():
    assert parse_claim("regret-rate T^0.5 log^1") == RegretRate(0.5, "T", 1.0)
    assert parse_claim("regret-rate eps^-1") == RegretRate(-1.0, "eps")
    for claim in (RegretRate(0.5), RegretRate(2 / 3, "T", 1.5), RegretRate(-1.0, "eps"), RegretRate(0.5, "d")):
        assert parse_claim(claim.describe()) == claim
    assert RegretRate(0.5, log_power=1).to_dict() == {"kind": "regret-rate", "exponent": 0.5, "variable": "T",
                                                       "log_power": 1.0}
    for text, message in [("regret-rate", "variable"), ("regret-rate T", "name"), ("regret-rate log^1 T^0.5", "first"),
                          ("regret-rate T^0.5 K^1", "log"), ("regret-rate x^0.5", "variable"),
                          ("regret-bound 4 sqrt(T)", "Python-only")]:
        with pytest.raises(InvalidClaim, match=message):
            parse_claim(text)


def test_regret_bound_takes_the_named_parameters_it_asks_for():
    import numpy as np

    claim = RegretBound(lambda T, eps, K: K * np.log(T) / eps, "K log T / eps")
    assert claim.parameters == ("eps", "K")
    assert np.allclose(claim.evaluate([1, np.e], {"eps": 0.5, "K": 2, "d": 3}), [0, 4])
    with pytest.raises(ValueError, match="eps"):
        claim.evaluate([10], {"K": 2})
    assert claim.to_dict() == {"kind": "regret-bound", "description": "K log T / eps", "probability": None}
    assert RegretBound(lambda T: T, probability=0.05).probability == 0.05
