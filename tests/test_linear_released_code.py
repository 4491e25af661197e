"""shuffle-lcb's linear variants under the released code's constants (algorithms/linear/released_code.py,
mechanisms/released_code/linear_released_code.py): the code's numbers at the experiments' point, the vectorised policy
against its plain per-run reference decision for decision, the code's generator accepted, the registry's
``constants`` keyword, the given-instances environment and the presets' released-code variants. No test
here is statistical: every assertion is exact."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_private_linear_algorithms import _noise, _play

from dpaudit.algorithms import ALGORITHMS, LinearBandit
from dpaudit.algorithms.environments import GivenLinearBandit
from dpaudit.algorithms.linear.released_code import ReleasedCodeLinUCB, released_code_one_run
from dpaudit.bandits.experiments import load_presets
from dpaudit.mechanisms.released_code import linear_released_code as code

N, D, EPS, DELTA, B = 20_000, 5, 0.2, 0.1, 20  # the released script's setting


def test_the_codes_calibrations_at_its_setting():
    # hand-evaluated at eps = 0.2, delta = 0.1, B = 20, d = 5, n = 20000 (natural logs)
    assert code.ldp_sigma(EPS, DELTA) == pytest.approx(math.sqrt(math.log(25)) / 0.2)  # 8.9706
    assert code.ldp_sigma(EPS, DELTA) == pytest.approx(8.97059, rel=1e-5)
    assert code.jdp_sigma(EPS, DELTA, N) == pytest.approx(math.sqrt(math.log(20_000)) * math.log(25) / 0.2)
    assert code.amp_sigma(EPS, DELTA, B) == pytest.approx(math.sqrt(math.log(500)) / (0.2 * math.sqrt(20)))
    g, b = code.vec_parameters(EPS, DELTA, D, B)
    assert g == pytest.approx(2 * math.sqrt(20)) and b == pytest.approx(g**2 * math.log(50) ** 2 / (0.04 * 20))
    assert math.floor(b) == 1530 and code.vec_parameters(EPS, DELTA, D, B, scale=10)[1] == pytest.approx(10 * b)
    assert code.vec_noise(EPS, DELTA, D, B) == pytest.approx(math.log(50) / (0.2 * math.sqrt(20)))
    assert code.vec_precision(g, math.sqrt(2)) == 6 and code.vec_precision(g, 1.0) == 9
    assert code.vec_precision(0.1, 1) == 1
    for bad in (lambda: code.ldp_sigma(0, DELTA), lambda: code.amp_sigma(EPS, 1.0, B),
                lambda: code.jdp_sigma(EPS, DELTA, 1)):
        with pytest.raises(ValueError):
            bad()


@pytest.mark.parametrize("variant, kwargs, gamma", [
    ("linucb", {}, 1.0),
    ("ldp", {"eps": EPS}, math.sqrt(math.log(25)) / 0.2 * math.sqrt(N) * math.sqrt(D)),
    ("jdp", {"eps": EPS}, math.sqrt(math.log(N)) * math.log(25) / 0.2 * math.sqrt(math.log(N)) * math.sqrt(D)),
    ("sdp-amp", {"eps": EPS, "B": B}, math.sqrt(math.log(500)) / (0.2 * math.sqrt(20)) * math.sqrt(N) * math.sqrt(D)),
    ("sdp-vec", {"eps": EPS, "B": B}, 0.25 * math.log(50) / (0.2 * math.sqrt(20)) * math.sqrt(N) * math.sqrt(D)),
])
def test_gamma_lambda_and_the_fixed_width_are_the_codes(variant, kwargs, gamma):
    policy = ReleasedCodeLinUCB(variant, **kwargs)
    assert policy.gamma(N, D) == pytest.approx(gamma)
    L = math.sqrt(2)
    width = math.sqrt(gamma) * math.sqrt(D) + 0.5 * math.sqrt(D * math.log((1 + N * L**2 / gamma) * N))
    assert policy.width(N, D, L) == pytest.approx(width)
    rng = np.random.default_rng(0)
    env = LinearBandit(100, D, generator="released-code")
    inst = env.instances(2, rng)
    policy.start(2, 100, N, rng)
    policy.choose(1, inst.features)  # the first round builds the model
    assert policy.lam == pytest.approx(1e-4 if variant == "linucb" else 2 * gamma)
    assert policy.feature_bound == pytest.approx(L) and policy.cew == pytest.approx(width)
    assert np.all(policy.radius(np.arange(5), D) == policy.cew)  # the same width every round


@pytest.mark.parametrize("variant, kwargs", [("linucb", {}), ("ldp", {"eps": 1.0}), ("jdp", {"eps": 1.0}),
                                             ("sdp-amp", {"eps": 1.0, "B": 5}), ("sdp-vec", {"eps": 1.0, "B": 5})])
def test_vectorised_released_variant_makes_the_per_run_references_decisions(variant, kwargs):
    # the code's generator (norm sqrt 2), 4 runs of 80 rounds; the reference is fed the noise the run drew
    runs, horizon, K, d = 4, 80, 12, 4
    rng = np.random.default_rng(12)
    inst = LinearBandit(K, d, generator="released-code").instances(runs, rng)
    rewards = (rng.random((runs, horizon, K)) < inst.means[:, None, :]).astype(float)
    policy = ReleasedCodeLinUCB(variant, **kwargs)
    played, releases = _play(policy, lambda t: inst.features, rewards, runs, horizon)
    assert len(releases) == horizon // policy.B
    noise_V, noise_u = _noise(policy, inst.features, played, rewards, releases)
    assert (np.abs(noise_u).max() > 0) == (variant != "linucb")
    for r in range(runs):
        reference = released_code_one_run(policy, inst.features[r], rewards[r], horizon, noise_V[r], noise_u[r])
        np.testing.assert_array_equal(played[r], reference)
    assert len(set(played.ravel())) > 1


def test_the_registry_takes_the_constant_set():
    assert isinstance(ALGORITHMS["linucb-ldp"](eps=0.5, constants="released-code"), ReleasedCodeLinUCB)
    assert ALGORITHMS["linucb-sdp-vec"](eps=0.5, constants="released-code", scale=10).scale == 10
    assert ALGORITHMS["linucb"](constants="released-code").name == "LinUCB [released-code constants]"
    assert not isinstance(ALGORITHMS["linucb-jdp"](eps=0.5), ReleasedCodeLinUCB)
    with pytest.raises(ValueError, match="constants must be one of theorem, released-code"):
        ALGORITHMS["linucb-ldp"](eps=0.5, constants="authors")
    with pytest.raises(ValueError, match="lam cannot be given with constants='released-code'"):
        ALGORITHMS["linucb-sdp-amp"](eps=0.5, lam=2.0, constants="released-code")
    with pytest.raises(ValueError, match="scale is the released code's factor"):
        ALGORITHMS["linucb-sdp-vec"](eps=0.5, scale=10)
    with pytest.raises(ValueError, match="updates every round"):
        ReleasedCodeLinUCB("ldp", eps=0.5, B=4)
    with pytest.raises(ValueError, match="give eps"):
        ReleasedCodeLinUCB("jdp")


def test_only_the_released_constants_take_the_codes_generator():
    env = LinearBandit(20, 4, generator="released-code")
    rng = np.random.default_rng(3)
    inst = env.instances(2, rng)
    theorem = ALGORITHMS["linucb-ldp"](eps=0.5)
    theorem.start(2, 20, 100, rng)
    with pytest.raises(ValueError, match="features must have"):
        theorem.choose(1, inst.features)
    released = ALGORITHMS["linucb-ldp"](eps=0.5, constants="released-code")
    released.start(2, 20, 100, rng)
    assert released.choose(1, inst.features).shape == (2,)
    assert any("symmetrises" in note for note in released.notes)
    assert any("not private" in note for note in ReleasedCodeLinUCB("jdp", eps=0.5).notes)


def test_the_codes_jdp_noise_is_a_pseudo_tree_and_leaks_each_rounds_data():
    # c(t) = floor(ln(1 + t)) + 1 of floor(ln n) + 1 draws; between its changes the noise repeats, so two
    # consecutive releases differ by exactly the round's x x^T (the finding the notes state)
    from dpaudit.algorithms.linear.statistics import PseudoTreeSums

    noise = code.PseudoTreeNoise(2.0, 20_000, 3)
    assert noise.draws == 10 and [noise.used(t) for t in (0, 1, 2, 6, 7, 19, 20, 19_999)] == [1, 1, 2, 2, 3, 3, 4, 10]
    stats_ = PseudoTreeSums(2.0, norm_bound=math.sqrt(2))
    stats_.prepare(3, 100)
    stats_.start(2, 3, 100, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    released = []
    for t in range(1, 12):
        X = rng.normal(size=(2, 1, 3)) / 3
        V, u = stats_.release(t, X, rng.random((2, 1)))
        released.append((V.copy(), X[:, 0]))
        assert np.allclose(V, V.transpose(0, 2, 1))
    for t in range(1, 11):  # releases after rounds t and t + 1 carry the noise of choices t and t + 1
        V0, (V1, x) = released[t - 1][0], released[t]
        leak = np.einsum("ri,rj->rij", x, x)
        same = noise.used(t) == noise.used(t + 1)
        assert np.allclose(V1 - V0, leak) == same
    assert stats_.mechanism.draws == math.floor(math.log(100)) + 1


def test_given_instances_are_run_as_given():
    rng = np.random.default_rng(4)
    inst = LinearBandit(6, 3, generator="released-code").instances(3, rng)
    env = GivenLinearBandit(inst.features, inst.theta, "test instances")
    given = env.instances(3, rng)
    np.testing.assert_array_equal(given.features, inst.features)
    np.testing.assert_array_equal(given.means, inst.means)
    assert env.name == "GivenLinearBandit(R=3, K=6, d=3, test instances)" and env.arms == 6
    with pytest.raises(ValueError, match="simulate exactly that many runs"):
        env.instances(2, rng)
    with pytest.raises(ValueError, match=r"features must be \(R, K, d\)"):
        GivenLinearBandit(inst.features[0], inst.theta)
    with pytest.raises(ValueError, match="means <x, theta> in"):
        GivenLinearBandit(inst.features, 3 * inst.theta)


def test_the_presets_released_variants_name_the_code():
    for name in ("shuffle-lcb/fig1", "shuffle-lcb/fig2"):
        preset = load_presets()[name]
        released = preset.with_constants("released-code")
        assert released.constants_source.startswith("sayakrc/Differentially-Private-Bandits at ea7503b")
        for config in released.configurations:
            assert config.environment.generator == "released-code"
            assert all(c.kwargs["constants"] == "released-code" for c in config.curves)
        assert all("constants" not in c.kwargs for c in preset.configurations[0].curves)
        assert not any("Lemma A.4" in note for note in released.notes)  # the theorems' notes are not carried over


def test_each_variant_runs_its_release_at_the_codes_calibration():
    # at the script's setting (d = 5, B = 20, eps = 0.2, its generator, L = sqrt 2): P_Vec at precision 6 (the
    # code's grid L/g, g = 8.944) with floor(b) = 1530 noise bits; R_Amp at the code's sigmas; the pseudo-tree
    rng = np.random.default_rng(5)
    inst = LinearBandit(100, D, generator="released-code").instances(2, rng)
    expected = {"sdp-vec": lambda s: (s.mechanism.g, s.mechanism.b, s.mechanism.norm_bound) == (6, 1530,
                                                                                                 pytest.approx(math.sqrt(2))),
                "sdp-amp": lambda s: (s.sigma, s.B) == (pytest.approx(code.amp_sigma(EPS, DELTA, B)), B),
                "ldp": lambda s: (s.sigma, s.B) == (pytest.approx(code.ldp_sigma(EPS, DELTA)), 1),
                "jdp": lambda s: s.mechanism.sigma == pytest.approx(code.jdp_sigma(EPS, DELTA, N))}
    for variant, check in expected.items():
        policy = ReleasedCodeLinUCB(variant, eps=EPS, B=B if variant.startswith("sdp") else 1)
        policy.start(2, 100, N, rng)
        policy.choose(1, inst.features)
        assert check(policy.statistics), variant


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_released_code_linear_preset_runs(tmp_path):
    # all five variants at every configuration of both figures, briefly; at eps = 10 the code's SDP-Vec b is
    # 80 log^2(50) / (100 x 20) = 0.61, which numpy truncates to no noise bits at all
    assert math.floor(code.vec_parameters(10.0, DELTA, D, B)[1]) == 0
    from dpaudit.bandits.experiments import run_preset

    for name in ("shuffle-lcb/fig1", "shuffle-lcb/fig2"):
        done = run_preset(name, runs=2, horizon=60, out=tmp_path, progress=False, constants="released-code")
        assert all(res.pulls.sum() == 2 * 60 for res in done.results.values())
        assert len(done.results) == 5 * len(done.selections[0][1])
