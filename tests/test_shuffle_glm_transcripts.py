"""shuffle-glm's algorithm-level privacy entries (audits/shuffle_glm/transcripts.py): ShuffleGLM's recorded
batch views are the P_2 counts its analyzer used, drawn as without recording; the facts the entries'
docstring states about the audited instances (every round explores, the warm-up covers the horizon, rewards
cannot move an action); the entries' claims as printed; and that the audits run."""

from __future__ import annotations

import dataclasses

import numpy as np

import dpaudit
from dpaudit import ApproxDP
from dpaudit.algorithms.glm.shuffle_glm import ShuffleGLM
from dpaudit.algorithms.registry import ALGORITHMS
from dpaudit.audits.shuffle_glm import transcripts
from dpaudit.bandits.contextual_transcripts import ContextualTranscript, view_recorder
from dpaudit.mechanisms.shuffle.vector_summation import OuterProductSummation, ShuffledMatrixSummation
from dpaudit.suite import load_suites


class ShortBatches(ShuffleGLM):
    """ShuffleGLM with three batches of 6, 6, 8 rounds (the printed schedule makes one batch of any short
    horizon), so that views of several batches are recorded."""

    def settings(self, d, T):
        return dataclasses.replace(super().settings(d, T), lam=1.0, gamma=0.3, batches=(6, 6, T - 12))


