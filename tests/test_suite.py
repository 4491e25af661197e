"""Suite entries, discovery and selection."""

from __future__ import annotations

import pytest
from dpaudit.mechanisms import LaplaceMechanism

from dpaudit import PureDP, SelectionError
from dpaudit.suite import PrivacyEntry, Suite, load_suites, select


def entry(id="my-suite/a", **kw):
    kw = {"subject": LaplaceMechanism(1.0), "claim": PureDP(1.0), "pairs": [(0, 1)], **kw}
    return PrivacyEntry(id, **kw)


def test_expected_refutation_needs_a_reason():
    with pytest.raises(ValueError, match="reason"):
        entry(expected="refuted")
    with pytest.raises(ValueError, match="expected"):
        entry(expected="verified")
    assert entry(expected="refuted", reason="known bug").expected == "refuted"


def test_entry_validation():
    with pytest.raises(ValueError, match="auditor"):
        entry(auditor="oracle")
    with pytest.raises(ValueError, match="budgets"):
        entry(samples={"huge": 10})
    with pytest.raises(ValueError, match="timeout"):
        entry(timeout=0)
    with pytest.raises(TypeError, match="claim"):
        entry(claim="pure-dp eps=1")


def test_statistical_flag():
    assert not entry().statistical  # exact distribution and a pure claim
    assert entry(auditor="statistical").statistical
    assert entry(subject=lambda d, n, rng: rng.laplace(d, 1, n)).statistical


def test_suite_rejects_foreign_and_duplicate_ids():
    s = Suite("my-suite", "t")
    s.add(entry())
    with pytest.raises(ValueError, match="already"):
        s.add(entry("my-suite/A"))  # ids compare case-insensitively
    with pytest.raises(ValueError, match="does not belong"):
        s.add(entry("other/a"))


def test_discovery_and_selection(suites_dir):
    suites = load_suites([str(suites_dir / "broken.py")])
    assert {"classic", "testing-broken"} <= set(suites)
    ids = [e.id for e in select(suites, ["testing-broken"])]
    assert ids == ["testing-broken/raises", "testing-broken/correct", "testing-broken/overclaimed"]
    assert [e.id for e in select(suites, ["classic/laplace-eps1*"])] == ["classic/laplace-eps1", "classic/laplace-eps1-blackbox"]
    assert [e.id for e in select(suites, ["CLASSIC/LAPLACE-EPS1"])] == ["classic/laplace-eps1"]
    with pytest.raises(SelectionError, match="no encoded claims yet"):
        # a paper whose suite has no claims yet
        select({**suites, "concurrent-shuffle": Suite("concurrent-shuffle", "t")}, ["concurrent-shuffle"])
    assert [e.id for e in select(suites, ["dist-mab/prop1"])][:2] == ["dist-mab/prop1@mgf,var102400", "dist-mab/prop1@tail,var102400"]
    with pytest.raises(SelectionError, match="matches no claim"):
        select(suites, ["nothing/here"])


def test_bad_suite_paths(tmp_path):
    with pytest.raises(SelectionError, match="does not exist"):
        load_suites([str(tmp_path / "missing.py")])
    (tmp_path / "nosuite.py").write_text("x = 1\n")
    with pytest.raises(SelectionError, match="defines no"):
        load_suites([str(tmp_path / "nosuite.py")])
    (tmp_path / "boom.py").write_text("raise RuntimeError('boom')\n")
    with pytest.raises(SelectionError, match="boom"):
        load_suites([str(tmp_path / "boom.py")])


def test_classic_suite_has_the_required_entries():
    ids = {e.id for e in load_suites()["classic"].entries}
    assert {"classic/laplace-eps0.1", "classic/laplace-eps1", "classic/laplace-scale-eps",
            "classic/discrete-laplace-eps1"} <= ids
    scale_bug = next(e for e in load_suites()["classic"].entries if e.id == "classic/laplace-scale-eps")
    assert scale_bug.expected == "refuted" and "10" in scale_bug.reason and scale_bug.claim == PureDP(0.1)


def test_bound_samplers_are_named_by_their_parameters():
    """A sampler with bound parameters is listed by name and values, never by memory address."""
    from functools import partial

    from dpaudit.subjects import subject_name

    def draws(size, rng, n, beta):
        return rng.geometric(beta, (size, n)).sum(1)

    assert subject_name(partial(draws, n=3, beta=0.123456789)) == "test_bound_samplers_are_named_by_their_parameters.<locals>.draws(n=3, beta=0.123457)"
