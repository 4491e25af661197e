"""LinUCB's compiled rounds (algorithms/linear/compiled.py) and the engine's contextual fast path: the compiled loop
makes the numpy path's decisions and the per-run reference's, round for round; the rewards it draws for the played
arm only are the law's; the instances draw a block of rounds as the per-round path draws them; the engine's fast
path keeps the regret's law and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS, LinearBandit, runs_in_threads
from dpaudit.algorithms.environments.linear import PlayedRewardDraws, ReturningUsers
from dpaudit.algorithms.linear import linucb
from dpaudit.algorithms.linear.linucb import LinUCB, linucb_one_run
from dpaudit.algorithms.linear.private_linucb import PrivateLinUCB
from dpaudit.algorithms.linear.released_code import ReleasedCodeLinUCB, released_code_one_run
from dpaudit.algorithms.linear.statistics import LocalGaussianSums, TreeSums

pytestmark = pytest.mark.skipif(not linucb.AVAILABLE, reason="numba is not installed (pip install dpaudit[fast])")


def per_round(policy: LinUCB, runs: int, contexts, table: np.ndarray, horizon: int, seed: int = 2) -> np.ndarray:
    """The numpy path's decisions, round by round (contexts: one fixed array, or one per round)."""
    policy.start(runs, table.shape[2], horizon, np.random.default_rng(seed))
    played = np.empty((horizon, runs), dtype=np.int64)
    for t in range(1, horizon + 1):
        x = contexts if np.ndim(contexts) == 3 else contexts[t - 1]
        played[t - 1] = policy.choose(t, x)
        policy.observe(t, played[t - 1], table[t - 1][np.arange(runs), played[t - 1]])
    return played


def compiled(policy: LinUCB, runs: int, contexts, rewards, horizon: int, cuts=(), seed: int = 2) -> np.ndarray:
    """The compiled loop's decisions, in blocks cut after the rounds ``cuts``."""
    policy.start(runs, np.shape(contexts)[-2], horizon, np.random.default_rng(seed))
    assert policy.compiled_rounds
    out, start = [], 1
    for end in [*cuts, horizon]:
        block = slice(start - 1, end)
        x = contexts if np.ndim(contexts) == 3 else contexts[block]
        if isinstance(rewards, np.ndarray):
            part = rewards[block]
        else:
            part = PlayedRewardDraws(rewards.law, rewards.theta, rewards.sigma, rewards.noise[block])
        played, collected = policy.play_rounds(start, x, part)
        assert played.shape == collected.shape == (end - start + 1, runs)
        out.append(played)
        start = end + 1
    return np.concatenate(out)


@pytest.mark.parametrize("B, refresh, fresh", [(1, 512, False), (1, 7, False), (3, 512, False), (1, 512, True),
                                              (4, 512, True)])
def test_compiled_rounds_make_the_numpy_paths_decisions(B, refresh, fresh, monkeypatch):
    """On one reward table of every arm (fixed arm sets and fresh contexts; refresh = 7: the kept widths and means
    computed afresh every 7 updates), cut into blocks at uneven rounds: the same arm in every round of every run,
    and the per-run reference's for the fixed arm sets."""
    monkeypatch.setattr(linucb, "REFRESH", refresh)
    runs, K, d, horizon = 12, 9, 4, 400
    rng = np.random.default_rng(B * 10 + fresh)
    instances = LinearBandit(K, d, fresh_contexts=fresh).instances(runs, rng)
    contexts = (np.stack([instances.contexts(rng) for _ in range(horizon)]) if fresh else instances.features)
    table = np.stack([instances.rewards(rng, contexts[t] if fresh else contexts) for t in range(horizon)])
    numpy_path = per_round(LinUCB(B=B, alpha=0.05), runs, contexts, table, horizon)
    fast = compiled(LinUCB(B=B, alpha=0.05), runs, contexts, table, horizon, cuts=(1, 37, 38, 250))
    np.testing.assert_array_equal(fast, numpy_path)
    assert len(np.unique(fast)) > 1  # it explores
    if not fresh:
        for r in range(3):
            reference = linucb_one_run(LinUCB(B=B, alpha=0.05), instances.features[r], table[:, r], horizon)
            np.testing.assert_array_equal(fast[:, r], reference)


