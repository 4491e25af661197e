"""The public API and the command line fuzzed with malformed and extreme arguments.

What every call must do, whatever it is given: return a record, or raise one clear error, a
:class:`~dpaudit.DpauditError`, ``ValueError`` or ``TypeError`` with a one-line message (naming the argument where
one argument is wrong), within a time limit (``LIMIT`` seconds per call, enforced with SIGALRM; past it the test
fails as a hang), never another exception (an ``IndexError``, a ``KeyError``, a ``ZeroDivisionError`` out of
dpaudit's insides). On the command line: an exit code, never a traceback. A run whose mechanisms raise, return
NaN, return the wrong shape or hang (past ``--timeout``) leaves a results folder that reads back, each such claim
an error record.

Budget: hypothesis draws ``EXAMPLES`` examples per property (``derandomize=True``: the examples are a function of
the test's code, the same on every run, so the test cannot fail by chance; no example database is written), each
call's samples small (at most a few thousand), so the file runs in about half a minute on one core. A property
that fails prints the smallest example hypothesis found.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import dpaudit
from dpaudit.core.errors import AuditTimeout, DpauditError
from dpaudit.runner.time_limits import call_with_time_limit

LIMIT = 20.0  # seconds a single call may take before it counts as a hang
EXAMPLES = 40
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])
ALLOWED = (DpauditError, ValueError, TypeError)


def attempt(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``: its value, or the allowed error it raised; a hang or any other exception fails
    the test with what was called."""
    try:
        return call_with_time_limit(lambda: fn(*args, **kwargs), LIMIT)
    except AuditTimeout:
        pytest.fail(f"{getattr(fn, '__name__', fn)} ran past {LIMIT:g} s on {args!r} {kwargs!r}")
    except ALLOWED as exc:
        message = str(exc).strip()
        assert message, f"{type(exc).__name__} without a message from {getattr(fn, '__name__', fn)}"
        return exc
    except Exception as exc:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{getattr(fn, '__name__', fn)} raised {type(exc).__name__}: {exc} on {args!r} {kwargs!r}")


def names_the_argument(exc: BaseException, *names: str) -> bool:
    text = str(exc).lower()
    return any(name.lower() in text for name in names)


# -- values of every kind ------------------------------------------------------------------------------------------

EXTREME_FLOATS = st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 1e-320, 1e308, -1e308, 0.5])
ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    EXTREME_FLOATS, st.text(max_size=6), st.lists(st.floats(allow_nan=True), max_size=3),
    st.tuples(st.integers(-3, 3), st.floats(allow_nan=True)), st.dictionaries(st.text(max_size=2), st.integers(),
                                                                              max_size=2),
    st.just(object()), st.just(np.array([])), st.just(np.full((2, 2), np.nan)),
)


def laplace(data, size, rng):
    return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size)


# -- one argument malformed at a time ------------------------------------------------------------------------------

def counts(largest: int):
    """Counts a user might pass: small ones that run, and values of every other kind; never a valid count so large
    that drawing it would take long (those are the memory check's, tested elsewhere)."""
    return st.one_of(st.integers(-10, largest),
                     ANYTHING.filter(lambda v: not (isinstance(v, int) and largest < v < 10**15)))


def _bernoulli_bandit():
    from dpaudit.algorithms import BernoulliBandit

    return BernoulliBandit([0.9, 0.8])


