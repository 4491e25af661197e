"""Suite entries, discovery and selection."""

from __future__ import annotations

import pytest

from dpaudit import PureDP, SelectionError
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.suite import PrivacyEntry, Suite, load_suites, select


def entry(id="my-suite/a", **kw):
    kw = {"subject": LaplaceMechanism(1.0), "claim": PureDP(1.0), "pairs": [(0, 1)], **kw}
    return PrivacyEntry(id, **kw)


def test_expected_refutation_needs_a_reason_and_a_footing():
    with pytest.raises(ValueError, match="reason"):
        entry(expected="refuted", footing="as printed")
    with pytest.raises(ValueError, match="expected"):
        entry(expected="verified")
    with pytest.raises(ValueError, match="needs a footing"):
        entry(expected="refuted", reason="known bug")
    with pytest.raises(ValueError, match="needs a footing"):
        entry(expected={"quick": "not-refuted", "paper": "refuted"}, reason="known bug")
    with pytest.raises(ValueError, match="footing must be one of"):
        entry(expected="refuted", reason="known bug", footing="as read")
    refuted = entry(expected="refuted", reason="known bug", footing="proof step")
    assert refuted.expected == "refuted" and refuted.describe()["footing"] == "proof step"
    # another reading of the same text may say what it stands on without expecting a refutation
    assert entry(footing="as reconstructed from damaged text").expected == "not-refuted"


def test_the_record_carries_the_footing():
    import numpy as np

    from dpaudit.api.records import assemble_record
    from dpaudit.suite import RunContext

    refuted = entry(expected="refuted", reason="known bug", footing="typo evident")
    ctx = RunContext(run_seed=0, budget="quick", alpha=0.01, seed_sequence=np.random.SeedSequence(0))
    record = assemble_record(refuted.audit(ctx), entry=refuted, run=ctx)
    assert record.expected == {"verdict": "refuted", "reason": "known bug", "footing": "typo evident"}
    assert record.to_dict()["expected"]["footing"] == "typo evident"


def test_an_instance_outside_the_hypotheses_says_which_hypothesis_and_the_record_keeps_it():
    import numpy as np

    from dpaudit.api.records import assemble_record
    from dpaudit.suite import RunContext

    with pytest.raises(ValueError, match="needs `hypothesis`"):
        entry(expected="refuted", reason="fails for probit", footing="hypothesis not met")
    with pytest.raises(ValueError, match="needs `hypothesis`"):
        entry(expected="refuted", reason="fails for probit", footing="hypothesis not met", hypothesis=" ")
    with pytest.raises(ValueError, match="goes with footing 'hypothesis not met' only"):
        entry(expected="refuted", reason="known bug", footing="as printed", hypothesis="canonical links")
    outside = entry(expected="refuted", reason="fails for probit", footing="hypothesis not met",
                    hypothesis="stated for canonical exponential families; probit is not one")
    assert outside.describe()["hypothesis"].startswith("stated for canonical")
    ctx = RunContext(run_seed=0, budget="quick", alpha=0.01, seed_sequence=np.random.SeedSequence(0))
    record = assemble_record(outside.audit(ctx), entry=outside, run=ctx)
    assert record.expected == {"verdict": "refuted", "reason": "fails for probit", "footing": "hypothesis not met",
                               "hypothesis": "stated for canonical exponential families; probit is not one"}


def test_every_expected_refutation_in_the_suites_states_its_footing():
    """The built-in suites' findings each say what they stand on; the two that rest on a reading of
    garbled text have the other reading as an entry beside them, named in the reason."""
    from dpaudit.suite import FOOTINGS

    entries = {e.id: e for s in load_suites().values() for e in s.entries}
    findings = [e for e in entries.values() if "refuted" in e._expected.values()]
    assert findings and all(e.footing in FOOTINGS for e in findings)
    damaged = sorted(e.id for e in findings if e.footing == "as reconstructed from damaged text")
    assert len(damaged) == 5
    for claim_id in damaged:
        # the other reading: an entry of the same claim (ids equal up to the point) named in the reason
        name = claim_id.partition("@")[0]
        others = [i for i in entries if i != claim_id and i.partition("@")[0] == name and i in entries[claim_id].reason]
        assert others and all(entries[i].expected == "not-refuted" for i in others), claim_id


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
    laplace = ["classic/laplace-eps1", "classic/laplace-eps1-blackbox"]
    assert [e.id for e in select(suites, ["classic/laplace-eps1*"])] == laplace
    assert [e.id for e in select(suites, ["CLASSIC/LAPLACE-EPS1"])] == ["classic/laplace-eps1"]
    with pytest.raises(SelectionError, match="no encoded claims yet"):
        # a paper whose suite has no claims yet
        select({**suites, "concurrent-shuffle": Suite("concurrent-shuffle", "t")}, ["concurrent-shuffle"])
    prop1 = ["dist-mab/prop1@mgf,var102400", "dist-mab/prop1@tail,var102400"]
    assert [e.id for e in select(suites, ["dist-mab/prop1"])][:2] == prop1
    with pytest.raises(SelectionError, match="matches no claim"):
        select(suites, ["nothing/here"])


