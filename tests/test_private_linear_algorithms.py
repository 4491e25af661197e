"""shuffle-lcb's private LinUCB variants on the engine: each vectorised variant makes its per-run
reference's decisions given the same release noise, each variant's noise has its mechanism's law,
the returning-users environment keeps Assumption E.1, and the registry's entries, warnings and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import dpaudit
from dpaudit.algorithms import ALGORITHMS, LinearBandit, ReturningUsers
from dpaudit.algorithms.linear.linucb import LinUCB, linucb_one_run
from dpaudit.algorithms.linear.private_linucb import private_linucb_one_run
from dpaudit.algorithms.linear.statistics import LocalGaussianSums, ShuffledGaussianSums, ShuffledVectorSums, TreeSums
from dpaudit.algorithms.registry import describe

VARIANTS = {  # registry name -> keyword arguments for a small run (T = 60)
    "linucb-jdp": {"eps": 1.0},
    "linucb-ldp": {"eps": 1.0},
    "linucb-sdp-amp": {"eps": 0.3, "B": 5},
    "linucb-sdp-vec": {"eps": 1.0, "B": 5},
    "batched-local-linucb": {"eps": 1.0, "B": 4},
    "batched-central-linucb": {"eps": 1.0, "B": 4},
    "linucb-sdp-amp-returning": {"eps": 5.0, "B": 5},
    "linucb-sdp-vec-returning": {"eps": 1.0, "B": 5},
    "linucb-jdp-user-level": {"eps": 1.0, "M0": 6},
}
RETURNING = {"linucb-sdp-amp-returning", "linucb-sdp-vec-returning", "linucb-jdp-user-level"}


def _play(policy, contexts_of, rewards, runs, horizon, seed=0):
    """Drive ``policy`` by hand; record its arms and what its release returned at every batch end."""
    policy.start(runs, rewards.shape[2], horizon, np.random.default_rng(seed))
    releases = []
    played = np.empty((runs, horizon), dtype=np.int64)
    for t in range(1, horizon + 1):
        if t == 1:
            policy.choose(t, contexts_of(1))  # the first call builds the release; wrap it before any batch
            inner = policy.statistics.release

            def recorded(t, X, y, inner=inner):
                V, u = inner(t, X, y)
                releases.append((V.copy(), u.copy()))
                return V, u

            policy.statistics.release = recorded
        arms = policy.choose(t, contexts_of(t))
        played[:, t - 1] = arms
        policy.observe(t, arms, rewards[np.arange(runs), t - 1, arms])
    return played, releases


def _noise(policy, contexts, played, rewards, releases):
    """Each run's cumulative release noise after each batch: released minus the exact sums of its plays."""
    runs, horizon = played.shape
    B, M = policy.B, len(releases)
    index = np.arange(runs)[:, None]
    x = contexts[index, np.arange(horizon)[None, :], played] if contexts.ndim == 4 else contexts[index, played]
    y = rewards[index, np.arange(horizon)[None, :], played]
    noise_V = np.empty((runs, M, x.shape[2], x.shape[2]))
    noise_u = np.empty((runs, M, x.shape[2]))
    for m, (V, u) in enumerate(releases):
        upto = (m + 1) * B
        gram = np.einsum("rti,rtj->rij", x[:, :upto], x[:, :upto])
        noise_V[:, m] = V - gram
        noise_u[:, m] = u - np.einsum("rti,rt->ri", x[:, :upto], y[:, :upto])
    return noise_V, noise_u


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_vectorised_variant_makes_the_per_run_references_decisions(name):
    runs, horizon, K, d = 4, 60, 8, 3
    rng = np.random.default_rng(11)
    if name in RETURNING:
        inst = ReturningUsers(K, d, users=10).instances(runs, rng)
        contexts = np.stack([inst.contexts(rng) for _ in range(horizon)], axis=1)  # (runs, T, K, d)
        means = np.einsum("rtkd,rd->rtk", contexts, inst.theta)
        contexts_of = lambda t: contexts[:, t - 1]  # noqa: E731
    else:
        inst = LinearBandit(K, d).instances(runs, rng)
        contexts = inst.features
        means = np.broadcast_to(inst.means[:, None, :], (runs, horizon, K))
        contexts_of = lambda t: contexts  # noqa: E731  (the same array every round: the argmax-reuse path)
    rewards = (rng.random((runs, horizon, K)) < means).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        policy = ALGORITHMS[name](**VARIANTS[name])
    played, releases = _play(policy, contexts_of, rewards, runs, horizon)
    assert len(releases) == horizon // policy.B
    noise_V, noise_u = _noise(policy, contexts, played, rewards, releases)
    assert np.abs(noise_u).max() > 0  # the releases are noisy
    for r in range(runs):
        reference = private_linucb_one_run(policy, contexts[r], rewards[r], horizon, noise_V[r], noise_u[r])
        np.testing.assert_array_equal(played[r], reference)
    assert len(set(played.ravel())) > 1  # not a degenerate run