#: for each entry point: the function, a call that runs in well under a second, and for each argument the values
#: a user might get wrong (values of every kind, and near misses)
CASES = {
    "audit_privacy": (dpaudit.audit_privacy, {
        "mech": laplace, "claim": dpaudit.PureDP(1.0), "pairs": [(0.0, 1.0)], "samples": 2000, "seed": 0}, {
        "confidence": st.one_of(ANYTHING, st.floats(-2, 2)),
        "samples": counts(3000),
        "seed": ANYTHING,
        "pairs": st.one_of(ANYTHING, st.lists(st.tuples(ANYTHING, ANYTHING), max_size=2),
                           st.lists(st.lists(EXTREME_FLOATS, max_size=3), max_size=2)),
        "auditor": st.one_of(ANYTHING, st.sampled_from(["auto", "exact", "statistical", "nope", ""])),
        "events": st.one_of(ANYTHING, st.lists(st.text(max_size=6), max_size=2)),
        "claim": st.one_of(ANYTHING, st.sampled_from(["pure-dp eps=1", dpaudit.PureDP, dpaudit.SubGaussian(1.0)])),
        "selection_fraction": st.one_of(ANYTHING, st.floats(-1, 2)),
        "tolerance": ANYTHING,
        "statistic": st.one_of(ANYTHING, st.just(lambda x: "text"), st.just(lambda x: x[:0])),
        "neighbours": st.one_of(ANYTHING, st.just("add-remove")),
        "sequential": ANYTHING,
    }),
    "audit_tail": (dpaudit.audit_tail, {
        "dist_or_sampler": stats.norm(), "claim": dpaudit.SubGaussian(1.0), "samples": 2000, "seed": 0}, {
        "dist_or_sampler": st.one_of(ANYTHING, st.sampled_from([stats.cauchy(), stats.binom(10, 0.5)])),
        "claim": st.one_of(ANYTHING, st.just(dpaudit.PureDP(1.0))),
        "confidence": ANYTHING,
        "samples": counts(3000),
        "seed": ANYTHING,
        "auditor": ANYTHING,
        "tolerance": ANYTHING,
    }),
    "audit_sampler": (dpaudit.audit_sampler, {
        "sampler": lambda n, rng: rng.binomial(10, 0.5, n).astype(float), "reference": stats.binom(10, 0.5),
        "samples": 2000, "seed": 0}, {
        "reference": st.one_of(ANYTHING, st.sampled_from([stats.norm(), stats.poisson(3.0)])),
        "samples": counts(3000),
        "seed": ANYTHING,
        "alpha": st.one_of(ANYTHING, st.floats(-1, 2)),
    }),
    "audit_canaries": (dpaudit.audit_canaries, {
        "in_scores": np.random.default_rng(0).normal(1.0, 1.0, 300),
        "out_scores": np.random.default_rng(1).normal(0.0, 1.0, 300), "claim": dpaudit.ApproxDP(1.0, 1e-5),
        "seed": 0}, {
        "in_scores": st.one_of(ANYTHING, st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=40)),
        "out_scores": st.one_of(ANYTHING, st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=40)),
        "claim": st.one_of(ANYTHING, st.just(dpaudit.SubGaussian(1.0)), st.just(dpaudit.RenyiDP(2.0, 1.0))),
        "runs": st.one_of(ANYTHING, st.sampled_from(["one", "many", "One", ""])),
        "alpha": st.one_of(ANYTHING, st.floats(-1, 2)),
        "seed": ANYTHING,
        "selection": st.one_of(ANYTHING, st.floats(-1, 2)),
        "guesses": st.one_of(ANYTHING, st.lists(st.tuples(st.integers(-5, 400), st.integers(-5, 400)), max_size=3)),
        "sequential": ANYTHING,
    }),
    "audit_regret": (dpaudit.audit_regret, {
        "policy": "ucb", "environment": _bernoulli_bandit(), "claim": dpaudit.RegretBound(lambda T: 10 * T**0.5),
        "horizons": [50, 100, 200], "runs": 20, "seed": 0}, {
        "policy": st.one_of(ANYTHING, st.sampled_from(["nope", "", "UCB"])),
        "environment": st.one_of(ANYTHING, st.sampled_from(["bernoulli:0.9,0.8", "nope"])),
        "claim": st.one_of(ANYTHING, st.just(dpaudit.PureDP(1.0)), st.just(dpaudit.RegretBound(lambda T: "x"))),
        "horizons": st.one_of(ANYTHING, st.lists(st.integers(-5, 300), max_size=3),
                              st.lists(EXTREME_FLOATS, min_size=1, max_size=3)),
        "runs": counts(30),
        "confidence": ANYTHING,
        "seed": ANYTHING,
    }),
}