def test_the_released_codes_linucb_runs_compiled_with_its_constants():
    """The released code's LinUCB (lambda 1e-4, a fixed width read from the largest feature norm, sqrt 2 on its
    generator) plays its numpy path's decisions and its per-run reference's; its SDP-Vec does not compile."""
    runs, K, d, horizon = 8, 10, 4, 300
    rng = np.random.default_rng(8)
    instances = LinearBandit(K, d, "released-code").instances(runs, rng)
    table = np.stack([instances.rewards(rng, instances.features) for _ in range(horizon)])
    fast_policy = ReleasedCodeLinUCB("linucb")
    fast = compiled(fast_policy, runs, instances.features, table, horizon, cuts=(5,))
    np.testing.assert_array_equal(fast, per_round(ReleasedCodeLinUCB("linucb"), runs, instances.features, table,
                                                  horizon))
    assert fast_policy.feature_bound == pytest.approx(np.sqrt(2)) and fast_policy.lam == 1e-4
    zeros_V, zeros_u = np.zeros((horizon, d, d)), np.zeros((horizon, d))
    for r in range(2):
        np.testing.assert_array_equal(fast[:, r], released_code_one_run(fast_policy, instances.features[r],
                                                                        table[:, r], horizon, zeros_V, zeros_u))
    sdp_vec = ReleasedCodeLinUCB("sdp-vec", eps=1.0)
    assert sdp_vec.block_rounds and not sdp_vec.compiled_rounds  # its blocks go round by round


PRIVATE = {
    "ldp": lambda: ALGORITHMS["linucb-ldp"](eps=1.0),  # R_Amp per user, batches of one
    "sdp-amp": lambda: ALGORITHMS["linucb-sdp-amp"](eps=0.5, B=4),  # P_Amp's sums of 4 users
    "sdp-amp-returning": lambda: ALGORITHMS["linucb-sdp-amp-returning"](eps=5.0, B=5),
    "code-ldp": lambda: ReleasedCodeLinUCB("ldp", eps=1.0),  # R_Amp at the code's sigma, features of norm sqrt 2
    "code-sdp-amp": lambda: ReleasedCodeLinUCB("sdp-amp", eps=1.0, B=3),
    # the pseudo-tree: each round's noise (changing at rounds ceil(e^k) - 1) on the exact, unclipped sums
    "code-jdp": lambda: ReleasedCodeLinUCB("jdp", eps=1.0),
    # lambda far below the noise's: the released V is often indefinite, and the run keeps its model
    "ldp-small-lambda": lambda: PrivateLinUCB(LocalGaussianSums(1.0, 0.1), 1, "LinUCB-LDP, lambda 0.01", lam=0.01),
    # the central tree's prefix noise on the exact sums: a leaf a round, a leaf per batch of 4, the user-level tree
    "jdp": lambda: ALGORITHMS["linucb-jdp"](eps=1.0),
    "batched-central": lambda: ALGORITHMS["batched-central-linucb"](eps=1.0, B=4),
    "jdp-user-level": lambda: ALGORITHMS["linucb-jdp-user-level"](eps=1.0, M0=6),
}
#: the central tree's numpy path keeps the noisy prefix in its gram and u, the compiled loop the exact sums
TREES = ("jdp", "batched-central", "jdp-user-level")


@pytest.mark.parametrize("name", list(PRIVATE))
def test_private_gaussian_releases_run_compiled_with_the_same_noise(name):
    """A Gaussian release's noise drawn ahead, a block at a time, from the release's stream: the compiled loop plays
    the numpy path's decisions on the same table and policy seed (which draws the noise), and ends on the same
    released sums (the pseudo-tree's: the exact sums); a released V that is not positive definite keeps the run's
    model on both paths, counted alike."""
    runs, K, d, horizon = 6, 8, 3, 240
    rng = np.random.default_rng(3)
    released = name.startswith("code")
    instances = LinearBandit(K, d, "released-code" if released else "paper").instances(runs, rng)
    if released:  # a first coordinate of 1.2 on some arms: phi_1^2 = 1.44, an entry the randomizer clips to 1
        instances.features[:, 3:5, 0] = 1.2
        instances.features[:, 3:5, 1:] *= 0.5
    table = np.stack([instances.rewards(rng, instances.features) for _ in range(horizon)])
    numpy_policy, fast_policy = PRIVATE[name](), PRIVATE[name]()
    numpy_path = per_round(numpy_policy, runs, instances.features, table, horizon)
    fast = compiled(fast_policy, runs, instances.features, table, horizon, cuts=(2, 50, 51, 199))
    np.testing.assert_array_equal(fast, numpy_path)
    if name not in TREES:
        np.testing.assert_allclose(fast_policy.statistics.gram, numpy_policy.statistics.gram, rtol=0, atol=1e-9)
        np.testing.assert_allclose(fast_policy.statistics.u, numpy_policy.statistics.u, rtol=0, atol=1e-9)
    else:  # the same draws: the streams end at the same leaf with the same last node noise
        fast_stream, numpy_stream = fast_policy.statistics.stream.stream, numpy_policy.statistics.stream.stream
        assert fast_stream.t == numpy_stream.t > 0
        np.testing.assert_array_equal(fast_stream.node_noise, numpy_stream.node_noise)
        np.testing.assert_allclose(fast_policy.V_inv, numpy_policy.V_inv, rtol=1e-9, atol=1e-12)
    assert fast_policy.indefinite == numpy_policy.indefinite
    assert fast_policy.notes == numpy_policy.notes
    assert (fast_policy.indefinite > 0) == (name == "ldp-small-lambda")


