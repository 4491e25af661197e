"""Expected refutations, one reproduced and one not (exit code 1)."""

from dpaudit import PureDP
from dpaudit.mechanisms import AdditiveNoiseMechanism, Laplace, LaplaceMechanism
from dpaudit.suite import Suite

suite = Suite("testing-refutations", "expected refutations")

suite.privacy("testing-refutations/reproduced", subject=AdditiveNoiseMechanism(Laplace(0.5)), claim=PureDP(1.0),
              pairs=[(0, 1)], expected="refuted", reason="scale 0.5 gives epsilon 2",
              footing="as printed")
suite.privacy("testing-refutations/not-reproduced", subject=LaplaceMechanism(1.0), claim=PureDP(1.0),
              pairs=[(0, 1)], expected="refuted", reason="wrongly expected: this mechanism is correct",
              footing="as printed")