def test_the_references_zero_noise_is_linucbs_reference():
    rng = np.random.default_rng(3)
    inst = LinearBandit(10, 4).instances(1, rng)
    rewards = (rng.random((80, 10)) < inst.means[0]).astype(float)
    policy = LinUCB(B=4)
    policy.start(1, 10, 80, rng)
    policy.lam_min = policy.lam_max = policy.lam
    zeros_V, zeros_u = np.zeros((20, 4, 4)), np.zeros((20, 4))
    np.testing.assert_array_equal(private_linucb_one_run(policy, inst.features[0], rewards, 80, zeros_V, zeros_u),
                                  linucb_one_run(policy, inst.features[0], rewards, 80))


def test_reusing_the_batchs_argmax_is_exact():
    # the same contexts array every round (reuse) and a fresh copy every round (recomputed) agree
    rng = np.random.default_rng(5)
    inst = LinearBandit(12, 4).instances(5, rng)
    table = (rng.random((5, 100, 12)) < inst.means[:, None, :]).astype(float)
    same, _ = _play(LinUCB(B=10), lambda t: inst.features, table, 5, 100)
    fresh, _ = _play(LinUCB(B=10), lambda t: inst.features.copy(), table, 5, 100)
    np.testing.assert_array_equal(same, fresh)


# -- the noise of each variant is its mechanism's ------------------------------------------------


def _first_noise(statistics, rows, runs, seed):
    """The first batch's release noise of ``statistics`` on the same batch in ``runs`` runs."""
    d = rows.shape[1] - 1
    statistics.prepare(d, 20)
    statistics.start(runs, d, 20, np.random.default_rng(seed))
    X = np.broadcast_to(rows[:, :d], (runs, *rows[:, :d].shape))
    y = np.broadcast_to(rows[:, d], (runs, rows.shape[0]))
    V, u = statistics.release(rows.shape[0], X, y)
    return V - rows[:, :d].T @ rows[:, :d], u - rows[:, :d].T @ rows[:, d]


@pytest.mark.parametrize("statistics", [ShuffledGaussianSums(0.3, 0.1, 5), ShuffledGaussianSums(5.0, 0.1, 5, True),
                                        LocalGaussianSums(0.5, 0.1), ShuffledVectorSums(2.0, 0.1, 5),
                                        TreeSums(1.0, 0.1, 5)])