#: words an error may name an argument by, besides its own name
ALIASES = {
    "pairs": ("pair", "input"),
    "neighbours": ("neighbour", "relation"),
    "statistic": ("statistic", "output"),
    "samples": ("sample",),
    "selection_fraction": ("selection",),
    "dist_or_sampler": ("sampler", "distribution", "law"),
    "reference": ("reference", "law", "distribution"),
    "in_scores": ("score", "in"),
    "out_scores": ("score", "out"),
    "environment": ("environment", "bandit"),
    "policy": ("policy", "algorithm"),
    "horizons": ("horizon", "round"),
    "runs": ("runs",),
    "claim": ("claim", "regretbound"),
}


@pytest.mark.parametrize("function", sorted(CASES))
@FUZZ
@given(data=st.data())
def test_one_malformed_argument_is_one_clear_error_naming_it(function, data):
    fn, good, arguments = CASES[function]
    name = data.draw(st.sampled_from(sorted(arguments)), label="argument")
    value = data.draw(arguments[name], label=name)
    outcome = attempt(fn, **{**good, name: value})
    if isinstance(outcome, dpaudit.AuditResult):
        assert outcome.verdict in dpaudit.VERDICTS
    else:
        assert names_the_argument(outcome, name, *ALIASES.get(name, ())), f"{function}({name}={value!r}): {outcome}"


BEHAVIOURS = {
    "raises ValueError": lambda d, n, rng: (_ for _ in ()).throw(ValueError("bad data")),
    "raises RuntimeError": lambda d, n, rng: (_ for _ in ()).throw(RuntimeError("boom")),
    "raises ZeroDivisionError": lambda d, n, rng: 1 / 0,
    "returns NaN": lambda d, n, rng: np.full(n, np.nan),
    "returns inf": lambda d, n, rng: np.full(n, np.inf),
    "returns None": lambda d, n, rng: None,
    "returns a scalar": lambda d, n, rng: 0.5,
    "returns one too few": lambda d, n, rng: np.zeros(n - 1),
    "returns one too many": lambda d, n, rng: np.zeros(n + 1),
    "returns strings": lambda d, n, rng: np.array(["a"] * n),
    "returns objects": lambda d, n, rng: np.array([object()] * n),
    "returns complex numbers": lambda d, n, rng: np.zeros(n) + 1j,
    "returns a list of floats": lambda d, n, rng: [float(v) for v in rng.normal(size=n)],
    "returns a 3-d array": lambda d, n, rng: rng.normal(size=(n, 2, 2)),
    "returns an empty row each": lambda d, n, rng: np.zeros((n, 0)),
    "returns a dict": lambda d, n, rng: {"x": 1},
    "ignores its generator": lambda d, n, rng: np.random.default_rng().normal(size=n),
    "takes two arguments": lambda d, n: np.zeros(n),
    "returns booleans": lambda d, n, rng: rng.random(n) < 0.5,
    "returns huge values": lambda d, n, rng: np.full(n, 1e308) * (1 + rng.random(n)),
}


def _regret(**changes):
    return dpaudit.audit_regret(**{**CASES["audit_regret"][1], **changes})


