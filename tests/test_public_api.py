"""The public API does not move: every name the README uses, from ``dpaudit`` and from its documented
submodules, imports from the path the README gives.

When a module moves, its old dotted path must keep working (the README's examples and users' code use it),
and the README changes in the same commit if a documented path changes.
"""

from __future__ import annotations

import importlib

import pytest

import dpaudit

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
    "run_preset", "simulate", "scalar", "unseeded", "adapters", "__version__",
]

# documented submodules and the names the README takes from them
DOCUMENTED = {
    "dpaudit.distributions": ["FiniteDistribution"],
    "dpaudit.neighbours": ["QueryDistance", "one_changed"],
    "dpaudit.domains": ["Box", "Datasets"],
    "dpaudit.laws": ["Law"],
    "dpaudit.suite": ["Suite"],
    "dpaudit.policies": ["Policy", "horizon_use"],
    "dpaudit.transcripts": ["DecisionTranscript"],
    "dpaudit.contextual_transcripts": ["ContextualTranscript"],
    "dpaudit.testing": ["assert_private", "ExploreThenCommit"],
    "dpaudit.experiments": ["Preset"],
    "dpaudit.plots": ["render"],
    "dpaudit.simulation_cache": [],
    "dpaudit.validation": [],
    "dpaudit.piecewise_exponential": [],
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
    imported = importlib.import_module("dpaudit.policies")
    assert not hasattr(imported, "NoSuchPolicy")
