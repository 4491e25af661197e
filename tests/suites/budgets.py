"""A suite whose regret entries run at some budgets only, or expect a verdict per budget."""

import numpy as np

import dpaudit
from dpaudit.algorithms import BernoulliBandit
from dpaudit.suite import Suite
from dpaudit.testing import ExploreThenCommit, explore_then_commit_regret

suite = Suite("testing-budgets", "entries per budget")
ENV = BernoulliBandit([0.6, 0.4])
EXACT = dpaudit.RegretBound(lambda T: explore_then_commit_regret([0.6, 0.4], 10, T), "exact E[R_T]")
suite.regret("testing-budgets/everywhere", policy=ExploreThenCommit(10), environment=ENV, claim=EXACT,
             horizons={"quick": 300, "paper": 3000})
suite.regret("testing-budgets/paper-only", policy=ExploreThenCommit(10), environment=ENV, claim=EXACT,
             horizons={"quick": 300, "paper": 3000}, budgets=("paper",))
# 0.9 x the exact regret fails once the regret is positive (after m = 10 rounds): verified at T <= 10 only
suite.regret("testing-budgets/fails-at-paper", policy=ExploreThenCommit(10), environment=ENV,
             claim=dpaudit.RegretBound(lambda T: 0.9 * explore_then_commit_regret([0.6, 0.4], 10, T) + 1e-9 * T,
                                       "0.9 x exact E[R_T]"),
             horizons={"quick": [5, 10], "paper": np.array([10, 100, 1000])},
             expected={"quick": "not-refuted", "paper": "refuted"}, reason="0.9 x the regret fails after 2m rounds",
             footing="as printed")