def test_each_variants_noise_has_its_mechanisms_law(statistics):
    # 20,000 runs of the variant's first release against 20,000 draws of its mechanism's own sample
    # path on the same batch (independent streams): two-sample KS on one vector entry, one diagonal
    # and one off-diagonal matrix entry, each rejected below p = 1e-4 (false failure < 3e-4); and the
    # matrix noise is symmetric
    rows = np.array([[0.6, 0.0, 0.3, 1.0], [0.0, -0.5, 0.5, 0.0], [0.2, 0.2, 0.2, -1.0], [0.5, 0.5, 0.0, 1.0],
                     [0.1, 0.0, 0.0, 0.0]])
    n = rows.shape[0] if not isinstance(statistics, LocalGaussianSums) else 1
    rows = rows[:n]
    noise_V, noise_u = _first_noise(statistics, rows, 20_000, seed=1)
    np.testing.assert_array_equal(noise_V, np.swapaxes(noise_V, 1, 2))
    mech, rng = statistics.mechanism, np.random.default_rng(2)
    if isinstance(statistics, ShuffledGaussianSums):
        u_ref, V_ref = statistics.randomizer.messages(mech.sample_sums_per_user(rows, 20_000, rng))
    elif isinstance(statistics, LocalGaussianSums):
        u_ref, V_ref = mech.messages(mech.sample(rows[0], 20_000, rng))
    elif isinstance(statistics, ShuffledVectorSums):
        u_ref, V_ref = mech.analyze(mech.sample(rows, 20_000, rng))
    else:
        stream = np.zeros((20, rows.shape[1]))
        stream[:5] = rows
        prefix = mech.prefix_matrices(mech.sample(stream, 20_000, rng))[:, 0]
        V_ref, u_ref = prefix[:, :3, :3], prefix[:, :3, 3]
    u_ref = u_ref - rows[:, :3].T @ rows[:, 3]
    V_ref = V_ref - rows[:, :3].T @ rows[:, :3]
    for ours, theirs in ((noise_u[:, 0], u_ref[:, 0]), (noise_V[:, 1, 1], V_ref[:, 1, 1]),
                         (noise_V[:, 0, 2], V_ref[:, 0, 2])):
        assert stats.ks_2samp(ours, theirs).pvalue > 1e-4


def test_a_wrong_noise_scale_is_caught():
    # the power of the test above: 1.15 times the mechanism's sigma is rejected
    statistics = ShuffledGaussianSums(0.3, 0.1, 5)
    rows = np.full((5, 4), 0.25)
    noise_V, noise_u = _first_noise(statistics, rows, 20_000, seed=1)
    reference = statistics.mechanism.sample_sums(rows, 20_000, np.random.default_rng(2))[:, 0] - 5 * 0.25 * 0.25
    assert stats.ks_2samp(1.15 * noise_u[:, 0], reference).pvalue < 1e-4


# -- returning users -------------------------------------------------------------------------------