#: what the fuzzing found, each fixed: a call, the error it must raise and a word its message must hold (before the
#: fixes: a TypeError or ValueError from inside numpy or Python naming nothing, an AssertionError, a bare
#: RuntimeError or ZeroDivisionError out of the user's sampler)
FOUND = {
    "selection_fraction of another type": (lambda: dpaudit.audit_privacy(
        **{**CASES["audit_privacy"][1], "selection_fraction": object()}), ValueError,
        "selection_fraction"),
    "statistic not a function": (lambda: dpaudit.audit_privacy(
        **{**CASES["audit_privacy"][1], "statistic": 3}), TypeError, "statistic"),
    "events a number": (lambda: dpaudit.audit_privacy(**{**CASES["audit_privacy"][1], "events": 0.5}), TypeError,
                        "events"),
    "sequential an array": (lambda: dpaudit.audit_privacy(
        **{**CASES["audit_privacy"][1], "sequential": np.array([])}), TypeError, "sequential"),
    "auditor an array": (lambda: dpaudit.audit_privacy(**{**CASES["audit_privacy"][1], "auditor": np.array([])}),
                         ValueError, "auditor"),
    "privacy tolerance a word": (lambda: dpaudit.audit_privacy(**{**CASES["audit_privacy"][1], "tolerance": "tiny"}),
                                 ValueError, "tolerance"),
    "tail tolerance None": (lambda: dpaudit.audit_tail(**{**CASES["audit_tail"][1], "tolerance": None}), ValueError,
                            "tolerance"),
    "sampler alpha None": (lambda: dpaudit.audit_sampler(**{**CASES["audit_sampler"][1], "alpha": None}),
                           ValueError, "alpha"),
    "canary runs an array": (lambda: dpaudit.audit_canaries(**{**CASES["audit_canaries"][1], "runs": np.array([])}),
                             ValueError, "runs"),
    "canary selection a dict": (lambda: dpaudit.audit_canaries(**{**CASES["audit_canaries"][1], "selection": {}}),
                                ValueError, "selection"),
    "canary sequential an array": (lambda: dpaudit.audit_canaries(
        **{**CASES["audit_canaries"][1], "sequential": np.array([])}), TypeError, "sequential"),
    "regret bound returning text": (lambda: _regret(claim=dpaudit.RegretBound(lambda T: "x")), ValueError,
                                    "RegretBound"),
    "confidence whose level rounds to 1": (lambda: _regret(confidence=1e-294), ValueError, "confidence"),
    "tail sampler dividing by zero": (lambda: dpaudit.audit_tail(lambda n, rng: 1 / 0, dpaudit.SubGaussian(1.0),
                                                                 samples=1000, seed=0), dpaudit.MechanismError,
                                      "ZeroDivisionError"),
    "sampler raising RuntimeError": (lambda: dpaudit.audit_sampler(
        lambda n, rng: (_ for _ in ()).throw(RuntimeError("boom")), stats.norm(), samples=1000, seed=0),
        dpaudit.MechanismError, "RuntimeError: boom"),
    "a choice given an array": (lambda: __import__("dpaudit.core.validation", fromlist=["choice"]).choice(
        "DPSGDTrace", "relation", np.array([]), ("add-remove", "replace")), ValueError, "relation"),
}


@pytest.mark.parametrize("case", sorted(FOUND))
def test_what_the_fuzzing_found_stays_fixed(case):
    call, error, word = FOUND[case]
    with pytest.raises(error) as raised:
        call_with_time_limit(call, LIMIT)
    assert word in str(raised.value), str(raised.value)


def test_a_sampler_stopped_by_a_time_limit_is_a_timeout_not_its_failure():
    """A sampler's exceptions become a MechanismError naming it, but the time limit's AuditTimeout, raised inside
    the sampler when the limit expires, stays a timeout (a run records it as one), as a mechanism's does."""
    import time

    def slow(n, rng):
        time.sleep(5)
        return rng.normal(size=n)

    for call in (lambda: dpaudit.audit_tail(slow, dpaudit.SubGaussian(1.0), samples=1000, seed=0),
                 lambda: dpaudit.audit_sampler(slow, stats.norm(), samples=1000, seed=0)):
        with pytest.raises(AuditTimeout):
            call_with_time_limit(call, 0.5)


