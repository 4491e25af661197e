"""The policy protocol (dpaudit.bandits.policies) and DecisionTranscript (dpaudit.bandits.transcripts) on small
policies written here: the feedback each kind receives, the rounds recorded, the fast path, the exact
law only when the policy supplies one, and clear errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import dpaudit
from dpaudit import PureDP
from dpaudit.bandits.policies import Policy, check_policy
from dpaudit.bandits.transcripts import DecisionTranscript, ExactDecisionTranscript
from dpaudit.core.distributions import FiniteDistribution, ProductDistribution
from dpaudit.core.subjects import Mechanism


class Greedy:
    """Plays the arm with the largest reward seen last round (arm 0 first); records its feedback."""

    def __init__(self, feedback: str = "full"):
        self.feedback = feedback
        self.seen: list[tuple[int, np.ndarray, np.ndarray]] = []

    def start(self, runs, arms, horizon, rng):
        self.runs, self.arms, self.rng = runs, arms, rng
        self.current = np.zeros(runs, dtype=np.int64)
        self.seen.clear()

    def choose(self, t):
        return self.current.copy()

    def observe(self, t, arms, rewards):
        self.seen.append((t, np.array(arms), np.array(rewards)))
        if self.feedback == "full":
            self.current = np.argmax(rewards, axis=1)
        else:  # stay on a rewarded arm, else move to the next one
            self.current = np.where(rewards > 0.5, arms, (arms + 1) % self.arms)


class CoinFlip:
    """From round 2 on, plays arm 1 with probability p (drawn once, at round 2), else arm 0."""

    feedback = "bandit"

    def __init__(self, p: float, with_law: bool = True):
        self.p = p
        if with_law:
            self.decision_distribution = self._law

    def start(self, runs, arms, horizon, rng):
        self.rng, self.current = rng, np.zeros(runs, dtype=np.int64)

    def choose(self, t):
        if t == 2:
            self.current = (self.rng.random(len(self.current)) < self.p).astype(np.int64)
        return self.current

    def observe(self, t, arms, rewards):
        pass

    def decision_rounds(self, horizon):
        return [2]

    def _law(self, table, rounds):
        coin = FiniteDistribution(np.array([0, 1]), np.log([1 - self.p, self.p]))
        return ProductDistribution(tuple(coin for _ in rounds))


TABLE = np.array([[0.2, 0.9, 0.1], [0.8, 0.1, 0.3], [0.0, 0.0, 1.0], [0.5, 0.6, 0.7]])


def test_check_policy_names_what_is_missing():
    assert check_policy(Greedy()) is not None and isinstance(Greedy(), Policy)

    class Nothing:
        pass

    with pytest.raises(TypeError, match=r"no start, choose, observe \(.*optionally feedback"):
        check_policy(Nothing())
    with pytest.raises(TypeError, match="feedback must be 'bandit' or 'full'"):
        check_policy(Greedy("partial"))


def test_full_information_sees_each_round_broadcast_over_runs():
    policy = Greedy("full")
    t = DecisionTranscript(policy, 3, 4)
    assert t.rounds == (1, 2, 3, 4) and not hasattr(t, "distribution") and type(t) is DecisionTranscript
    out = t.sample(TABLE, 5, np.random.default_rng(0))
    assert out.dtype == np.int64 and out.tolist() == [[0, 1, 0, 2]] * 5
    assert [s[0] for s in policy.seen] == [1, 2, 3]  # round 4 is the last recorded: its feedback is not needed
    for t_, _, rewards in policy.seen:
        assert rewards.shape == (5, 3) and (rewards == TABLE[t_ - 1]).all()


def test_bandit_feedback_is_the_played_arms_rewards():
    policy = Greedy("bandit")
    t = DecisionTranscript(policy, 3, 4, rounds=[2, 4])
    out = t.sample(TABLE, 2, np.random.default_rng(0))
    # round 1 plays 0 (reward 0.2: move on), round 2 plays 1 (0.1: move on), round 3 plays 2 (1.0: stay)
    assert out.tolist() == [[1, 2], [1, 2]]
    assert [(s[0], s[1].tolist(), s[2].tolist()) for s in policy.seen] == [
        (1, [0, 0], [0.2, 0.2]), (2, [1, 1], [0.1, 0.1]), (3, [2, 2], [1.0, 1.0])]
    assert t.name == "Greedy over T=4 rounds, 3 arms, decisions at rounds [2, 4]"


def test_exact_law_only_when_the_policy_supplies_it():
    exact = DecisionTranscript(CoinFlip(0.3), 2, 3, name="coin")
    assert isinstance(exact, ExactDecisionTranscript) and exact.rounds == (2,) and exact.name == "coin"
    assert Mechanism(exact).has_distribution
    plain = DecisionTranscript(CoinFlip(0.3, with_law=False), 2, 3)
    assert not hasattr(plain, "distribution") and not Mechanism(plain).has_distribution
    res = dpaudit.audit_privacy(exact, PureDP(0.1), pairs=[(np.zeros((3, 2)), np.ones((3, 2)))], auditor="exact")
    assert res.verdict == "verified"  # the coin does not read the table
    with pytest.raises(TypeError, match="no decision_distribution"):
        ExactDecisionTranscript(CoinFlip(0.3, with_law=False), 2, 3)


def test_transcripts_survive_pickling():
    for t in (DecisionTranscript(Greedy(), 3, 4), DecisionTranscript(CoinFlip(0.5), 2, 3)):
        copy = pickle.loads(pickle.dumps(t))
        assert type(copy) is type(t) and copy.rounds == t.rounds and copy.name == t.name


def test_fast_path_is_used_by_sample_and_checked():
    class Fast(Greedy):
        def decisions(self, table, rounds, size, rng):
            return np.full((size, len(rounds)), 2)

    t = DecisionTranscript(Fast(), 3, 4)
    assert (t.sample(TABLE, 3, np.random.default_rng(0)) == 2).all()
    assert t.sample_per_round(TABLE, 3, np.random.default_rng(0)).tolist() == [[0, 1, 0, 2]] * 3

    class Wrong(Greedy):
        def decisions(self, table, rounds, size, rng):
            return np.full((size, len(rounds)), 3)

    with pytest.raises(ValueError, match=r"arms in \[0, 3\)"):
        DecisionTranscript(Wrong(), 3, 4).sample(TABLE, 3, np.random.default_rng(0))


@pytest.mark.parametrize("make, message", [
    (lambda: DecisionTranscript(Greedy(), 0, 4), "arms"),
    (lambda: DecisionTranscript(Greedy(), 3, 0), "horizon"),
    (lambda: DecisionTranscript(Greedy(), 3, 4, rounds=[]), "at least one round"),
    (lambda: DecisionTranscript(Greedy(), 3, 4, rounds=[3, 2]), "increase strictly"),
    (lambda: DecisionTranscript(Greedy(), 3, 4, rounds=[5]), "within 1..4"),
    (lambda: DecisionTranscript(Greedy(), 3, 4, rounds=[0]), "integer >= 1"),
    (lambda: DecisionTranscript(Greedy(), 3, 4).sample(TABLE[:3], 2, np.random.default_rng()), "4 reward vectors"),
    (lambda: DecisionTranscript(Greedy(), 3, 4).sample(TABLE * 2, 2, np.random.default_rng()), r"\[0, 1\]\^3"),
    (lambda: DecisionTranscript(Greedy(), 3, 4).sample(TABLE, -1, np.random.default_rng()), "size"),
])
def test_bad_input_is_a_clear_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_non_policy_is_refused():
    with pytest.raises(TypeError, match="is not a policy"):
        DecisionTranscript(object(), 2, 3)