@pytest.mark.parametrize("schedule,batch", [("cyclic", None), ("random", 5)])
def test_returning_users_come_at_most_once_per_batch(schedule, batch):
    env = ReturningUsers(6, 3, users=7, schedule=schedule, batch=batch)
    inst = env.instances(4, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    users = []
    for _ in range(40):
        ctx = inst.contexts(rng)
        users.append(inst.user.copy())
        np.testing.assert_array_equal(ctx, inst.user_features[np.arange(4), inst.user])
    users = np.array(users).T  # (runs, rounds)
    for B in ([5] if batch else [1, 3, 5, 7]):
        for start in range(0, 40 - B + 1, B):
            block = users[:, start: start + B]
            assert all(len(set(row)) == B for row in block)
    assert np.linalg.norm(inst.user_features, axis=-1).max() == pytest.approx(1.0)
    assert (users.max(axis=1) == 6).all() if schedule == "cyclic" else users.max() <= 6
    assert env.rounds_per_user(40) == (6 if schedule == "cyclic" else 8)


def test_returning_users_bad_input():
    with pytest.raises(ValueError, match="give batch=B"):
        ReturningUsers(5, 3, users=4, schedule="random")
    with pytest.raises(ValueError, match="batch = 5 needs at least as many users"):
        ReturningUsers(5, 3, users=4, schedule="random", batch=5)
    with pytest.raises(ValueError, match="schedule"):
        ReturningUsers(5, 3, users=4, schedule="weekly")


@pytest.mark.parametrize("schedule,batch", [("cyclic", None), ("random", 5)])
@pytest.mark.parametrize("name, params", [("linucb", {}), ("linucb-sdp-amp-returning", {"eps": 5.0, "B": 5}),
                                          ("linucb-sdp-vec-returning", {"eps": 5.0, "B": 5}),
                                          ("linucb-jdp-user-level", {"eps": 1.0, "M0": 8})])
def test_returning_users_blocks_are_the_rounds_one_by_one(schedule, batch, name, params):
    """Returning users draw a block of rounds as round after round draws them (the arrivals, then every arm's reward
    table): a policy's fast path, compiled or not, gives the per-round path's regrets bit for bit."""
    env = ReturningUsers(6, 3, users=10, schedule=schedule, batch=batch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = dpaudit.simulate(ALGORITHMS[name](**params), env, horizon=120, runs=5, seed=2, path="reference")
        fast = dpaudit.simulate(ALGORITHMS[name](**params), env, horizon=120, runs=5, seed=2, path="fast")
    assert fast.path == "fast"
    np.testing.assert_array_equal(fast.pseudo_regret, reference.pseudo_regret)
    np.testing.assert_array_equal(fast.regret, reference.regret)
    np.testing.assert_array_equal(fast.pulls, reference.pulls)


def test_returning_variant_on_the_engine():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dpaudit.simulate(ALGORITHMS["linucb-sdp-amp-returning"](eps=5.0, B=5),
                               ReturningUsers(6, 3, users=10, schedule="random", batch=5), horizon=50, runs=3, seed=0)
    assert res.pulls.sum() == 150


# -- registry, warnings and bad input ---------------------------------------------------------------


def test_registry_lines_and_defaults():
    for name in VARIANTS:
        assert describe(name).startswith("shuffle-lcb "), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        policy = ALGORITHMS["linucb-sdp-amp"](eps=1.0)
    assert policy.B == 20 and policy.statistics.delta == 0.1


def test_outside_a_theorems_range_warns_and_notes():
    with pytest.warns(UserWarning, match="outside Theorem 3.2's range"):
        policy = ALGORITHMS["linucb-sdp-amp"](eps=10.0)
    res = dpaudit.simulate(policy, LinearBandit(5, 3), horizon=40, runs=2, seed=0)
    assert any("outside Theorem 3.2's range eps <= sqrt(log(2/delta)/B) = 0.387" in note for note in res.notes)
    with pytest.warns(UserWarning, match="Corollary B.3"):
        ALGORITHMS["linucb-ldp"](eps=10.0)
    with pytest.warns(UserWarning, match="Proposition F.3"):
        ALGORITHMS["linucb-jdp"](eps=10.0)
    with pytest.warns(UserWarning, match=r"Theorem 4.2\(i\)"):
        dpaudit.simulate(ALGORITHMS["linucb-sdp-amp-returning"](eps=20.0, B=5), LinearBandit(5, 3), horizon=40,
                         runs=2, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ALGORITHMS["linucb-sdp-amp"](eps=0.2)  # inside the range: silent


def test_bad_input():
    with pytest.raises(ValueError, match="epsilon must be in"):
        dpaudit.simulate(ALGORITHMS["linucb-sdp-vec"](eps=20.0), LinearBandit(5, 3), horizon=40, runs=2, seed=0)
    with pytest.raises(ValueError, match="'released-code' generator has norm sqrt 2"):
        dpaudit.simulate(ALGORITHMS["linucb-sdp-vec"](eps=1.0), LinearBandit(5, 3, generator="released-code"),
                         horizon=40, runs=2, seed=0)
    with pytest.raises(ValueError, match=r"B must be in \[T\]"):
        dpaudit.simulate(ALGORITHMS["linucb-sdp-vec"](eps=1.0, B=50), LinearBandit(5, 3), horizon=40, runs=2, seed=0)
    with pytest.raises(ValueError, match="below the simulated horizon"):
        dpaudit.simulate(ALGORITHMS["linucb-jdp"](eps=1.0, T=20), LinearBandit(5, 3), horizon=40, runs=2, seed=0)
    with pytest.raises(ValueError, match="M0 must be an integer"):
        ALGORITHMS["linucb-jdp-user-level"](eps=1.0, M0=0)
    with pytest.raises(ValueError, match="eps must be > 0"):
        ALGORITHMS["linucb-sdp-amp"](eps=-1.0)
