"""The pytest plugin, exercised through pytest's own pytester.

The refuted mechanism (noise scale 0.1 claimed as eps = 1) escapes refutation with probability
below 1e-9; the passing test is an exact audit.
"""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

USER_TESTS = '''
import dpaudit
from dpaudit.mechanisms import LaplaceMechanism


def leaky(data, size, rng):
    return data + rng.laplace(0, 0.1, size)


def test_correct(privacy_audit):
    res = privacy_audit(LaplaceMechanism(1.0), dpaudit.PureDP(1.0), pairs=[(0, 1)])
    assert res.verdict == "verified"


def test_leaky(privacy_audit):
    privacy_audit(leaky, dpaudit.PureDP(1.0), pairs=[(0, 1)], samples=50_000)


def test_assert_private():
    from dpaudit.testing import assert_private
    assert_private(leaky, dpaudit.PureDP(1.0), pairs=[(0, 1)], samples=50_000, seed=0)
'''


@pytest.mark.slow
def test_fixture_fails_with_the_witness(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*leaky: claim pure-dp epsilon=1.0 refuted by black-box*",
                                 "*witness: {\"pair\": ?0, 1?, *"])


@pytest.mark.slow
def test_fixture_is_reproducible(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    first = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "leaky", "--dpaudit-seed", "3")
    second = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "leaky", "--dpaudit-seed", "3")
    witness = [line for line in first.outlines if "witness" in line]
    assert witness and witness == [line for line in second.outlines if "witness" in line]
