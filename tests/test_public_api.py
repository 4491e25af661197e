"""The public API does not move: every name the README uses, from ``dpaudit`` and from its documented
submodules, imports from the path the README gives.

When a module moves, its old dotted path must keep working (the README's examples and users' code use it),
and the README changes in the same commit if a documented path changes.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import pytest

import dpaudit
from dpaudit._compat import MOVED

# everything ``from dpaudit import ...`` offers (the README's examples use most of these)
TOP_LEVEL = [
    "ERROR", "NOT_REFUTED", "REFUTED", "VERDICTS", "VERIFIED",
    "Claim", "PureDP", "ApproxDP", "RenyiDP", "ZCDP", "SubGaussian", "SubExponential", "TailBound", "Conforms",
    "Accuracy", "RegretBound", "RegretRate", "RegretOrder", "LowerBound", "ProofStep", "Difference",
    "NeighbourRelation", "AddRemoveOne", "ReplaceOne", "QueryDistance", "ReplaceRewardVector", "ReplaceUser",
    "AuditResult", "Statistic", "SimulationResult",
    "DpauditError", "InvalidClaim", "InvalidClaimId", "MechanismError", "NotNeighbours", "SelectionError",
    "UnsupportedAudit", "UsageError", "AuditTimeout",
    "audit_privacy", "audit_tail", "audit_sampler", "audit_regret", "audit_lower_bound", "parse_claim",
    "run_preset", "simulate", "scalar", "unseeded", "adapters", "__version__", "read_results",
    "audit_dpsgd", "certify_dpsgd", "DPSGDTrace", "DPSGDConfig", "ComposedDPSGD", "PoissonBatches", "FixedSizeBatches",
    "BatchesWithReplacement", "ShuffledBatches", "BallsAndBins",
]

# documented submodules and the names the README takes from them
DOCUMENTED = {
    "dpaudit.core.distributions": ["FiniteDistribution"],
    "dpaudit.core.neighbours": ["QueryDistance", "one_changed"],
    "dpaudit.core.domains": ["Box", "Datasets"],
    "dpaudit.core.laws": ["Law"],
    "dpaudit.suite": ["Suite"],
    "dpaudit.bandits.policies": ["Policy", "horizon_use"],
    "dpaudit.bandits.transcripts": ["DecisionTranscript"],
    "dpaudit.bandits.contextual_transcripts": ["ContextualTranscript"],
    "dpaudit.testing": ["assert_private", "ExploreThenCommit"],
    "dpaudit.strategies": ["neighbouring", "inputs", "audit_sensitivity", "SensitivityResult"],
    "dpaudit.bandits.experiments": ["Preset"],
    "dpaudit.reports.plots": ["render"],
    "dpaudit.reports.frames": ["RESULT_COLUMNS", "RESULT_DTYPES", "results_frame"],
    "dpaudit.runner": ["RunOptions", "RunSummary", "run"],
    "dpaudit.bandits.cache": [],
    "dpaudit.core.validation": [],
    "dpaudit.core.piecewise_exponential": [],
    "dpaudit.auditors.base": ["Auditor"],
    "dpaudit.auditors.exact_regret": [],
    "dpaudit.auditors.exact_tail": [],
    "dpaudit.adapters": ["opendp", "diffprivlib", "audit"],
    "dpaudit.mechanisms": ["LaplaceMechanism", "noise"],
    "dpaudit.mechanisms.noise": ["constructions"],
    "dpaudit.mechanisms.classic.randomized_response": [],
    "dpaudit.mechanisms.distributed.distributed_sum_analysis": [],
    "dpaudit.algorithms": ["ALGORITHMS", "BernoulliBandit", "BernoulliExperts", "GaussianBandit", "UniformMeans",
                           "GLMBandit", "LinearBandit"],
    "dpaudit.algorithms.mab": ["BatchSuccessiveElimination", "DPSEEpoch"],
    "dpaudit.algorithms.online": ["AnytimeLazyUCB", "BatchToOnlineSelector", "FollowTheNoisyLeader"],
}


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_every_top_level_name_imports_from_dpaudit(name):
    assert name in dpaudit.__all__
    assert getattr(dpaudit, name) is not None


@pytest.mark.parametrize("module", sorted(DOCUMENTED))
def test_every_documented_submodule_and_name_imports_from_its_path(module):
    imported = importlib.import_module(module)
    missing = [name for name in DOCUMENTED[module] if not hasattr(imported, name)]
    assert not missing, f"{module} no longer offers {missing}"


def test_every_error_a_user_can_catch_is_exported_at_the_top_level():
    """Each exception class of dpaudit.core.errors (the errors dpaudit reports to its user) is importable as
    ``dpaudit.<Name>``, the same class: ``except dpaudit.UnknownName`` must work like ``except
    dpaudit.MechanismError``. UnknownName (a misspelled registry name) was once missing."""
    import inspect

    from dpaudit.core import errors

    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass)
               if issubclass(c, errors.DpauditError) and c.__module__ == errors.__name__]
    assert len(classes) >= 10
    for cls in classes:
        assert getattr(dpaudit, cls.__name__, None) is cls, cls.__name__
        assert cls.__name__ in dpaudit.__all__


def test_a_loaded_simulation_result_reads_back_with_the_documented_classmethod():
    assert callable(dpaudit.SimulationResult.load)


def test_the_table_fails_on_a_name_that_is_gone():
    """The check itself: a name that is not there is reported (so a moved name cannot pass silently)."""
    imported = importlib.import_module("dpaudit.bandits.policies")
    assert not hasattr(imported, "NoSuchPolicy")


# -- the paths modules had before the wings ------------------------------------------------------------------

# the submodules the README documented before the wings, with the names it took from them: they still import
BEFORE_THE_WINGS = {
    "dpaudit.distributions": ["FiniteDistribution"],
    "dpaudit.neighbours": ["QueryDistance", "one_changed"],
    "dpaudit.domains": ["Box", "Datasets"],
    "dpaudit.laws": ["Law"],
    "dpaudit.policies": ["Policy", "horizon_use"],
    "dpaudit.transcripts": ["DecisionTranscript"],
    "dpaudit.contextual_transcripts": ["ContextualTranscript"],
    "dpaudit.experiments": ["Preset", "run_preset", "load_presets"],
    "dpaudit.plots": ["render"],
    "dpaudit.simulation_cache": ["cached_simulate"],
    "dpaudit.validation": ["integer"],
    "dpaudit.piecewise_exponential": [],
    "dpaudit.claims": ["PureDP", "RegretBound", "parse_claim", "REGRET_BOUND_PARAMETERS"],
    "dpaudit.simulation": ["simulate", "SimulationResult"],
    "dpaudit.suite": ["Suite", "RunContext", "load_suites", "select", "BUDGET_FALLBACK", "PrivacyEntry"],
    "dpaudit.regret_entries": ["RegretEntry", "OrderEntry"],
    "dpaudit.api": ["audit_privacy", "regret_subject", "privacy_plan", "PRIVACY"],
    "dpaudit.records": ["assemble_record"],
    "dpaudit.driver": ["plan_audit"],
    "dpaudit.subjects": ["Mechanism", "subject_name"],
    "dpaudit.testing": ["ExploreThenCommit"],
}


@pytest.mark.parametrize("module", sorted(BEFORE_THE_WINGS))
def test_every_path_documented_before_the_wings_still_imports_with_its_names(module):
    imported = importlib.import_module(module)
    missing = [name for name in BEFORE_THE_WINGS[module] if not hasattr(imported, name)]
    assert not missing, f"{module} no longer offers {missing}"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_module_at_its_new_path_itself(old):
    """One module object under two names: a patch through either is seen through both, and the module keeps its
    own name and spec (so reloading and pickling use the new path)."""
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert module.__name__ == module.__spec__.name == MOVED[old]


def test_a_patch_through_an_old_path_reaches_the_callers_of_the_new_one(monkeypatch):
    from dpaudit.bandits import simulation

    marker = object()
    monkeypatch.setattr("dpaudit.simulation.MAX_BLOCK_PULLS", marker)
    assert simulation.MAX_BLOCK_PULLS is marker


def test_a_pickle_that_names_an_old_path_loads():
    """A simulation cache or a user's pickle written before the wings names classes by their old module."""
    import pickle

    from dpaudit.core.claims import PureDP

    blob = pickle.dumps(PureDP(0.5), protocol=0)
    assert b"dpaudit.core.claims.privacy" in blob
    old = blob.replace(b"dpaudit.core.claims.privacy", b"dpaudit.claims")
    assert pickle.loads(old) == PureDP(0.5)