def table(T: int, seed: int) -> np.ndarray:
    """T users with two random unit arms each (d = 2) and rewards in [0, 1]."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, 2, 2))
    x /= np.linalg.norm(x, axis=2, keepdims=True)
    return np.concatenate([x, rng.random((T, 2, 1))], axis=2)


def test_recording_views_changes_no_draw_and_keeps_every_batchs_counts():
    data = table(20, 1)
    runs = []
    for record in (False, True):
        policy = ShortBatches(4.0, 0.1, record=True)
        policy.record_views = record
        transcript = ContextualTranscript(policy, 2, 2, 20, output="actions")
        runs.append((transcript.sample(data, 6, np.random.default_rng(7)), policy))
    (actions, quiet), (same, loud) = runs
    assert not ShuffleGLM(4.0, 0.1).record_views  # off by default
    assert quiet.views == [] and len(loud.views) == 2  # the last batch ends after round 19 (no observe at 20)
    assert np.array_equal(actions, same)
    for batch, ((W, _), (W_loud, _), counts) in enumerate(zip(quiet.trace["releases"], loud.trace["releases"],
                                                              loud.views, strict=True)):
        assert counts.shape == (6, 3) and counts.dtype.kind == "i"
        assert np.array_equal(W, W_loud)
        # the released matrix is the analyzer's output on exactly these counts (Delta = 1 in the warm-up,
        # 1/kappa* after)
        Delta = 1.0 if batch == 0 else 1 / loud.kappa_star
        protocol = ShuffledMatrixSummation(4.0 / 2, 0.1 / 2, 2, 6, Delta)
        assert np.allclose(protocol.analyze(counts) + loud.config.lam * np.eye(2), W)


def test_the_recorded_view_is_p2_on_the_played_arms_from_the_policys_stream():
    # identical arms make every user's input x x^T whichever arm the design picks, so the view is P_2's
    # counts on known inputs: replaying the policy's stream (one uniform per round for the design, then
    # the release) must give the same counts exactly
    T, runs = 8, 5
    arms = np.array([[0.6, 0.8], [0.6, 0.8]])
    data = np.concatenate([np.broadcast_to(arms, (T, 2, 2)), np.zeros((T, 2, 1))], axis=2)
    policy = ALGORITHMS["shuffle-glm"](eps=4.0, delta=0.1)
    views = ContextualTranscript(policy, 2, 2, T, output="messages").sample(data, runs, np.random.default_rng(3))
    assert not policy.record_views and view_recorder(policy) is policy
    replay = np.random.default_rng(3)
    for _ in range(T):
        replay.random(runs)
    protocol = OuterProductSummation(ShuffledMatrixSummation(2.0, 0.05, 2, T, 1.0))
    assert np.array_equal(views, protocol.counts_runs(np.broadcast_to(arms[0], (runs, T, 2)), replay))


def test_a_statistics_release_is_preferred_as_the_recorder():
    class Recorder:
        record_views = False

    class Policy:
        record_views = False
        statistics = Recorder()

    policy = Policy()
    assert view_recorder(policy) is policy.statistics
    policy.statistics = None
    assert view_recorder(policy) is policy
    assert view_recorder(object()) is None


def test_the_audited_instances_are_as_the_docstring_says():
    T = transcripts.T_ALG
    # JDP-GLM at S = 2 and at S = 3, kappa* = 20: every round explores; at S = 1 none does and the actions
    # are a function of the arms alone (arm 0 of two unit arms, always)
    for S, kappa_star, explores in [(2.0, None, True), (3.0, 20.0, True), (1.0, None, False)]:
        policy = ALGORITHMS["jdp-glm"](eps=1.0, delta=0.02, zeta=0.01, S=S, kappa_star=kappa_star)
        actions = ContextualTranscript(policy, 2, 2, T).sample(transcripts.BASE, 200, np.random.default_rng(0))
        assert (policy.in_T_o[:, : T - 1].all() if explores else not policy.in_T_o.any())
        assert (policy.switches == 0).all()
        assert explores or (actions == 0).all()
    # the rewards-flipped pair: the same stream gives the same actions (no action reads a reward there)
    for entry in _entries("thm6.2-jdp@algorithm"):
        a, b = entry.pairs[0]
        rng = [np.random.default_rng(4) for _ in range(2)]
        assert np.array_equal(entry.subject.sample(a, 300, rng[0]), entry.subject.sample(b, 300, rng[1]))
    # ShuffleGLM: the printed B_1 exceeds T, so the horizon is one warm-up batch and one view of 3 counts
    policy = ALGORITHMS["shuffle-glm"](eps=4.0, delta=0.1)
    assert policy.settings(2, T).batches == (T,)
    [entry] = _entries("thm5.1-sdp@algorithm")
    assert entry.subject.sample(entry.pairs[0][1], 4, np.random.default_rng(0)).shape == (4, 3)


def _entries(prefix: str) -> list:
    return [e for e in load_suites()["shuffle-glm"].entries if e.id.startswith(f"shuffle-glm/{prefix}")]


def test_the_entries_claim_the_theorems_as_printed():
    jdp, sdp = _entries("thm6.2-jdp@algorithm"), _entries("thm5.1-sdp@algorithm")
    assert len(jdp) == 2 and len(sdp) == 1
    for entry in jdp:
        assert entry.claim == ApproxDP(1.0, 0.02) and entry.subject.output == "jdp" and entry.subject.protected == 1
        policy = entry.subject.policy
        assert policy.delta > policy.zeta  # Theorem 6.2's condition
        for a, b in entry.pairs:  # the pairs differ in the protected user (round 1) only
            assert np.array_equal(a[1:], b[1:]) and not np.array_equal(a[0], b[0])
    assert sdp[0].claim == ApproxDP(4.0, 0.1) and sdp[0].subject.output == "messages"
    assert sdp[0].subject.policy.eps < 5 and sdp[0].subject.policy.delta < 0.5


def test_the_sdp_entry_audits_the_algorithms_views():
    # the cheapest entry (about 2 s at the quick budget), here at 4,000 runs per side: ShuffleGLM's P_2 at
    # (2, 0.05) is far inside (4, 0.1) (delta ~ 1e-13 at the batch level), so a refutation would be a false
    # one, probability <= alpha = 1e-3
    [entry] = _entries("thm5.1-sdp@algorithm")
    result = dpaudit.audit_privacy(entry.subject, entry.claim, pairs=entry.pairs, samples=4_000, seed=0,
                                   confidence=0.999)
    assert result.verdict == "not-refuted", result.to_dict()