def test_releases_that_cannot_draw_ahead_go_round_by_round():
    """P_Vec, R_Amp summed over batches of several users, and a release recording its views for an audit play their
    blocks round by round (never the compiled loop)."""
    mismatched = PrivateLinUCB(TreeSums(1.0, 0.1, B=2), 1, "a tree of 2-round leaves under batches of one")
    for policy in (ALGORITHMS["linucb-sdp-vec"](eps=1.0), ALGORITHMS["batched-local-linucb"](eps=1.0, B=4), mismatched):
        assert policy.block_rounds and not policy.compiled_rounds
    for recording in (ALGORITHMS["linucb-sdp-amp"](eps=0.3), ALGORITHMS["linucb-jdp"](eps=1.0)):
        assert recording.block_rounds and recording.compiled_rounds
        recording.statistics.record_views = True
        assert recording.block_rounds and not recording.compiled_rounds
    policy = ALGORITHMS["linucb-ldp"](eps=1.0)
    policy.start(2, 3, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"features must have \|\|phi\|\| <= 1"):
        policy.play_rounds(1, np.full((2, 3, 2), 0.9), np.zeros((1, 2, 3)))


THREADED = {"linucb-fixed": LinUCB, "linucb-b3": lambda: LinUCB(B=3), "ldp": PRIVATE["ldp"],
            "code-jdp": PRIVATE["code-jdp"], "ldp-small-lambda": PRIVATE["ldp-small-lambda"]}


@pytest.mark.parametrize("name", list(THREADED))
@pytest.mark.parametrize("fresh", [False, True])
def test_runs_played_in_threads_are_bit_for_bit_one_threads(name, fresh, monkeypatch):
    """26 runs cut into 3 ranges (8, 9 and 9 runs) played at once, against every run on one thread: the same arms,
    model, released sums and count of indefinite releases, to the last bit (each run's arithmetic is the same
    whichever thread plays it); fixed and fresh arm sets, blocks cut after rounds 1 and 40."""
    runs, K, d, horizon = 26, 7, 3, 90
    rng = np.random.default_rng(5)
    instances = LinearBandit(K, d, "released-code" if name.startswith("code") else "paper").instances(runs, rng)
    contexts = (rng.uniform(-0.5, 0.5, (horizon, runs, K, d)) if fresh else instances.features)
    draws = PlayedRewardDraws("bernoulli", instances.theta, None, rng.uniform(size=(horizon, runs)))
    ends = {}
    for threads in (1, 3):
        monkeypatch.setattr(runs_in_threads, "thread_count", lambda threads=threads: threads)
        policy = THREADED[name]()
        played = compiled(policy, runs, contexts, draws, horizon, cuts=(1, 40))
        ends[threads] = (played, policy.V_inv.copy(), policy.theta.copy(), policy.statistics.gram.copy(),
                         policy.statistics.u.copy(), np.copy(getattr(policy, "indefinite", 0)))
    assert len(runs_in_threads.run_ranges(runs, 3)) == 3
    for one, three in zip(ends[1], ends[3]):
        np.testing.assert_array_equal(one, three)


