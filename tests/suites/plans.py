"""A suite whose entries plan differently under `auto`: one the exact auditor always decides (no share
of alpha), one it may leave undecided (an MGF claim about a law without a cgf: audited from samples when the
implied tail does not refute it, with a share and a note saying why)."""

from scipy import stats

from dpaudit import PureDP, QueryDistance, SubGaussian
from dpaudit.mechanisms import LaplaceMechanism
from dpaudit.suite import Suite

suite = Suite("testing-plans", "plans from the auditors' support")


class NormalWithoutCgf:
    """N(0, 1) with cdf, sf and moments but no cumulant generating function."""

    name = "N(0, 1) without a cgf"
    lattice = False
    mean, var = 0.0, 1.0

    def sample(self, size, rng):
        return rng.normal(0.0, 1.0, size)

    def cdf(self, x):
        return stats.norm.cdf(x)

    def sf(self, x):
        return stats.norm.sf(x)


suite.privacy("testing-plans/exact", subject=LaplaceMechanism(1.0), claim=PureDP(1.0), pairs=[(0, 1)],
              relation=QueryDistance(1))
suite.tail("testing-plans/no-cgf", subject=NormalWithoutCgf(), claim=SubGaussian(1.0),
           samples={"quick": 100_000})