def _subject(behaviour: str, target: str):
    """A mechanism (``mech(data, size, rng)``) or a sampler (``sampler(n, rng)``) behaving as named."""
    misbehave = BEHAVIOURS[behaviour]
    if target == "audit_privacy" or behaviour == "takes two arguments":
        return misbehave
    return lambda n, rng: misbehave(0.0, n, rng)


MISBEHAVING_CALLS = {
    "audit_privacy": lambda subject, claim: dpaudit.audit_privacy(subject, claim, pairs=[(0.0, 1.0)], samples=1000,
                                                                  seed=0),
    "audit_tail": lambda subject, claim: dpaudit.audit_tail(subject, dpaudit.SubGaussian(1.0), samples=1000, seed=0),
    "audit_sampler": lambda subject, claim: dpaudit.audit_sampler(subject, stats.norm(), samples=1000, seed=0),
}


@FUZZ
@given(behaviour=st.sampled_from(sorted(BEHAVIOURS)), target=st.sampled_from(sorted(MISBEHAVING_CALLS)),
       claim=st.sampled_from([dpaudit.PureDP(1.0), dpaudit.ApproxDP(1.0, 1e-3), dpaudit.RenyiDP(2.0, 1.0),
                              dpaudit.ZCDP(0.5)]))
def test_a_mechanism_or_sampler_that_misbehaves_is_a_clear_error_or_an_audit(behaviour, target, claim):
    outcome = attempt(MISBEHAVING_CALLS[target], _subject(behaviour, target), claim)
    if isinstance(outcome, dpaudit.AuditResult):
        assert outcome.verdict in dpaudit.VERDICTS


# -- the claims and the neighbour relations --------------------------------------------------------------------------

CONSTRUCTORS = {
    "PureDP": (dpaudit.PureDP, 1), "ApproxDP": (dpaudit.ApproxDP, 2), "ZCDP": (dpaudit.ZCDP, 1),
    "RenyiDP": (dpaudit.RenyiDP, 2), "SubGaussian": (dpaudit.SubGaussian, 1),
    "SubExponential": (dpaudit.SubExponential, 2), "Accuracy": (dpaudit.Accuracy, 2),
    "RegretRate": (dpaudit.RegretRate, 1), "Conforms": (dpaudit.Conforms, 1), "RegretOrder": (dpaudit.RegretOrder, 1),
    "QueryDistance": (dpaudit.QueryDistance, 1), "ReplaceOne": (dpaudit.ReplaceOne, 0),
    "AddRemoveOne": (dpaudit.AddRemoveOne, 0),
}


@FUZZ
@given(name=st.sampled_from(sorted(CONSTRUCTORS)), data=st.data())
def test_claim_and_relation_constructors_take_anything_or_say_what_is_wrong(name, data):
    cls, arity = CONSTRUCTORS[name]
    args = [data.draw(st.one_of(ANYTHING, st.floats(-1, 5)), label=f"argument {i}") for i in range(arity)]
    made = attempt(cls, *args)
    if isinstance(made, Exception):
        return
    text = attempt(lambda: made.describe() if hasattr(made, "describe") else str(made))
    assert isinstance(text, str) and text


@FUZZ
@given(text=st.one_of(st.text(max_size=40), st.sampled_from([
    "pure-dp eps=1", "approx-dp eps=1 delta=1e-5", "pure-dp eps=nan", "pure-dp eps=inf", "pure-dp eps=-1",
    "approx-dp eps=1 delta=2", "zcdp rho=", "renyi-dp alpha=1 eps=1", "renyi-dp alpha=2,3 eps=1", "pure-dp",
    "pure-dp eps=1 eps=2", "pure-dp eps=1e999", "sub-gaussian s=0", "= = =", "pure-dp eps=0x10"])))
def test_parse_claim_reads_a_claim_or_refuses_with_invalid_claim(text):
    made = attempt(dpaudit.parse_claim, text)
    assert isinstance(made, (dpaudit.Claim, dpaudit.InvalidClaim)), made


