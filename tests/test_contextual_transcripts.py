"""ContextualTranscript (dpaudit.bandits.contextual_transcripts): a contextual policy's own decisions on a given
table of users, the JDP output without the protected round, the analyzer's views recorded by the
statistics releases, the returning-users layout, the power to refute a policy that leaks one user's
reward into later actions, and clear errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpaudit
from dpaudit import ApproxDP
from dpaudit.algorithms.linear.linucb import LinUCB, linucb_one_run
from dpaudit.algorithms.linear.registry import ALGORITHMS
from dpaudit.bandits.contextual_transcripts import ContextualTranscript
from dpaudit.core.neighbours import ReplaceUser

T, K, D = 8, 2, 2
FEATURES = np.array([[0.7, 0.0], [0.0, 0.7]])


def users(rewards: np.ndarray, features: np.ndarray = FEATURES) -> np.ndarray:
    """A (T, K, d + 1) table: the same arms every round, the given (T, K) rewards."""
    horizon = len(rewards)
    return np.concatenate([np.broadcast_to(features, (horizon, *features.shape)), rewards[..., None]], axis=2)


class Leaky:
    """Round 1 plays arm 0; from round 2 on plays, with probability 0.9, the arm named by round 1's
    reward (1 if it exceeded 1/2) and otherwise a fair coin: one user's reward leaks into every later
    action (each later action alone has likelihood ratio 0.95 / 0.05 = 19 between the two rewards)."""

    feedback = "bandit"
    contextual = True

    def start(self, runs, arms, horizon, rng):
        self.rng, self.bit = rng, np.zeros(runs, dtype=np.int64)

    def choose(self, t, contexts):
        if t == 1:
            return np.zeros(contexts.shape[0], dtype=np.int64)
        keep = self.rng.random(len(self.bit)) < 0.9
        return np.where(keep, self.bit, self.rng.integers(0, 2, len(self.bit)))

    def observe(self, t, arms, rewards):
        if t == 1:
            self.bit = (rewards > 0.5).astype(np.int64)


class Constant(Leaky):
    """Arm 1 at every round, whatever it sees."""

    def choose(self, t, contexts):
        return np.ones(contexts.shape[0], dtype=np.int64)


def test_the_transcript_gives_the_policys_own_decisions():
    rewards = np.random.default_rng(3).random((T, K))
    for B in (1, 2, 3):
        policy = LinUCB(B=B)
        out = ContextualTranscript(policy, K, D, T).sample(users(rewards), 4, np.random.default_rng(0))
        assert out.dtype == np.int64 and out.shape == (4, T)
        assert (out == linucb_one_run(policy, FEATURES, rewards, T)).all()


def test_jdp_output_drops_the_protected_round():
    rewards = np.random.default_rng(4).random((T, K))
    data = users(rewards)
    full = ContextualTranscript(LinUCB(B=2), K, D, T).sample(data, 3, np.random.default_rng(0))
    for protected in (1, 5, T):
        jdp = ContextualTranscript(LinUCB(B=2), K, D, T, output="jdp", protected=protected)
        assert jdp.rounds == tuple(t for t in range(1, T + 1) if t != protected)
        out = jdp.sample(data, 3, np.random.default_rng(0))
        assert out.shape == (3, T - 1) and (out == np.delete(full, protected - 1, axis=1)).all()
        d0, d1 = jdp.jdp_pair(data, users(np.zeros((T, K)))[0])
        ReplaceUser(batch_size=T).check(d0, d1)
        assert np.flatnonzero((d0 != d1).any(axis=(1, 2))).tolist() in ([], [protected - 1])


def test_a_policy_leaking_one_users_reward_is_refuted_and_a_constant_one_is_not():
    zeros = users(np.zeros((T, K)))
    pair = ContextualTranscript(Leaky(), K, D, T, output="jdp", protected=1).jdp_pair(zeros, [[0.7, 0, 1], [0, 0.7, 1]])
    claim = ApproxDP(1.0, 0.01)
    leak = dpaudit.audit_privacy(ContextualTranscript(Leaky(), K, D, T, output="jdp", protected=1), claim,
                                 pairs=[pair], samples=20_000, seed=1, auditor="statistical")
    # the true loss of the seven later actions is 7 ln 19 (about 20.6): refuted for every seed in practice
    assert leak.verdict == "refuted"
    constant = dpaudit.audit_privacy(ContextualTranscript(Constant(), K, D, T, output="jdp", protected=1), claim,
                                     pairs=[pair], samples=20_000, seed=1, auditor="statistical")
    # the output is the same constant on both sides: no event separates them, whatever the seed
    assert constant.verdict != "refuted"


def test_messages_are_the_views_the_release_analysed():
    rewards = np.random.default_rng(5).random((T, K))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        policy = ALGORITHMS["linucb-sdp-vec"](eps=15.0, delta=0.4, B=2)
    transcript = ContextualTranscript(policy, K, D, T, output="messages")
    views = transcript.sample(users(rewards), 5, np.random.default_rng(0))
    labels = D + D * (D + 1) // 2
    assert views.shape == (5, (T // 2) * labels) and views.dtype.kind == "i"
    assert not policy.statistics.record_views  # switched off again after the run
    # the policy's cumulative statistics are the analyzer's outputs of exactly these counts
    protocol = policy.statistics.mechanism
    u, gram = protocol.analyze(views.reshape(5, T // 2, labels))
    assert np.allclose(gram.sum(axis=1), policy.statistics.gram) and np.allclose(u.sum(axis=1), policy.statistics.u)


def test_messages_of_p_amp_and_of_the_concurrent_shufflers():
    rewards = np.random.default_rng(6).random((T, K))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        amp = ALGORITHMS["linucb-sdp-amp"](eps=0.5, B=4)
        cs = ALGORITHMS["cs-linucb"](eps=0.5, delta=0.1)
    out = ContextualTranscript(amp, K, D, T, output="messages").sample(users(rewards), 3, np.random.default_rng(0))
    assert out.shape == (3, 2 * 5) and out.dtype.kind == "f"
    views = ContextualTranscript(cs, K, D, T, output="messages").sample(users(rewards), 3, np.random.default_rng(0))
    # T = 8, k = log2 8 = 3 shufflers, degree 2, d_low = 1: 8 + 4 + 2 blocks complete, 5 labels each
    assert views.shape == (3, 14 * 5) and views.dtype.kind == "i"


def test_returning_users_are_one_user_in_every_batch():
    rewards = np.arange(T * K, dtype=float).reshape(T, K) / (T * K)
    transcript = ContextualTranscript(LinUCB(B=2), K, D, T, users_per_batch=2)
    assert transcript.shape == (2, 4, K, D + 1)
    user_major = np.swapaxes(users(rewards).reshape(4, 2, K, D + 1), 0, 1)  # round m U + u + 1 is user u
    assert (transcript.table(user_major) == users(rewards)).all()
    assert (transcript.sample(user_major, 2, np.random.default_rng(0))
            == linucb_one_run(LinUCB(B=2), FEATURES, rewards, T)).all()


@pytest.mark.parametrize("make, error, message", [
    (lambda: ContextualTranscript(object(), K, D, T), TypeError, "is not a policy"),
    (lambda: ContextualTranscript(Constant(), K, D, T, output="jdp"), ValueError, "protected round"),
    (lambda: ContextualTranscript(Constant(), K, D, T, protected=2), ValueError, "output='jdp' only"),
    (lambda: ContextualTranscript(Constant(), K, D, T, output="jdp", protected=T + 1), ValueError, "1..8"),
    (lambda: ContextualTranscript(Constant(), K, D, T, output="messages"), TypeError, "record_views"),
    (lambda: ContextualTranscript(Constant(), K, D, T, output="views"), ValueError, "output must be one of"),
    (lambda: ContextualTranscript(Constant(), K, D, T, users_per_batch=3), ValueError, "multiple"),
    (lambda: ContextualTranscript(Constant(), K, D, T).sample(np.zeros((T, K, D)), 2, np.random.default_rng()),
     ValueError, r"shape \(8, 2, 3\)"),
    (lambda: ContextualTranscript(Constant(), K, D, T).sample(users(np.full((T, K), 2.0)), 2,
                                                              np.random.default_rng()), ValueError, r"\[0, 1\]"),
])
def test_bad_input_is_a_clear_error(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_a_non_contextual_policy_is_refused():
    class Plain(Constant):
        contextual = False

    with pytest.raises(TypeError, match="not a contextual policy"):
        ContextualTranscript(Plain(), K, D, T)


def test_the_first_batch_view_and_its_exact_law():
    from dpaudit.bandits.contextual_transcripts import FirstBatchView

    rewards = np.random.default_rng(7).random((T, K))
    policy = ALGORITHMS["linucb-sdp-vec"](eps=15.0, delta=0.4, B=4)
    view = FirstBatchView(policy, K, D, T, batch=4)
    data = users(rewards)
    out = view.sample(data, 6, np.random.default_rng(0))
    assert out.shape == (6, D + D * (D + 1) // 2) and (out == policy.statistics.views[0]).all()
    # the initial model scores both arms (equal norms) alike: LinUCB plays arm 0, the lowest, until the
    # first update, so the first batch's rows are arm 0's features and rewards
    assert (view.rows(data) == data[:4, 0]).all()
    law = view.distribution(data)
    direct = policy.statistics.mechanism.distribution(data[:4, 0])
    assert len(law.coordinates) == len(direct.coordinates) == out.shape[1]
    for ours, theirs in zip(law.coordinates, direct.coordinates, strict=True):
        assert (ours.outcomes == theirs.outcomes).all() and np.allclose(ours.log_probs, theirs.log_probs)
    # the sampled counts lie where the law puts its mass: within 12 standard deviations of Bin(B b, 1/4)
    for j, coordinate in enumerate(law.coordinates):
        assert coordinate.outcomes.min() <= out[:, j].min() and out[:, j].max() <= coordinate.outcomes.max()
    with pytest.raises(ValueError, match="plays in the first batch are random"):
        FirstBatchView(RandomFirst(), K, D, T, batch=2).rows(data)


class RandomFirst(Constant):
    """A fair coin every round: its first batch's plays are not fixed (a release that records nothing)."""

    class statistics:
        record_views = False

    def choose(self, t, contexts):
        return self.rng.integers(0, 2, contexts.shape[0])


