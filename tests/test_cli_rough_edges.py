"""Rough edges of the command line and the API a user reported: a ``FILE.py:ATTR`` that imports the module beside
it, counts written ``1e7``, a sample count that cannot fit in memory, unknown registry names, regret rates
decreasing in T, and ``dpaudit.algorithms`` after ``import dpaudit``.

Nothing here is statistical except the two audits run through the command line (a correct Laplace mechanism,
not refuted at eps = 1 with probability >= 0.99 at any seed; the seed is fixed, so the outcome is too)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
import uuid

import pytest

import dpaudit
from dpaudit.bandits.experiments import load_presets, load_studies
from dpaudit.cli.inputs import count, load_target, whole_number
from dpaudit.cli.parser import build_parser
from dpaudit.core import memory
from dpaudit.core.errors import UnknownName, UsageError
from dpaudit.core.names import Registry


@pytest.fixture
def clean_imports(monkeypatch):
    """sys.path and sys.modules as they were after the test (the loaders under test change them)."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def _files_with_a_sibling(folder, body: str = "from {helper} import VALUE\n\ndef policy():\n    return VALUE\n"):
    """``main_<id>.py`` importing the module ``helper_<id>.py`` beside it (names unique per test, so that a
    sibling imported by an earlier test cannot make the import succeed)."""
    tag = uuid.uuid4().hex[:8]
    helper, main = f"helper_{tag}", f"main_{tag}"
    (folder / f"{helper}.py").write_text("VALUE = 42\n")
    (folder / f"{main}.py").write_text(body.format(helper=helper))
    return folder / f"{main}.py", helper


# -- 1. a FILE.py:ATTR that imports its sibling --------------------------------------------------------------------


def test_a_file_target_imports_the_module_beside_it(tmp_path, clean_imports):
    path, _ = _files_with_a_sibling(tmp_path)
    assert load_target(f"{path}:policy")() == 42


def test_a_file_target_keeps_its_folder_for_an_import_made_when_called(tmp_path, clean_imports):
    """The documented choice: the command line keeps the file's folder on the path, so that a function that
    imports its sibling only when called (after loading) still finds it."""
    body = "def policy():\n    import {helper}\n    return {helper}.VALUE\n"
    path, _ = _files_with_a_sibling(tmp_path, body)
    assert load_target(f"{path}:policy")() == 42
    assert sys.path[0] == str(tmp_path.resolve())