def test_run_ranges_cover_the_runs_once():
    """Contiguous, disjoint, covering 0 .. runs - 1, at most one range per MIN_RUNS_PER_THREAD runs."""
    least = runs_in_threads.MIN_RUNS_PER_THREAD
    for runs in (1, least - 1, least, 2 * least - 1, 2 * least, 50, 1001):
        for threads in (1, 2, 3, 16):
            ranges = runs_in_threads.run_ranges(runs, threads)
            assert ranges[0][0] == 0 and ranges[-1][1] == runs
            assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
            assert len(ranges) == max(1, min(threads, runs // least))
            assert all(hi - lo >= min(least, runs) for lo, hi in ranges)


def test_over_runs_raises_only_after_every_range_has_ended():
    """An error in one range is raised by the caller, after the other ranges have run to their end (no thread is
    left writing); with no error every range runs once."""
    import threading
    import time

    done, lock = [], threading.Lock()

    def kernel(lo, hi, fail_at):
        if lo in fail_at:
            raise RuntimeError(f"range {lo}")
        time.sleep(0.05)
        with lock:
            done.append((lo, hi))

    runs_in_threads.over_runs(kernel, 40, (), threads=4)
    assert sorted(done) == [(0, 10), (10, 20), (20, 30), (30, 40)]
    # on the calling thread, on a pool thread, on two (the first range's error)
    for fail_at, first in (((0,), 0), ((20,), 20), ((30, 10), 10)):
        done.clear()
        with pytest.raises(RuntimeError, match=f"range {first}"):
            runs_in_threads.over_runs(kernel, 40, fail_at, threads=4)
        assert len(done) == 4 - len(fail_at)


@pytest.mark.parametrize("law", ["bernoulli", "gaussian"])
def test_rewards_drawn_for_the_played_arm_are_read_as_the_law_gives_them(law):
    """One number per round and run: the numpy path on the table whose every arm's reward comes from that round's
    number (1{u < mean_a}, or clip(location_a + sigma z)) plays what the compiled loop plays, and collects what it
    collects."""
    runs, K, d, horizon = 10, 7, 3, 300
    rng = np.random.default_rng(5)
    env = LinearBandit(K, d) if law == "bernoulli" else LinearBandit(K, d, rewards="gaussian", sigma=0.3)
    instances = env.instances(runs, rng)
    contexts, draws = instances.draw_rounds(horizon, np.random.default_rng(6), rng)
    location = np.matmul(contexts, instances.theta[:, :, None])[..., 0]  # (runs, K)
    if law == "bernoulli":
        table = (draws.noise[:, :, None] < np.clip(location, 0, 1)).astype(float)
    else:
        table = np.clip(location + 0.3 * draws.noise[:, :, None], 0, 1)
    policy = LinUCB(B=1, alpha=0.05)
    policy.start(runs, K, horizon, np.random.default_rng(2))
    played, collected = policy.play_rounds(1, contexts, draws)
    np.testing.assert_array_equal(played, per_round(LinUCB(B=1, alpha=0.05), runs, contexts, table, horizon))
    np.testing.assert_allclose(collected, np.take_along_axis(table, played[..., None], axis=2)[..., 0], atol=1e-15)


def test_a_block_of_rounds_is_drawn_as_the_rounds_one_by_one():
    """Fresh contexts: ``draw_rounds`` gives the contexts ``contexts`` draws round after round from the same
    stream; the played-arm draws are one uniform per run and round from the reward stream."""
    instances = LinearBandit(6, 3, fresh_contexts=True).instances(4, np.random.default_rng(0))
    one_by_one = np.stack([instances.contexts(np.random.default_rng(9)) for _ in range(1)])
    rng = np.random.default_rng(9)
    rounds = np.stack([instances.contexts(rng) for _ in range(5)])
    block, draws = instances.draw_rounds(5, np.random.default_rng(3), np.random.default_rng(9))
    np.testing.assert_array_equal(block, rounds)
    np.testing.assert_array_equal(block[:1], one_by_one)
    np.testing.assert_array_equal(draws.noise, np.random.default_rng(3).random((5, 4)))
    assert draws.law == "bernoulli" and draws.sigma is None


def test_the_fast_path_keeps_the_regrets_law():
    """200 runs on each path, T = 300, fixed and fresh arm sets: the mean regret at T agrees (Welch's test at level
    1e-4, its false-failure rate per case; the paths draw the rewards differently, so the runs differ), and the
    fast path's pulls sum to the horizon."""
    for env in (LinearBandit(8, 3), LinearBandit(8, 3, fresh_contexts=True)):
        results = {path: dpaudit.simulate(LinUCB(), env, horizon=300, runs=200, seed=11, path=path)
                   for path in ("fast", "reference")}
        fast, reference = results["fast"], results["reference"]
        assert fast.path == "fast" and reference.path == "reference"
        assert (fast.pulls.sum(axis=1) == 300).all()
        np.testing.assert_array_equal(fast.means, reference.means)  # the same instances
        for kind in ("pseudo_regret", "regret"):
            a, b = getattr(fast, kind)[:, -1], getattr(reference, kind)[:, -1]
            assert stats.ttest_ind(a, b, equal_var=False).pvalue > 1e-4, (kind, a.mean(), b.mean())
        assert (np.diff(fast.pseudo_regret, axis=1) >= -1e-12).all()


def test_the_fast_path_records_the_regret_the_blocks_add(monkeypatch):
    """Blocks of 7 rounds against one block: the same regret at every recorded round, to the last bit (each
    round's gap is added to the running total in order)."""
    env = LinearBandit(5, 3)
    whole = dpaudit.simulate(LinUCB(B=2), env, horizon=60, runs=6, seed=4, path="fast", grid=[1, 7, 8, 30, 60])
    monkeypatch.setattr(dpaudit.bandits.simulation, "MAX_BLOCK_ROUNDS", 7)
    cut = dpaudit.simulate(LinUCB(B=2), env, horizon=60, runs=6, seed=4, path="fast", grid=[1, 7, 8, 30, 60])
    np.testing.assert_array_equal(whole.pseudo_regret, cut.pseudo_regret)
    np.testing.assert_array_equal(whole.regret, cut.regret)
    np.testing.assert_array_equal(whole.pulls, cut.pulls)


def test_without_numba_the_rounds_go_one_by_one(monkeypatch):
    """No compiled loop: ``play_rounds`` plays through choose and observe (the same decisions), and a simulation
    still takes the fast path, on the same draws: the same result as with numba."""
    runs, horizon = 5, 80
    instances = LinearBandit(6, 3).instances(runs, np.random.default_rng(1))
    table = np.stack([instances.rewards(np.random.default_rng(t), instances.features) for t in range(horizon)])
    fast = compiled(LinUCB(B=1), runs, instances.features, table, horizon)
    monkeypatch.setattr(linucb, "AVAILABLE", False)
    slow = LinUCB(B=1)
    assert not slow.compiled_rounds
    slow.start(runs, 6, horizon, np.random.default_rng(2))
    np.testing.assert_array_equal(slow.play_rounds(1, instances.features, table)[0], fast)
    with_numba = {}
    for available in (True, False):
        monkeypatch.setattr(linucb, "AVAILABLE", available)
        for name, make in (("linucb", LinUCB), ("ldp", PRIVATE["ldp"])):
            result = dpaudit.simulate(make(), LinearBandit(6, 3), horizon=60, runs=4, seed=0, grid=[10, 60])
            assert result.path == "fast"
            if available:
                with_numba[name] = result
            else:
                np.testing.assert_array_equal(result.pulls, with_numba[name].pulls)
                np.testing.assert_allclose(result.regret, with_numba[name].regret, rtol=1e-12)


def test_fast_path_errors():
    """The engine refuses a fast path where there is none, and names a policy's bad block of arms."""
    class RoundByRound(ReturningUsers):
        blocks_of_rounds = False  # an environment that draws its rounds one at a time only

    with pytest.raises(ValueError, match="has no fast path"):
        dpaudit.simulate(LinUCB(), RoundByRound(4, 3, 2), horizon=5, runs=2, path="fast")

    class Wrong(LinUCB):
        block_rounds = True  # LinUCB's rounds, then a bad arm

        def play_rounds(self, t, contexts, rewards):
            played, collected = super().play_rounds(t, contexts, rewards)
            if t <= 4 < t + len(played):
                played[4 - t, 1] = 11
            return played, collected

    with pytest.raises(ValueError, match="played arm 11 in run 1 at round 4"):
        dpaudit.simulate(Wrong(), LinearBandit(4, 2), horizon=8, runs=2, seed=0, path="fast")
    # the released code's LDP reads its bound from the first arm set: a later round's larger feature is refused
    code = ReleasedCodeLinUCB("ldp", eps=1.0)
    code.start(2, 3, 10, np.random.default_rng(0))
    contexts = np.full((4, 2, 3, 2), 0.5)
    contexts[2, 1, 0] = 1.0  # norm sqrt 2 at round 3; the first round's largest, 0.707, gives the bound 1
    with pytest.raises(ValueError, match=r"LinUCB-LDP.*: features need \|\|phi\|\| <= 1, got 1.41421 at round 1"):
        code.play_rounds(1, contexts, np.zeros((4, 2, 3)))
    policy = LinUCB()
    policy.start(2, 4, 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rewards must have shape"):
        policy.play_rounds(1, np.zeros((2, 4, 2)), np.zeros((3, 4)))


@pytest.mark.parametrize("make", [lambda: LinUCB(B=2), LinUCB, PRIVATE["sdp-amp"], PRIVATE["ldp-small-lambda"],
                                  PRIVATE["jdp"], PRIVATE["code-jdp"]])
@pytest.mark.parametrize("output", ["actions", "jdp"])
def test_a_transcript_plays_the_compiled_rounds_as_it_plays_the_per_round_ones(make, output, monkeypatch):
    """A contextual transcript samples a compiled policy through its compiled rounds and the last round's ``choose``
    (which reads the radius and the model the blocks leave): the same outputs as round by round from the same seed,
    on a fixed arm set and on arms that change, and the generator left where the per-round path leaves it (the JDP
    output stops before the last round's release), so that two samples in a row agree."""
    from dpaudit.bandits.contextual_transcripts import ContextualTranscript

    T, K, d = 12, 3, 2
    rng = np.random.default_rng(4)
    features = rng.normal(size=(K, d))
    features /= 1.2 * np.linalg.norm(features, axis=1, keepdims=True)
    changing = features[None] * rng.uniform(0.3, 1.0, size=(T, K, 1))
    for arms in (np.broadcast_to(features, (T, K, d)), changing):
        data = np.concatenate([arms, rng.random((T, K, 1))], axis=2)
        options = {"output": output, "protected": 6} if output == "jdp" else {}
        fast = ContextualTranscript(make(), K, d, T, **options)
        assert fast.policy.compiled_rounds
        rng = np.random.default_rng(9)  # two samples from one generator: the second starts where the first ended
        compiled_out = [fast.sample(data, 2000, rng) for _ in range(2)]
        with monkeypatch.context() as patch:
            patch.setattr(linucb, "AVAILABLE", False)
            slow = ContextualTranscript(make(), K, d, T, **options)
            assert not slow.policy.compiled_rounds
            slow_rng = np.random.default_rng(9)
            for out in compiled_out:
                np.testing.assert_array_equal(out, slow.sample(data, 2000, slow_rng))
            assert rng.bit_generator.state == slow_rng.bit_generator.state
        compiled_out = compiled_out[0]
        assert len(np.unique(compiled_out)) > 1  # not a constant policy


@pytest.mark.parametrize("B", [1, 2])
def test_choose_after_a_compiled_block_reads_the_blocks_model_not_an_earlier_rounds(B):
    """Rounds 1-3 round by round (which keep the argmax of a batch, B = 2, or the widths of a fixed arm set, B = 1),
    rounds 4-9 in a compiled block, then round 10's ``choose``: the per-round path's arms, not those kept from round
    3 (the exact statistics, whose observe may follow a block)."""
    if not linucb.AVAILABLE:
        pytest.skip("numba is not installed (pip install dpaudit[fast])")
    runs, K, d = 200, 3, 2
    rng = np.random.default_rng(2)
    arms = rng.normal(size=(runs, K, d)) / 2
    table = rng.random((10, runs, K))
    rows = np.arange(runs)
    mixed, reference = LinUCB(B=B), LinUCB(B=B)
    for policy in (mixed, reference):
        policy.start(runs, K, 10, np.random.default_rng(0))
    expected = []
    for t in range(1, 11):
        expected.append(reference.choose(t, arms))
        reference.observe(t, expected[-1], table[t - 1][rows, expected[-1]])
    got = []
    for t in range(1, 4):
        got.append(mixed.choose(t, arms))
        mixed.observe(t, got[-1], table[t - 1][rows, got[-1]])
    assert mixed.compiled_rounds
    got += list(mixed.play_rounds(4, arms, table[3:9])[0])
    got.append(mixed.choose(10, arms))
    np.testing.assert_array_equal(np.array(got), np.array(expected))
