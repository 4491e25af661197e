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
    "dpaudit.mechanisms.randomized_response": [],
    "dpaudit.mechanisms.distributed_sum_analysis": [],
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
    a wrong one would send imports to the wrong module)."""
    root = Path(dpaudit.__file__).parent
    for old, new in MOVED.items():
        rel = old.split(".")[1:]
        assert not (root.joinpath(*rel).with_suffix(".py")).exists() and not root.joinpath(*rel).is_dir(), old
        assert importlib.util.find_spec(new) is not None, new