RELATIONS = [dpaudit.AddRemoveOne(), dpaudit.ReplaceOne(), dpaudit.QueryDistance(1.0)]


@FUZZ
@given(relation=st.sampled_from(range(len(RELATIONS))), first=ANYTHING, second=ANYTHING)
def test_a_neighbour_relation_checks_any_pair_or_says_why_not(relation, first, second):
    rel = RELATIONS[relation]
    outcome = attempt(rel.check, first, second) if hasattr(rel, "check") else None
    assert outcome is None or isinstance(outcome, (bool, np.bool_, Exception)) or outcome is not None


# -- the command line ----------------------------------------------------------------------------------------------

OPTION_VALUES = st.one_of(st.sampled_from(["", "nan", "inf", "-1", "0", "1e999", "1.5", "x", "[", "{}", "1e6",
                                           "pure-dp eps=1", "a:b", ":", "/", "--", "-"]), st.text(max_size=5))


def _mechanism_file(folder):
    path = folder / "fuzz_mech.py"
    path.write_text(textwrap.dedent("""
        import numpy as np

        def mech(data, size, rng):
            return float(data) + rng.laplace(0.0, 1.0, size)

        def broken(data, size, rng):
            raise KeyError("inside the user's code")
    """))
    return path


def cli_argvs(mech: str):
    """argv lists for every command, each option given a malformed value or left out; counts kept small."""
    audit = st.fixed_dictionaries({}, optional={
        "--claim": st.one_of(OPTION_VALUES, st.just("pure-dp eps=1")), "--pair": st.one_of(OPTION_VALUES,
                                                                                           st.just("[0, 1]")),
        "--samples": st.one_of(OPTION_VALUES, st.just("2000")), "--confidence": OPTION_VALUES,
        "--seed": OPTION_VALUES, "--auditor": OPTION_VALUES, "--relation": OPTION_VALUES,
        "--events": OPTION_VALUES})
    target = st.sampled_from([f"{mech}:mech", f"{mech}:broken", f"{mech}:nothing", "nowhere.py:mech", "mech",
                              ":", "dpaudit:__version__"])
    audit_argv = st.tuples(target, audit).map(lambda t: ["audit", t[0], *_flatten(t[1])])
    regret = st.fixed_dictionaries({}, optional={
        "--env": st.one_of(OPTION_VALUES, st.just("bernoulli:0.9,0.8")), "--claim": OPTION_VALUES,
        "--horizons": st.one_of(OPTION_VALUES, st.just("50,100")), "--runs": st.one_of(OPTION_VALUES, st.just("8")),
        "--seed": OPTION_VALUES})
    regret_argv = st.tuples(st.sampled_from(["ucb", "nope", ""]), regret).map(
        lambda t: ["regret", t[0], *_flatten(t[1])])
    canary = st.fixed_dictionaries({}, optional={
        "--in": OPTION_VALUES, "--out": OPTION_VALUES, "--claim": OPTION_VALUES, "--alpha": OPTION_VALUES,
        "--runs": st.one_of(OPTION_VALUES, st.sampled_from(["one", "many"]))})
    canary_argv = canary.map(lambda d: ["canary", *_flatten(d)])
    dpsgd = st.fixed_dictionaries({}, optional={
        "--sampling": OPTION_VALUES, "--noise": OPTION_VALUES, "--steps": OPTION_VALUES, "--delta": OPTION_VALUES,
        "--claim": OPTION_VALUES})
    dpsgd_argv = dpsgd.map(lambda d: ["dpsgd", *_flatten(d)])
    listing = st.lists(OPTION_VALUES, max_size=2).map(lambda a: ["list", *a])
    report = st.lists(OPTION_VALUES, max_size=2).map(lambda a: ["report", *a])
    return st.one_of(audit_argv, regret_argv, canary_argv, dpsgd_argv, listing, report)


def _flatten(options: dict) -> list[str]:
    return [part for key, value in sorted(options.items()) for part in (key, value)]