def test_the_old_paths_table_names_only_modules_that_are_gone_from_their_old_place():
    """An old path is an alias only where no module of that name is left (a stale entry would shadow nothing,
    a wrong one would send imports to the wrong module). The old place is looked up in the old parent package's
    folders, so a path under dpaudit.mechanisms is looked for in mechanisms/, where pyproject maps it."""
    for old, new in MOVED.items():
        parent, _, name = old.rpartition(".")
        folders = [Path(f) for f in importlib.import_module(parent).__path__]
        assert folders, parent
        for folder in folders:
            assert not (folder / f"{name}.py").exists() and not (folder / name).is_dir(), old
        assert importlib.util.find_spec(new) is not None, new


# -- the paths the mechanisms had before their families ------------------------------------------------------

# the flat module paths the docs and users' code used before the mechanisms were grouped in families, with names
# taken from them: they still import, each the module at its family's path itself
BEFORE_THE_FAMILIES = {
    "dpaudit.mechanisms.randomized_response": ["RandomizedResponse", "KaryRandomizedResponse"],
    "dpaudit.mechanisms.distributed_sum_analysis": ["protocol_error", "rounding_sum"],
    "dpaudit.mechanisms.tree": ["BinaryTreeMechanism"],
    "dpaudit.mechanisms.dp_sgd": ["DPSGD", "released_code_noise_multiplier", "released_code_schedule"],
    "dpaudit.mechanisms.glm_links": ["logistic_mean", "logistic_slope"],
    "dpaudit.mechanisms.sparse_vector": ["SparseVector"],
    "dpaudit.mechanisms.linear_released_code": ["PseudoTreeNoise"],
    "dpaudit.mechanisms.shuffle_vec": ["ShuffledVectorProtocol"],
}


