"""A suite exercising the runner's failure paths: a mechanism that raises, an unexpected
refutation, and a correct entry that must still complete."""


from dpaudit import PureDP, QueryDistance
from dpaudit.mechanisms import AdditiveNoiseMechanism, Laplace, LaplaceMechanism
from dpaudit.suite import Suite

suite = Suite("testing-broken", "runner failure paths")


def raises(data, size, rng):
    raise RuntimeError("this mechanism is broken on purpose")


suite.privacy("testing-broken/raises", subject=raises, claim=PureDP(1.0), pairs=[(0, 1)], auditor="statistical")
suite.privacy("testing-broken/correct", subject=LaplaceMechanism(1.0), claim=PureDP(1.0), pairs=[(0, 1)],
              relation=QueryDistance(1))
suite.privacy("testing-broken/overclaimed", subject=AdditiveNoiseMechanism(Laplace(0.5)), claim=PureDP(1.0),
              pairs=[(0, 1)], auditor="exact")