@FUZZ
@given(data=st.data())
def test_the_command_line_answers_malformed_arguments_with_an_exit_code_never_a_traceback(data, tmp_path_factory):
    from dpaudit.cli import main

    folder = tmp_path_factory.mktemp("fuzz-cli")
    argv = data.draw(cli_argvs(str(_mechanism_file(folder))), label="argv")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), contextlib.chdir(folder):
        try:
            code = call_with_time_limit(lambda: main(argv), LIMIT)
        except SystemExit as exc:  # argparse: --help, or a usage error
            code = exc.code
        except AuditTimeout:
            pytest.fail(f"dpaudit {argv} ran past {LIMIT:g} s")
        except BaseException as exc:  # noqa: BLE001 - a traceback on the command line
            pytest.fail(f"dpaudit {argv} raised {type(exc).__name__}: {exc}\n{err.getvalue()}")
    assert code in (0, 1, 2), (argv, code)
    assert "Traceback" not in err.getvalue(), (argv, err.getvalue())
    if code == 2 and err.getvalue():
        assert err.getvalue().strip().splitlines()[-1].startswith(("dpaudit", "usage")), err.getvalue()


# -- a run whose claims misbehave leaves a results folder that reads back -------------------------------------------

SUITE = '''
import time

import numpy as np

from dpaudit import PureDP
from dpaudit.suite import Suite

def raises(data, size, rng):
    raise ValueError("the user's mechanism failed")

def nan(data, size, rng):
    return np.full(size, np.nan)

def wrong_shape(data, size, rng):
    return np.zeros(size + 3)

def hangs(data, size, rng):
    while True:
        time.sleep(0.05)

def fine(data, size, rng):
    return float(data) + rng.laplace(0.0, 1.0, size)

suite = Suite("fuzzrun", "claims whose mechanisms misbehave")
for name, mech in [("raises", raises), ("nan", nan), ("wrong-shape", wrong_shape), ("hangs", hangs),
                   ("fine", fine)]:
    suite.privacy(f"fuzzrun/{name}", subject=mech, claim=PureDP(1.0), pairs=[(0.0, 1.0)], auditor="statistical",
                  samples={"quick": 2000, "standard": 2000})
'''


def test_a_run_of_misbehaving_mechanisms_leaves_a_results_folder_that_reads_back(tmp_path):
    """Five claims: a mechanism that raises, one that returns NaN, one of the wrong shape, one that never returns
    (stopped by --timeout 3) and a correct one, run in one worker process. The command ends with exit code 2
    (audits that could not run), results.json reads back with every claim in it, the four misbehaving ones as
    error records saying what went wrong, the fifth audited; a second run into the same folder audits nothing
    anew and leaves the file as valid as before."""
    from dpaudit.cli import main

    suite = tmp_path / "fuzz_suite.py"
    suite.write_text(SUITE)
    out = tmp_path / "report"
    argv = ["run", "fuzzrun/*", "--suite", str(suite), "--out", str(out), "--timeout", "3", "--workers", "1",
            "--budget", "quick", "--seed", "1"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = call_with_time_limit(lambda: main(argv), 120)
    assert code == 2
    records = {r.claim_id: r for r in dpaudit.read_results(out).records}
    assert sorted(records) == [f"fuzzrun/{n}" for n in ("fine", "hangs", "nan", "raises", "wrong-shape")]
    assert {n for n, r in records.items() if r.verdict == dpaudit.ERROR} == {
        f"fuzzrun/{n}" for n in ("hangs", "nan", "raises", "wrong-shape")}
    assert records["fuzzrun/fine"].verdict in (dpaudit.NOT_REFUTED, dpaudit.REFUTED)
    assert "time limit" in json.dumps(records["fuzzrun/hangs"].to_dict())
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        call_with_time_limit(lambda: main(argv), 120)
    assert sorted(r.claim_id for r in dpaudit.read_results(out).records) == sorted(records)