@pytest.mark.parametrize("module", sorted(BEFORE_THE_FAMILIES))
def test_every_mechanism_path_from_before_the_families_still_imports_with_its_names(module):
    imported = importlib.import_module(module)
    missing = [name for name in BEFORE_THE_FAMILIES[module] if not hasattr(imported, name)]
    assert not missing, f"{module} no longer offers {missing}"
    assert imported is importlib.import_module(MOVED[module])


def test_every_old_mechanism_module_is_at_its_new_path_or_in_the_table():
    """Each of the flat modules mechanisms/ had is either still there (the shared floor) or has an old-path
    alias, except ``shuffle``, whose path the shuffle family's package took."""
    import dpaudit.mechanisms

    flat = ["accounting", "additive", "base", "bit_summation", "bounded_laplace", "central_tree", "clipped_sum",
            "composition", "concurrent_shuffle", "concurrent_tree", "distributed_sum", "distributed_sum_analysis",
            "dp_sgd", "enclosures", "exploration_set", "folded", "gaussian", "geometric", "geometry", "glm_links",
            "glm_lower_bound", "glm_released_code", "histogram", "hybrid_counter", "lazy_laplace",
            "linear_released_code", "noisy_max", "online_releases", "pgd_views", "piecewise", "private_gd",
            "randomized_response", "shuffle", "shuffle_amp", "shuffle_vec", "sparse_vector", "tree",
            "vector_summation"]
    (folder,) = dpaudit.mechanisms.__path__
    for name in flat:
        old = f"dpaudit.mechanisms.{name}"
        assert (Path(folder) / f"{name}.py").exists() or old in MOVED or name == "shuffle", old


def test_an_old_mechanism_path_is_the_module_at_its_family_path_itself():
    import dpaudit.mechanisms.dp_sgd
    import dpaudit.mechanisms.training.dp_sgd
    from dpaudit.mechanisms.tree import BinaryTreeMechanism

    assert dpaudit.mechanisms.dp_sgd is dpaudit.mechanisms.training.dp_sgd
    assert dpaudit.mechanisms.dp_sgd.__name__ == "dpaudit.mechanisms.training.dp_sgd"
    assert BinaryTreeMechanism.__module__ == "dpaudit.mechanisms.counters.tree"


def test_the_shuffle_package_keeps_the_names_of_the_module_whose_path_it_took():
    """``dpaudit.mechanisms.shuffle`` was shuffled randomized response's module; now it is the shuffle family's
    package, which re-exports that module's public names (an alias cannot share a package's path)."""
    from dpaudit.mechanisms import shuffle
    from dpaudit.mechanisms.shuffle import ShuffledRandomizedResponse, fmt_shuffle_epsilon, shuffled_response

    assert ShuffledRandomizedResponse is shuffled_response.ShuffledRandomizedResponse
    assert fmt_shuffle_epsilon is shuffled_response.fmt_shuffle_epsilon
    assert set(shuffle.__all__) >= set(shuffled_response.__all__)


def test_a_pickle_that_names_an_old_mechanisms_path_loads():
    """A pickle written before the families names a release by its flat module (dpaudit.mechanisms.tree)."""
    import pickle

    from dpaudit.mechanisms.counters.tree import BinaryTreeMechanism
    from dpaudit.mechanisms.noise import Laplace

    release = BinaryTreeMechanism(8, Laplace(2.0))
    blob = pickle.dumps(release, protocol=0)
    assert b"dpaudit.mechanisms.counters.tree" in blob
    old = blob.replace(b"dpaudit.mechanisms.counters.tree", b"dpaudit.mechanisms.tree")
    loaded = pickle.loads(old)
    assert type(loaded) is BinaryTreeMechanism and loaded.T == release.T
