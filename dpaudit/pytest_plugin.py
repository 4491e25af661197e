"""pytest plugin (loaded automatically once dpaudit is installed).

The ``privacy_audit`` fixture audits a claim inside a test and fails it with the witness::

    def test_my_mechanism_is_private(privacy_audit):
        privacy_audit(my_mech, dpaudit.PureDP(1.0), pairs=[(0, 1)])

Each call is seeded from ``--dpaudit-seed`` (default 0) and the test's node id, so a test is
reproducible and independent of the order tests run in; pass ``seed=`` to override.
"""

from __future__ import annotations

from typing import Any

import pytest

from .api.privacy import audit_privacy
from .core.claims import Claim
from .core.results import REFUTED, AuditResult
from .core.seeding import claim_seed_sequence
from .testing import refutation_message


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpaudit")
    group.addoption("--dpaudit-seed", type=int, default=0, help="run seed of privacy_audit fixtures (default 0)")


@pytest.fixture
def privacy_audit(request: pytest.FixtureRequest):
    """Callable ``privacy_audit(mech, claim, *, pairs, **kwargs) -> AuditResult`` that fails the
    test, with the witness in the message, when the claim is refuted. Keyword arguments are those
    of :func:`dpaudit.audit_privacy`."""
    run_seed = request.config.getoption("--dpaudit-seed")
    calls = 0

    def audit(mech: Any, claim: Claim, **kwargs: Any) -> AuditResult:
        nonlocal calls
        if "seed" not in kwargs:
            kwargs["seed"] = claim_seed_sequence(run_seed, f"{request.node.nodeid}#{calls}")
        calls += 1
        result = audit_privacy(mech, claim, **kwargs)
        if result.verdict == REFUTED:
            pytest.fail(refutation_message(result), pytrace=False)
        return result

    return audit