def test_a_file_target_named_like_a_standard_module_does_not_take_its_place(tmp_path):
    """A user's ``tabnanny.py`` (a standard module nothing here imports first) is loaded under a name of its own:
    ``import tabnanny`` afterwards, by the user or by a library, still gives the standard library's, though the
    file's folder stays first on the path. Run in a fresh interpreter, where tabnanny is not yet imported.
    Before the fix the file was registered as ``sys.modules["tabnanny"]``."""
    (tmp_path / "user").mkdir()  # not the interpreter's working folder, which ``python -c`` puts first itself
    (tmp_path / "user" / "tabnanny.py").write_text("import tabnanny as itself\n\ndef mech():\n    return 'user'\n")
    script = textwrap.dedent(f"""
        import sys
        from dpaudit.cli.inputs import load_target
        assert "tabnanny" not in sys.modules
        mech = load_target({str(tmp_path / "user" / "tabnanny.py")!r} + ":mech")
        import tabnanny
        print(mech(), mech.__module__ != "tabnanny", hasattr(tabnanny, "check"),
              hasattr(sys.modules[mech.__module__].itself, "check"))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["user", "True", "True", "True"]


def test_two_file_targets_of_the_same_name_keep_their_own_modules(tmp_path, clean_imports):
    """``a/mech.py`` and ``b/mech.py`` are two modules: each function's ``__module__`` names its own file's module in
    ``sys.modules`` (what pickle, dataclasses and typing look up). Before the fix both were ``mech``, the first
    file's, so the second's function could not be pickled and read the first file's globals through it."""
    import pickle

    loaded = []
    for folder, value in (("a", 1), ("b", 2)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "mech.py").write_text(f"VALUE = {value}\n\ndef mech():\n    return VALUE\n")
        loaded.append(load_target(f"{tmp_path / folder / 'mech.py'}:mech"))
    first, second = loaded
    assert (first(), second()) == (1, 2)
    assert first.__module__ != second.__module__
    assert [sys.modules[f.__module__].VALUE for f in loaded] == [1, 2]
    assert pickle.loads(pickle.dumps(second)) is second
    assert load_target(f"{tmp_path / 'b' / 'mech.py'}:mech") is second  # loaded once per file


def test_a_suite_file_imports_the_module_beside_it_and_leaves_the_path_as_it_was(tmp_path, clean_imports):
    from dpaudit.suite.discovery import load_suites

    tag = uuid.uuid4().hex[:8]
    (tmp_path / f"claims_{tag}.py").write_text("from dpaudit import PureDP\nCLAIM = PureDP(1.0)\n")
    suite_file = tmp_path / f"suite_{tag}.py"
    suite_file.write_text(textwrap.dedent(f"""
        from claims_{tag} import CLAIM
        from dpaudit.mechanisms import LaplaceMechanism
        from dpaudit.suite import Suite

        suite = Suite("sibling-{tag}", "a suite importing the module beside it")
        suite.privacy("sibling-{tag}/laplace", subject=LaplaceMechanism(1.0), claim=CLAIM, pairs=[(0, 1)])
    """))
    path_before = list(sys.path)
    suites = load_suites([str(suite_file)])
    assert [e.id for e in suites[f"sibling-{tag}"].entries] == [f"sibling-{tag}/laplace"]
    assert sys.path == path_before


@pytest.mark.slow
def test_the_command_line_audits_a_policy_whose_file_imports_its_sibling(cli, tmp_path):
    tag = uuid.uuid4().hex[:8]
    (tmp_path / "pol").mkdir()
    (tmp_path / "pol" / f"uniform_{tag}.py").write_text(textwrap.dedent("""
        class Uniform:
            anytime = True

            def start(self, runs, arms, horizon, rng):
                self.rng, self.arms, self.runs = rng, arms, runs

            def choose(self, t):
                return self.rng.integers(0, self.arms, self.runs)

            def observe(self, t, arms, rewards):
                pass
    """))
    (tmp_path / "pol" / "my_policy.py").write_text(f"from uniform_{tag} import Uniform\n\npolicy = Uniform()\n")
    out = cli("regret", "pol/my_policy.py:policy", "--env", "BernoulliBandit([0.6, 0.5])", "--claim",
              "regret-rate T^1", "--horizons", "1e3", "--runs", "4")
    assert out.returncode == 0, out.stderr
    assert "not-refuted" in out.stdout


# -- 2. counts and memory ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [("1e7", 10_000_000), ("10000000", 10_000_000), ("1_000", 1000),
                                         ("2.5e3", 2500), ("1.5e3", 1500), ("1E2", 100), ("0", 0), ("-3", -3)])
def test_a_count_is_any_exact_integer(text, value):
    assert count(text) == value and isinstance(count(text), int)


@pytest.mark.parametrize("text", ["1.5", "1e-3", "2.25e1", "inf", "nan", "abc", "", "1e400"])
def test_a_count_that_is_no_integer_is_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="whole number|too large"):
        count(text)
    with pytest.raises(UsageError, match="--horizons"):
        whole_number(text, "--horizons")