@pytest.mark.parametrize("cid", ["remark3.4-jdp@algorithm,eps0.5,delta0.1,B4,T16,K2,d2",
                                 "corC.2-jdp@algorithm,eps1,delta0.1,B4,T16,K2,d2"])
def test_the_billboard_jdp_entries_audit_the_other_users_actions(cid):
    """shuffle-lcb's JDP through the Billboard lemma, read with constant 1: the entries' transcripts drop the protected
    user's round, run from the standard budget up, and are not refuted from 20,000 runs per side (the statistical
    auditor's level: false-refutation rate at most 0.01)."""
    from dpaudit.suite import find_entry

    entry = find_entry(f"shuffle-lcb/{cid}")
    assert "quick" not in entry.budgets and entry.subject.rounds == tuple(range(2, 17))
    result = dpaudit.audit_privacy(entry.subject, entry.claim, pairs=entry.pairs, samples=20_000, seed=3,
                                   auditor="statistical")
    assert result.verdict == "not-refuted"


def test_the_returning_user_p_amp_entry_audits_every_batch():
    """shuffle-lcb/thmE.3-privacy@algorithm: the returning user changes in each of the M = 4 batches; not refuted from
    20,000 runs per side (the statistical auditor's level bounds a false refutation by 0.01)."""
    from dpaudit.suite import find_entry

    entry = find_entry("shuffle-lcb/thmE.3-privacy@algorithm,eps1,delta0.1,B4,T16,K2,d2")
    assert "quick" not in entry.budgets
    for a, b in entry.pairs:
        assert (np.asarray(a) != np.asarray(b)).any(axis=(2, 3)).sum() == 4  # one user, every batch
    result = dpaudit.audit_privacy(entry.subject, entry.claim, pairs=entry.pairs, samples=20_000, seed=5,
                                   auditor="statistical")
    assert result.verdict == "not-refuted"