def test_bad_suite_paths(tmp_path):
    with pytest.raises(SelectionError, match="does not exist"):
        load_suites([str(tmp_path / "missing.py")])
    (tmp_path / "nosuite.py").write_text("x = 1\n")
    with pytest.raises(SelectionError, match="defines no") as error:
        load_suites([str(tmp_path / "nosuite.py")])
    # named by the file the user gave, not by the module name it is loaded under
    assert str(error.value).startswith(f"suite file {tmp_path / 'nosuite.py'} defines no")
    assert "_dpaudit_user_suite_" not in str(error.value)
    (tmp_path / "wrongsuite.py").write_text("suite = 'my-suite'\n")
    with pytest.raises(SelectionError, match=r"wrongsuite.py defines no .*\(its `suite` is a str\)"):
        load_suites([str(tmp_path / "wrongsuite.py")])
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

    from dpaudit.core.subjects import subject_name

    def draws(size, rng, n, beta):
        return rng.geometric(beta, (size, n)).sum(1)

    name = "test_bound_samplers_are_named_by_their_parameters.<locals>.draws(n=3, beta=0.123457)"
    assert subject_name(partial(draws, n=3, beta=0.123456789)) == name


def _samplers_defined_in(module) -> list[str]:
    """Names of the samplers ``module`` defines itself: functions whose first parameters are
    ``(size, rng)`` or ``(data, size, rng)``, and classes with a ``sample`` method."""
    import inspect

    found = []
    for name, obj in vars(module).items():
        if getattr(obj, "__module__", None) != module.__name__:
            continue  # imported, not defined here
        if inspect.isclass(obj) and callable(getattr(obj, "sample", None)):
            found.append(f"{module.__name__}.{name} (a class with a sample method)")
        elif inspect.isfunction(obj):
            params = list(inspect.signature(obj).parameters)
            if params[:2] == ["size", "rng"] or params[:3] == ["data", "size", "rng"]:
                found.append(f"{module.__name__}.{name}({', '.join(params)})")
    return found


def test_suite_modules_define_no_samplers():
    """A suite pairs subjects with claims: samplers, releases and laws of subjects live in
    dpaudit.mechanisms (tests and suites import them from there), never in dpaudit.audits."""
    import importlib
    import pkgutil
    import types

    from dpaudit import audits

    modules = [audits] + [importlib.import_module(m.name)
                          for m in pkgutil.walk_packages(audits.__path__, f"{audits.__name__}.")]
    assert len(modules) > 6  # every suite was seen, packages included
    found = [name for module in modules for name in _samplers_defined_in(module)]
    assert not found, f"move these to dpaudit.mechanisms: {found}"

    # the check itself finds each kind of sampler, and only those defined in the module
    probe = types.ModuleType("probe")
    exec("from dpaudit.mechanisms import LaplaceMechanism\n"
         "def noise(size, rng, scale=1.0): return rng.laplace(0.0, scale, size)\n"
         "def mech(data, size, rng): return data + rng.laplace(0.0, 1.0, size)\n"
         "def threshold(t, b): return t * b\n"
         "class Release:\n"
         "    def sample(self, data, size, rng): return rng.random(size)\n", probe.__dict__)
    assert _samplers_defined_in(probe) == ["probe.noise(size, rng, scale)", "probe.mech(data, size, rng)",
                                           "probe.Release (a class with a sample method)"]