def test_the_count_options_take_1e_notation():
    parse = build_parser().parse_args
    assert parse(["audit", "m.py:f", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--samples", "1e7"]).samples \
        == 10_000_000
    regret = parse(["regret", "ucb", "--env", "E", "--claim", "c", "--runs", "2e2", "--workers", "2.0"])
    assert (regret.runs, regret.workers) == (200, 2)
    simulate = parse(["simulate", "p", "--runs", "1e1", "--horizon", "1e5", "--workers", "1"])
    assert (simulate.runs, simulate.horizon, simulate.workers) == (10, 100_000, 1)
    assert parse(["run", "--workers", "4e0"]).workers == 4


def test_the_memory_check_names_the_figures():
    with pytest.raises(ValueError, match=r"samples 10,000,000,000,000 needs about 80 TB of memory for one output "
                                         r"column .*this machine has 24 GB"):
        memory.check_sample_memory(10**13, available=24 * 10**9)
    with pytest.raises(ValueError, match="48 GB of memory for 2 output columns"):
        memory.check_sample_memory(3 * 10**9, 2, available=24 * 10**9)
    memory.check_sample_memory(3 * 10**9, 1, available=24 * 10**9)  # 24 GB: fits, just
    assert memory.physical_memory() is None or memory.physical_memory() > 10**8


@pytest.fixture
def machine_of_1_mb(monkeypatch):
    """A machine of 1 MB: the refusals below are of small counts, so that an audit the check failed to refuse
    draws a few MB, not gigabytes, on the machine the tests run on."""
    monkeypatch.setattr(memory, "physical_memory", lambda: 10**6)


def _laplace(data, size, rng):
    return data + rng.laplace(0.0, 1.0, size)


def _three_columns(data, size, rng):
    return data + rng.laplace(0.0, 1.0, (size, 3))


def test_audit_privacy_refuses_samples_that_cannot_fit_before_drawing_them(machine_of_1_mb):
    with pytest.raises(ValueError, match="samples 200,000 needs about 1.6 MB .* this machine has 1 MB"):
        dpaudit.audit_privacy(_laplace, dpaudit.PureDP(1.0), pairs=[(0, 1)], samples=200_000, seed=0)
    # the width is the mechanism's: 100,000 outputs of one number fit in 1 MB, of three do not
    dpaudit.audit_privacy(_laplace, dpaudit.PureDP(1.0), pairs=[(0, 1)], samples=100_000, seed=0)
    with pytest.raises(ValueError, match="2.4 MB of memory for 3 output columns"):
        dpaudit.audit_privacy(_three_columns, dpaudit.PureDP(1.0), pairs=[(0, 1)], samples=100_000, seed=0)


def test_an_exact_audit_draws_no_samples_and_is_not_refused(machine_of_1_mb):
    from dpaudit.mechanisms import LaplaceMechanism

    res = dpaudit.audit_privacy(LaplaceMechanism(0.5), dpaudit.PureDP(0.5), pairs=[(0, 1)], samples=200_000)
    assert res.verdict == "verified"


def test_audit_tail_and_audit_sampler_refuse_samples_that_cannot_fit(machine_of_1_mb):
    from scipy import stats

    def normal(size, rng):
        return rng.normal(size=size)

    with pytest.raises(ValueError, match="samples 200,000 needs about 1.6 MB"):
        dpaudit.audit_tail(normal, dpaudit.SubGaussian(1.0), samples=200_000, seed=0)
    with pytest.raises(ValueError, match="samples 200,000 needs about 1.6 MB"):
        dpaudit.audit_sampler(normal, stats.norm(), samples=200_000, seed=0)


@pytest.mark.slow
def test_the_command_line_refuses_a_sample_count_that_is_no_integer_or_cannot_fit(cli, tmp_path):
    (tmp_path / "mech.py").write_text("def laplace(data, size, rng):\n    return data + rng.laplace(0.0, 1.0, size)\n")
    base = ("audit", "mech.py:laplace", "--claim", "pure-dp eps=1", "--pair", "[0, 1]")
    ok = cli(*base, "--samples", "2e4")
    assert ok.returncode == 0, ok.stderr
    assert "20000 samples per side" in ok.stdout
    half = cli(*base, "--samples", "1.5")
    assert half.returncode == 2 and "argument --samples: '1.5' is not a whole number" in half.stderr
    huge = cli(*base, "--samples", "1e13")  # 80 TB: more than any machine this runs on
    assert huge.returncode == 2, huge.stdout
    assert "samples 10,000,000,000,000 needs about 80 TB of memory" in huge.stderr
    assert "Traceback" not in huge.stderr and "mechanism" not in huge.stderr
    assert len(huge.stderr.strip().splitlines()) == 1


# -- 3. unknown names ----------------------------------------------------------------------------------------------


def _registries():
    from dpaudit.algorithms import ALGORITHMS
    from dpaudit.algorithms.glm.registry import ALGORITHMS as GLM
    from dpaudit.algorithms.linear.registry import ALGORITHMS as LINEAR
    from dpaudit.algorithms.mab.registry import ALGORITHMS as MAB
    from dpaudit.algorithms.online.registry import ALGORITHMS as ONLINE
    from dpaudit.audits.experiments import PRESETS, STUDIES
    from dpaudit.core.neighbours import RELATIONS
    from dpaudit.mechanisms.glm.glm_links import LINKS

    return {"ALGORITHMS": ALGORITHMS, "mab": MAB, "online": ONLINE, "linear": LINEAR, "glm": GLM, "PRESETS": PRESETS,
            "STUDIES": STUDIES, "load_presets": load_presets(), "load_studies": load_studies(),
            "RELATIONS": RELATIONS, "LINKS": LINKS}


@pytest.mark.parametrize("which", sorted(_registries()))
def test_every_registry_says_what_it_knows_and_is_still_a_dict(which):
    registry = _registries()[which]
    assert isinstance(registry, Registry) and isinstance(registry, dict) and registry
    first = next(iter(registry))
    assert first in registry and "typo" not in registry and registry.get("typo") is None
    assert registry[first] is dict.__getitem__(registry, first)
    with pytest.raises(KeyError) as info:
        registry["typo"]
    assert isinstance(info.value, UnknownName)
    message = str(info.value)
    assert message.startswith("unknown ") and "'typo'" in message and "\n" not in message
    assert all(str(name) in message for name in registry)


def test_an_unknown_algorithm_names_the_close_ones_and_every_known_one():
    from dpaudit.algorithms import ALGORITHMS

    with pytest.raises(KeyError, match=r"^unknown algorithm 'ucbb' \(did you mean ucb.*\?\); known: se, .*ftnl"):
        ALGORITHMS["ucbb"]
    with pytest.raises(ValueError, match="unknown algorithm 'typo'; known: .*dp-se"):
        dpaudit.audit_regret("typo", dpaudit.algorithms.BernoulliBandit([0.6, 0.5]), dpaudit.RegretRate(0.5))


def test_the_command_line_names_the_known_algorithms_in_one_line(cli):
    out = cli("regret", "typo", "--env", "BernoulliBandit([0.6, 0.5])", "--claim", "regret-rate T^0.5")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert "unknown algorithm 'typo'; known: " in out.stderr and "ucb, " in out.stderr and "ftnl" in out.stderr


# -- 4. claims' parameters -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("variable", ["T", "d", "K", "n"])
def test_a_regret_rate_cannot_decrease_in_t_d_k_or_n(variable):
    with pytest.raises(dpaudit.InvalidClaim, match=f"exponent of {variable} must be >= 0"):
        dpaudit.RegretRate(-1, variable)
    assert dpaudit.RegretRate(0, variable, log_power=1).exponent == 0.0


def test_a_regret_rate_in_eps_may_have_any_finite_exponent():
    assert dpaudit.RegretRate(-1, "eps").exponent == -1.0
    assert dpaudit.RegretRate(0.5, "eps").exponent == 0.5
    with pytest.raises(dpaudit.InvalidClaim, match="exponent"):
        dpaudit.RegretRate(float("-inf"), "eps")
    with pytest.raises(dpaudit.InvalidClaim, match="exponent of T"):
        dpaudit.parse_claim("regret-rate T^-1")
    with pytest.raises(dpaudit.InvalidClaim, match="exponent of T"):
        dpaudit.RegretRate(-1)


@pytest.mark.parametrize("make, message", [
    (lambda: dpaudit.SubGaussian(1.0, centred="false"), "SubGaussian: centred must be True or False"),
    (lambda: dpaudit.SubExponential(1.0, 1.0, centred=1), "SubExponential: centred must be True or False"),
    (lambda: dpaudit.TailBound(lambda t: t, "t", two_sided="no"), "TailBound: two_sided must be True or False"),
    (lambda: dpaudit.TailBound(lambda t: t, "t", centred=None), "TailBound: centred must be True or False"),
    (lambda: dpaudit.Accuracy(float("inf"), 0.1), "Accuracy: alpha must be >= 0 and finite"),
    (lambda: dpaudit.TailBound.accuracy(float("inf"), 0.1), "alpha must be >= 0 and finite"),
    (lambda: dpaudit.RegretOrder([["a"], ["b"]], description=3), "RegretOrder: description"),
    (lambda: dpaudit.LowerBound("s", {"T": 1}, algorithm_class=None, steps=(_STEP,)), "algorithm_class must be a str"),
    (lambda: dpaudit.LowerBound("s", {"T": 1}, bound_text=1.0, steps=(_STEP,)), "bound_text must be a string"),
    (lambda: dpaudit.ProofStep("step", None, lambda p: (1, 0)), "statement must be a string"),
])
def test_claim_parameters_out_of_their_domain_are_refused(make, message):
    with pytest.raises(dpaudit.InvalidClaim, match=message):
        make()


_STEP = dpaudit.ProofStep("step", "1 >= 0", lambda p: (1, 0))


def test_the_flags_still_take_numpy_booleans():
    import numpy as np

    assert dpaudit.SubGaussian(1.0, centred=np.bool_(True)).centred is True


# -- 5. dpaudit.algorithms after import dpaudit --------------------------------------------------------------------


def test_the_subject_packages_are_attributes_of_dpaudit_imported_on_first_use():
    code = ("import sys, dpaudit\n"
            "assert 'dpaudit.algorithms' not in sys.modules and 'dpaudit.mechanisms' not in sys.modules\n"
            "assert callable(dpaudit.algorithms.ALGORITHMS['ucb'])\n"
            "assert dpaudit.mechanisms.LaplaceMechanism(1.0) is not None\n"
            "try:\n    dpaudit.no_such_thing\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "module 'dpaudit' has no attribute 'no_such_thing'" in out.stdout
