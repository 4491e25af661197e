"""The ``classic`` suite: well-known mechanisms whose true privacy is known in closed form.

It validates the auditors themselves: correct mechanisms must never be refuted and broken ones
must be. Each entry's true epsilon is derived in the comment above it. ``-blackbox`` twins audit
the same mechanism from samples only, so both the exact and the statistical auditor are
checked on every budget.

Neighbouring relation throughout: query answers within the sensitivity 1
(:class:`~dpaudit.neighbours.QueryDistance`), audited on the extreme pair (0, 1); by
translation invariance of additive noise every pair at distance 1 has the same privacy loss.
"""

from __future__ import annotations

from dpaudit import PureDP, QueryDistance
from dpaudit.mechanisms import AdditiveNoiseMechanism, DiscreteLaplaceMechanism, Laplace, LaplaceMechanism
from dpaudit.suite import Suite

suite = Suite("classic", "Well-known mechanisms with known true privacy")

UNIT = QueryDistance(sensitivity=1)

# Laplace mechanism, scale 1/eps: the loss eps (|x - 1| - |x|) is at most eps, attained
# for every x <= 0, so the true epsilon is exactly eps.
for eps in (0.1, 1.0):
    for auditor, suffix in (("exact", ""), ("statistical", "-blackbox")):
        suite.privacy(
            f"classic/laplace-eps{eps:g}{suffix}",
            title=f"Laplace mechanism, eps={eps:g} ({auditor})",
            subject=LaplaceMechanism(eps),
            claim=PureDP(eps),
            pairs=[(0.0, 1.0)],
            relation=UNIT,
            auditor=auditor,
            truth=eps,
        )

# The classic bug: the noise scale set to eps instead of 1/eps. With scale b = 0.1 the loss
# (|x - 1| - |x|) / b reaches 1/b = 10, so the true epsilon is 10 against a claim of 0.1.
SCALE_BUG = AdditiveNoiseMechanism(Laplace(0.0, 0.1), name="Laplace with scale eps (0.1) instead of 1/eps")
for auditor, suffix in (("exact", ""), ("statistical", "-blackbox")):
    suite.privacy(
        f"classic/laplace-scale-eps{suffix}",
        title=f"Laplace mechanism with scale eps instead of 1/eps ({auditor})",
        subject=SCALE_BUG,
        claim=PureDP(0.1),
        pairs=[(0.0, 1.0)],
        relation=UNIT,
        auditor=auditor,
        expected="refuted",
        reason="known-broken validation mechanism: scale 0.1 instead of 10 gives true epsilon 10, not 0.1",
        truth=10.0,
    )

# Discrete Laplace (geometric) mechanism, P[Z = k] ~ exp(-eps |k|): the log-ratio of the pmfs at
# answers 0 and 1 is eps (|k - 1| - |k|), at most eps, attained at every k <= 0.
for auditor, suffix in (("exact", ""), ("statistical", "-blackbox")):
    suite.privacy(
        f"classic/discrete-laplace-eps1{suffix}",
        title=f"Discrete Laplace (geometric) mechanism, eps=1 ({auditor})",
        subject=DiscreteLaplaceMechanism(1.0),
        claim=PureDP(1.0),
        pairs=[(0, 1)],
        relation=UNIT,
        auditor=auditor,
        truth=1.0,
    )

# Laplace on a vector query, one coordinate changing by 1: the loss is the first coordinate's
# loss alone, so epsilon is exactly eps; on the all-coordinates-change pair (0,0) vs (1,1)
# the losses add up to 2 eps, which is why the relation is one-coordinate here.
suite.privacy(
    "classic/laplace-vector-eps0.5",
    title="Laplace mechanism on a 3-dimensional query, one coordinate changed (exact)",
    subject=LaplaceMechanism(0.5),
    claim=PureDP(0.5),
    pairs=[([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), ([0.0, 0.0, 0.0], [0.0, 0.0, -1.0])],
    relation=QueryDistance(sensitivity=1, one_coordinate=True),
    auditor="exact",
    truth=0.5,
)
