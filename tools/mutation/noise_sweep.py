"""Noise-halving mutation sweep: every place a private policy's noise scale is set, halved, must fail a test.

Each site below is one place where the noise of one or more private policies (bandit and online-learning
algorithms of ``dpaudit.algorithms``) is determined: the calibration inside the release of
``dpaudit.mechanisms`` (a scale, a sigma, a decay, a bit count), the draw that uses it, or the argument the
algorithm passes to the release (its eps, its budget split). The mutation halves that noise (scale * 0.5,
sigma * 0.5, variance * 0.25, eps * 2 in the call, 1/4 of the noise bits) and nothing else. For every site the
sweep applies the mutation in place, runs the site's tests with ``pytest -x -q``, restores the file byte for
byte, and records whether a test failed (killed) or none did (survived).

    python tools/mutation/noise_sweep.py                 # every site, then docs/mutation/noise-sweep.md
    python tools/mutation/noise_sweep.py --only 'dp-se*' # the matching sites; their rows replaced in the doc
    python tools/mutation/noise_sweep.py --list          # the sites, nothing run

It refuses to start when a target file has uncommitted changes (a crash mid-mutation then cannot lose work:
``git checkout`` restores it), and it checks before running anything that every original text occurs
exactly once in its file.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "docs" / "mutation" / "noise-sweep.md"
#: a site whose tests run longer than this is recorded as a time-out (neither killed nor survived)
TIMEOUT_SECONDS = 1200


@dataclass(frozen=True)
class Site:
    name: str  # stable id: policy family and what is halved
    policies: str  # the registry names of the policies whose noise this site sets
    path: str  # file, relative to the repository root
    original: str  # exact text, occurring once in the file
    mutated: str  # the same text with the noise halved
    what: str  # the site in words
    tests: tuple[str, ...]  # pytest files or node ids, run in order with -x

    @property
    def mutation(self) -> str:
        return _diff_words(self.original, self.mutated)


def _diff_words(original: str, mutated: str) -> str:
    """The lines the mutation changes, old -> new, for the report."""
    old = [line.strip() for line in original.splitlines() if line not in mutated.splitlines()]
    new = [line.strip() for line in mutated.splitlines() if line not in original.splitlines()]
    return f"`{' '.join(old)}` -> `{' '.join(new)}`"


# -- test groups -------------------------------------------------------------------------------------------
NEW = "tests/test_policy_noise_laws.py"
#: test_dist_mab_algorithms.py without its path-agreement simulations (90 s; the exact-law tests cover the paths)
DIST_MAB = ("tests/test_distributed_sum.py", "tests/test_dist_mab_mechanisms.py",
            *(f"tests/test_dist_mab_algorithms.py::{name}" for name in (
                "test_secure_sum_has_the_release_law", "test_local_secure_sum_is_the_sum_of_the_users_messages",
                "test_batch_sizes_radius_and_parameters_follow_the_paper",
                "test_per_round_decisions_have_the_exact_law_of_the_releases",
                "test_fast_path_has_the_exact_law_of_the_releases",
                "test_local_protocol_decisions_agree_between_the_paths")))
DP_SE = ("tests/test_dp_se.py", "tests/test_online_releases.py")
ONLINE = ("tests/test_private_online_algorithms.py", "tests/test_private_online_mechanisms.py",
          "tests/test_online_releases.py")
FTNL = ("tests/test_ftnl.py", "tests/test_private_online_algorithms.py", "tests/test_private_online_mechanisms.py",
        "tests/test_online_releases.py")
LINEAR = ("tests/test_private_linear_algorithms.py", "tests/test_shuffle_lcb_mechanisms.py",
          "tests/test_shuffle_lcb_releases.py")
TREE = ("tests/test_private_linear_algorithms.py", "tests/test_central_tree.py", "tests/test_shuffle_lcb_releases.py")
CS = ("tests/test_cs_linucb.py", "tests/test_concurrent_shuffle_mechanisms.py", "tests/test_concurrent_tree.py")
GLM2 = ("tests/test_glm_private_algorithms.py", "tests/test_shuffle_glm_mechanisms.py")
GLM1 = ("tests/test_shuffle_glm_algorithm.py", "tests/test_shuffle_glm_mechanisms.py")
NOISE = ("tests/test_noise.py", "tests/test_conformance.py")

DS = "mechanisms/distributed/distributed_sum.py"
BATCH_SE = "algorithms/mab/batch_se.py"

SITES: tuple[Site, ...] = (
    # -- dist-mab: Algorithm 1's batch protocols -----------------------------------------------------------
    Site("dist-mab/polya-total-noise", "dist-dp-se, cdp-se", DS,
         "return DiscreteLaplace(self.g / self.epsilon)  # Fact 1",
         "return DiscreteLaplace(0.5 * self.g / self.epsilon)  # Fact 1",
         "DistributedSum.total_noise, Polya shares' total Lap_Z(g/eps) (fast path, central noise, exact law)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/polya-share", "dist-dp-se", DS,
         "return PolyaDifference.share(self.n, math.exp(-self.epsilon / self.g))",
         "return PolyaDifference.share(self.n, math.exp(-2 * self.epsilon / self.g))",
         "DistributedSum.share, one user's Polya(1/n, e^{-eps/g}) difference (reference path)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/skellam-total-noise", "dist-rdp-se", DS,
         "return Skellam(self.g**2 / self.epsilon**2)",
         "return Skellam(0.25 * self.g**2 / self.epsilon**2)",
         "DistributedSum.total_noise, Skellam shares' total Sk(0, g^2/eps^2) (fast path, exact law)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/skellam-share", "dist-rdp-se", DS,
         'return Skellam(variance) if self.noise == "skellam"',
         'return Skellam(0.25 * variance) if self.noise == "skellam"',
         "DistributedSum.share, one user's Sk(0, g^2/(n eps^2)) (reference path)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/discrete-gaussian-share", "dist-cdp-se", DS,
         "else DiscreteGaussian(math.sqrt(variance))",
         "else DiscreteGaussian(0.5 * math.sqrt(variance))",
         "DistributedSum.share, one user's N_Z(0, g^2/(n eps^2)) (both paths and the exact law)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/secagg-call-eps", "dist-dp-se, dist-rdp-se, dist-cdp-se", BATCH_SE,
         "rel = DistributedSum(self.protocol, self.eps, n, T,",
         "rel = DistributedSum(self.protocol, 2 * self.eps, n, T,",
         "BatchSuccessiveElimination.release: the eps passed to the SecAgg protocols",
         DIST_MAB + (NEW,)),
    Site("dist-mab/central-draw", "cdp-se", DS,
         "eta = self.total_noise().sample(y_hat.shape, rng)",
         "eta = DiscreteLaplace(0.5 * self.g / self.epsilon).sample(y_hat.shape, rng)",
         "CentralModularSum.add_central_noise, the trusted analyzer's Lap_Z(g/eps) draw (reference path)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/central-call-eps", "cdp-se", BATCH_SE,
         "rel = CentralModularSum(self.eps, n, T,",
         "rel = CentralModularSum(2 * self.eps, n, T,",
         "BatchSuccessiveElimination.release: the eps passed to the central protocol",
         DIST_MAB + (NEW,)),
    Site("dist-mab/local-noise", "ldp-se", DS,
         'line 4)."""\n        return DiscreteLaplace(self.g / self.epsilon)',
         'line 4)."""\n        return DiscreteLaplace(0.5 * self.g / self.epsilon)',
         "LocalModularRandomizer.noise, each user's Lap_Z(g/eps) (reference path)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/local-secure-sum", "ldp-se", DS,
         "half = Polya(float(self.n), math.exp(-self.epsilon / self.g))",
         "half = Polya(float(self.n), math.exp(-2 * self.epsilon / self.g))",
         "LocalModularRandomizer.secure_sum, the n users' noise as a Polya difference (fast path)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/local-law", "ldp-se", DS,
         "DiscreteLaplace(self.g / self.epsilon), self.m)",
         "DiscreteLaplace(0.5 * self.g / self.epsilon), self.m)",
         "LocalModularRandomizer's exact law of a message",
         DIST_MAB + (NEW,)),
    Site("dist-mab/local-call-eps", "ldp-se", BATCH_SE,
         "rel = LocalModularRandomizer(self.eps, n, T,",
         "rel = LocalModularRandomizer(2 * self.eps, n, T,",
         "BatchSuccessiveElimination.release: the eps passed to the local protocol",
         DIST_MAB + (NEW,)),
    Site("dist-mab/shuffle-noise-epsilon", "shuffle-dp-se", DS,
         'self.noise_epsilon = self.epsilon if self.noise_parameter == "printed"',
         'self.noise_epsilon = 2 * self.epsilon if self.noise_parameter == "printed"',
         "ShuffleModSum.noise_epsilon, the shares' decay e^{-eps/g} (both paths and the exact law)",
         DIST_MAB + (NEW,)),
    Site("dist-mab/shuffle-call-eps", "shuffle-dp-se", BATCH_SE,
         "rel = ShuffleModSum(self.eps, n, T, p=self.p)",
         "rel = ShuffleModSum(2 * self.eps, n, T, p=self.p)",
         "BatchSuccessiveElimination.release: the eps passed to the shuffle protocol",
         DIST_MAB + (NEW,)),
    # -- DP-SE -------------------------------------------------------------------------------------------
    Site("dp-se/arm-sums-scale", "dp-se", "mechanisms/counters/online_releases.py",
         "self.noise = Laplace(1 / Fraction(self.epsilon))  # Lap(1/eps) on each arm's sum",
         "self.noise = Laplace(1 / (2 * Fraction(self.epsilon)))  # Lap(1/eps) on each arm's sum",
         "NoisyArmSums.noise, Lap(1/eps) on each arm's sum (draw and exact law)",
         DP_SE + (NEW,)),
    Site("dp-se/arm-sums-draw", "dp-se", "mechanisms/counters/online_releases.py",
         "return sums + self.noise.sample(sums.shape, rng)",
         "return sums + 0.5 * self.noise.sample(sums.shape, rng)",
         "NoisyArmSums.add_noise, the policy's per-arm draw",
         DP_SE + (NEW,)),
    Site("dp-se/shared-draw", "dp-se (shared_noise=True)", "mechanisms/counters/online_releases.py",
         "return sums + self.noise.sample(sums.shape[:-1] + (1,), rng)",
         "return sums + 0.5 * self.noise.sample(sums.shape[:-1] + (1,), rng)",
         "NoisyArmSums.add_shared_noise, the released code's one draw per epoch",
         DP_SE + (NEW,)),
    Site("dp-se/call-eps", "dp-se", "algorithms/mab/dp_se.py",
         "self.inner = NoisyArmSums(self.epsilon, self.arms, self.pulls)",
         "self.inner = NoisyArmSums(2 * self.epsilon, self.arms, self.pulls)",
         "DPSEEpoch: the eps passed to its release",
         DP_SE + (NEW,)),
    # -- private-online: Anytime-Lazy-UCB ---------------------------------------------------------------
    Site("lazy-ucb/sum-noise", "anytime-lazy-ucb", "mechanisms/counters/lazy_laplace.py",
         '"""The law of the noise eq. 3 adds to an array\'s sum before dividing by its size: Lap(1/eps)."""\n'
         "        return Laplace(1 / Fraction(self.epsilon))",
         '"""The law of the noise eq. 3 adds to an array\'s sum before dividing by its size: Lap(1/eps)."""\n'
         "        return Laplace(1 / (2 * Fraction(self.epsilon)))",
         "LazyLaplaceArrays.sum_noise, Lap(1/eps) on an array's sum (the policy's draw)",
         ONLINE + (NEW,)),
    Site("lazy-ucb/law-scales", "anytime-lazy-ucb", "mechanisms/counters/lazy_laplace.py",
         "self.scales = [1 / (Fraction(self.epsilon) * size) for size in self.sizes]",
         "self.scales = [1 / (2 * Fraction(self.epsilon) * size) for size in self.sizes]",
         "LazyLaplaceArrays.scales, the exact law's 1/(eps 2^r)",
         ONLINE + (NEW,)),
    Site("lazy-ucb/release-draw", "anytime-lazy-ucb", "mechanisms/counters/lazy_laplace.py",
         "noise = rng.laplace(0.0, 1 / self.epsilon, (size, self.arrays))",
         "noise = rng.laplace(0.0, 0.5 / self.epsilon, (size, self.arrays))",
         "LazyLaplaceArrays.sample, the release's fast draw",
         ONLINE + (NEW,)),
    Site("lazy-ucb/per-pull-draw", "anytime-lazy-ucb", "mechanisms/counters/lazy_laplace.py",
         "(running + rng.laplace(0.0, 1 / self.epsilon, size)) / capacity",
         "(running + rng.laplace(0.0, 0.5 / self.epsilon, size)) / capacity",
         "LazyLaplaceArrays.sample_per_pull, Appendix A's draw",
         ONLINE + (NEW,)),
    Site("lazy-ucb/array-release", "anytime-lazy-ucb", "mechanisms/counters/online_releases.py",
         "self.noise = Laplace(Fraction(1) / (Fraction(self.epsilon) * self.size))",
         "self.noise = Laplace(Fraction(1, 2) / (Fraction(self.epsilon) * self.size))",
         "LazyArrayRelease (M1), one array's Lap(1/(eps 2^r)) on its mean",
         ONLINE + (NEW,)),
    Site("lazy-ucb/call-eps", "anytime-lazy-ucb", "algorithms/online/lazy_ucb.py",
         "self.release = LazyLaplaceArrays(self.epsilon, 2**self.arrays - 1)",
         "self.release = LazyLaplaceArrays(2 * self.epsilon, 2**self.arrays - 1)",
         "AnytimeLazyUCB.start: the eps passed to its release",
         ONLINE + (NEW,)),
    # -- private-online: Hybrid-UCB ---------------------------------------------------------------------
    Site("hybrid-ucb/array-noise", "hybrid-ucb", "mechanisms/counters/hybrid_counter.py",
         "self.array_noise = Laplace(2 / eps)",
         "self.array_noise = Laplace(1 / eps)",
         "HybridCounter.array_noise, Z ~ Lap(2/eps) (eq. 32; the policy's draw and the exact law)",
         ONLINE + (NEW,)),
    Site("hybrid-ucb/tree-noise", "hybrid-ucb", "mechanisms/counters/hybrid_counter.py",
         "BinaryTreeMechanism(filled, Laplace(2 * r / eps))",
         "BinaryTreeMechanism(filled, Laplace(r / eps))",
         "HybridCounter's block trees, p-sum noise Lap(2r/eps) (eq. 33; release path and exact law)",
         ONLINE + (NEW,)),
    Site("hybrid-ucb/node-noise", "hybrid-ucb", "mechanisms/counters/hybrid_counter.py",
         'return Laplace(2 * integer(self.owner, "r", r, 1) / Fraction(self.epsilon))',
         'return Laplace(integer(self.owner, "r", r, 1) / Fraction(self.epsilon))',
         "HybridCounter.node_noise, Lap(2r/eps) (the policy's p-sum draw)",
         ONLINE + (NEW,)),
    Site("hybrid-ucb/per-pull-draw", "hybrid-ucb", "mechanisms/counters/hybrid_counter.py",
         "two_over_eps = 2 / self.epsilon",
         "two_over_eps = 1 / self.epsilon",
         "HybridCounter.sample_per_pull, Algorithm 4's draws",
         ONLINE + (NEW,)),
    Site("hybrid-ucb/error-laws", "hybrid-ucb", "mechanisms/counters/hybrid_counter.py",
         "return LaplaceSum(r, 2 / self.epsilon), LaplaceSum(n.bit_count(), 2 * r / self.epsilon)",
         "return LaplaceSum(r, 1 / self.epsilon), LaplaceSum(n.bit_count(), r / self.epsilon)",
         "HybridCounter.error_laws, the estimate's noise law",
         ONLINE + (NEW,)),
    Site("hybrid-ucb/call-eps", "hybrid-ucb", "algorithms/online/hybrid_ucb.py",
         "self.counter = HybridCounter(self.noise_epsilon, 1)",
         "self.counter = HybridCounter(2 * self.noise_epsilon, 1)",
         "HybridUCB: the eps passed to its counter",
         ONLINE + (NEW,)),
    # -- private-online: FTNL and naive FTNL --------------------------------------------------------------
    Site("ftnl/rnm-scale", "ftnl, naive-ftnl", "mechanisms/classic/noisy_max.py",
         "self.scale = 2 * Fraction(self.sensitivity) / Fraction(self.epsilon)",
         "self.scale = Fraction(self.sensitivity) / Fraction(self.epsilon)",
         "ReportNoisyMax scale 2 Delta/eps (draw and exact law)",
         FTNL + (NEW,)),
    Site("ftnl/rnm-draw", "ftnl, naive-ftnl", "mechanisms/classic/noisy_max.py",
         'b = float(self.scale)\n        if self.noise == "laplace":',
         'b = 0.5 * float(self.scale)\n        if self.noise == "laplace":',
         "ReportNoisyMax._noise, the draw of select/sample",
         FTNL + (NEW,)),
    Site("ftnl/call-eps", "ftnl", "algorithms/online/ftnl.py",
         'rnm_epsilon = 2 * self.epsilon if self.scale_rule == "1/eps" else self.epsilon',
         'rnm_epsilon = 4 * self.epsilon if self.scale_rule == "1/eps" else self.epsilon',
         "FollowTheNoisyLeader.noisy_max: FTNL's eps' = 2 eps for Lap(1/eps)",
         FTNL + (NEW,)),
    Site("ftnl/call-eps-2-over-eps", "ftnl (noise_scale='2/eps')", "algorithms/online/ftnl.py",
         'if self.scale_rule == "1/eps" else self.epsilon',
         'if self.scale_rule == "1/eps" else 2 * self.epsilon',
         "FollowTheNoisyLeader.noisy_max: eps' = eps for Lap(2/eps)",
         FTNL + (NEW,)),
    Site("ftnl/epoch-noisy-max", "ftnl", "mechanisms/counters/online_releases.py",
         'self.inner = ReportNoisyMax(2 * self.epsilon, self.K, sensitivity=1.0, noise="laplace")',
         'self.inner = ReportNoisyMax(4 * self.epsilon, self.K, sensitivity=1.0, noise="laplace")',
         "EpochNoisyMax (M3), the audited release of FTNL's epoch",
         FTNL + (NEW,)),
    Site("naive-ftnl/call-eps", "naive-ftnl", "algorithms/online/ftnl.py",
         "rnm_epsilon = 2 * self.epsilon / K",
         "rnm_epsilon = 4 * self.epsilon / K",
         "FollowTheNoisyLeader.noisy_max: naive FTNL's Lap(K/eps)",
         FTNL + (NEW,)),
    Site("naive-ftnl/epoch-laplace", "naive-ftnl", "mechanisms/counters/online_releases.py",
         "self.noise = Laplace(Fraction(self.K) / Fraction(self.epsilon))",
         "self.noise = Laplace(Fraction(self.K, 2) / Fraction(self.epsilon))",
         "NaiveEpochLaplace (M4), Lap(K/eps) on every action's epoch sum",
         FTNL + (NEW,)),
    # -- shuffle-lcb: Gaussian randomizers and P_Amp ------------------------------------------------------
    Site("linucb/ldp-sigma", "linucb-ldp, batched-local-linucb", "mechanisms/shuffle/shuffle_amp.py",
         "return 4 * math.sqrt(2 * math.log(2.5 / delta0)) / epsilon0",
         "return 2 * math.sqrt(2 * math.log(2.5 / delta0)) / epsilon0",
         "ldp_sigma, Corollary B.3's sigma",
         LINEAR + (NEW,)),
    Site("linucb/ldp-call-eps", "linucb-ldp, batched-local-linucb", "algorithms/linear/statistics.py",
         "GaussianRandomizer.ldp(self.eps0, self.delta0, d, strict=False)",
         "GaussianRandomizer.ldp(2 * self.eps0, self.delta0, d, strict=False)",
         "LocalGaussianSums: the eps0 passed to R_Amp",
         LINEAR + (NEW,)),
    Site("linucb/randomizer-draw", "linucb-ldp, batched-local-linucb", "mechanisms/shuffle/shuffle_amp.py",
         "return rng.normal(0.0, self.sigma, (*shape, self.coordinates))",
         "return rng.normal(0.0, 0.5 * self.sigma, (*shape, self.coordinates))",
         "GaussianRandomizer's per-user draw (the local variants' path)",
         LINEAR + (NEW,)),
    Site("linucb/unique-user-sigma", "linucb-sdp-amp", "mechanisms/shuffle/shuffle_amp.py",
         "return 4 * math.sqrt(2 * math.log(2.5 * B / delta) * math.log(2 / delta)) / (epsilon * math.sqrt(B))",
         "return 2 * math.sqrt(2 * math.log(2.5 * B / delta) * math.log(2 / delta)) / (epsilon * math.sqrt(B))",
         "unique_user_sigma, Theorem 3.2's sigma",
         LINEAR + (NEW,)),
    Site("linucb/unique-user-call-eps", "linucb-sdp-amp", "algorithms/linear/statistics.py",
         "GaussianRandomizer.unique_users(self.eps, self.delta, self.B, d, strict=False)",
         "GaussianRandomizer.unique_users(2 * self.eps, self.delta, self.B, d, strict=False)",
         "ShuffledGaussianSums: the eps passed for unique users",
         LINEAR + (NEW,)),
    Site("linucb/returning-user-sigma", "linucb-sdp-amp-returning", "mechanisms/shuffle/shuffle_amp.py",
         "return 16 * math.log(2 / delta) * math.sqrt(T * math.log(5 * T / delta)) / (epsilon * B)",
         "return 8 * math.log(2 / delta) * math.sqrt(T * math.log(5 * T / delta)) / (epsilon * B)",
         "returning_user_sigma, Theorem 4.2(i)'s sigma",
         LINEAR + (NEW,)),
    Site("linucb/returning-user-call-eps", "linucb-sdp-amp-returning", "algorithms/linear/statistics.py",
         "GaussianRandomizer.returning_users(self.eps, self.delta, self.B, T, d, strict=False)",
         "GaussianRandomizer.returning_users(2 * self.eps, self.delta, self.B, T, d, strict=False)",
         "ShuffledGaussianSums: the eps passed for returning users",
         LINEAR + (NEW,)),
    Site("linucb/p-amp-batch-draw", "linucb-sdp-amp, linucb-sdp-amp-returning", "mechanisms/shuffle/shuffle_amp.py",
         "return total + rng.normal(0.0, self.randomizer.sigma * math.sqrt(self.B), total.shape)",
         "return total + rng.normal(0.0, 0.5 * self.randomizer.sigma * math.sqrt(self.B), total.shape)",
         "ShuffledGaussianProtocol.release_batches, a batch's N(0, B sigma^2) (the policies' path)",
         LINEAR + (NEW,)),
    # -- shuffle-lcb: P_Vec ---------------------------------------------------------------------------------
    Site("linucb/p-vec-unique-bits", "linucb-sdp-vec, cs-linucb", "mechanisms/shuffle/shuffle_vec.py",
         "b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * B))",
         "b = math.ceil(6e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * B))",
         "unique_user_parameters, Theorem 3.5's b (noise bits: std sqrt(b)/g)",
         LINEAR + CS + (NEW,)),
    Site("linucb/p-vec-unique-call-eps", "linucb-sdp-vec", "algorithms/linear/statistics.py",
         "protocol = ShuffledVectorProtocol.unique_users(self.eps, self.delta, d, self.B)",
         "protocol = ShuffledVectorProtocol.unique_users(2 * self.eps, self.delta, d, self.B)",
         "ShuffledVectorSums: the eps passed for unique users",
         LINEAR + (NEW,)),
    Site("linucb/p-vec-returning-bits", "linucb-sdp-vec-returning", "mechanisms/shuffle/shuffle_vec.py",
         "b = math.ceil(1e7 * math.log(2 / delta) * g**2 * T",
         "b = math.ceil(2.5e6 * math.log(2 / delta) * g**2 * T",
         "returning_user_parameters, Theorem 4.2(ii)'s b",
         LINEAR + (NEW,)),
    Site("linucb/p-vec-returning-call-eps", "linucb-sdp-vec-returning", "algorithms/linear/statistics.py",
         "protocol = ShuffledVectorProtocol.returning_users(self.eps, self.delta, d, self.B, T)",
         "protocol = ShuffledVectorProtocol.returning_users(2 * self.eps, self.delta, d, self.B, T)",
         "ShuffledVectorSums: the eps passed for returning users",
         LINEAR + (NEW,)),
    # -- shuffle-lcb and concurrent-shuffle: the central tree -----------------------------------------------
    Site("tree/node-sigma", "linucb-jdp, batched-central-linucb, linucb-jdp-user-level, cs-linucb-central",
         "mechanisms/counters/central_tree.py",
         "return rounds_per_user * analytic_gaussian_sigma(epsilon, delta, whole_release)",
         "return 0.5 * rounds_per_user * analytic_gaussian_sigma(epsilon, delta, whole_release)",
         "node_sigma, the tree's analytic-Gaussian node sigma (times M0)",
         TREE + ("tests/test_cs_linucb.py", NEW)),
    Site("tree/leaf-sensitivity", "linucb-jdp, batched-central-linucb, linucb-jdp-user-level, cs-linucb-central",
         "mechanisms/counters/central_tree.py",
         "LEAF_SENSITIVITY = 2 * math.sqrt(2)\n",
         "LEAF_SENSITIVITY = math.sqrt(2)\n",
         "LEAF_SENSITIVITY, the l2 sensitivity the node sigma is calibrated for",
         TREE + ("tests/test_cs_linucb.py", NEW)),
    Site("tree/event-level-call-eps", "linucb-jdp, batched-central-linucb", "algorithms/linear/statistics.py",
         "CentralTreeMechanism.event_level(T, d, self.eps, self.delta, batch=self.B)",
         "CentralTreeMechanism.event_level(T, d, 2 * self.eps, self.delta, batch=self.B)",
         "TreeSums: the eps passed to the event-level tree",
         TREE + (NEW,)),
    Site("tree/user-level-call-eps", "linucb-jdp-user-level", "algorithms/linear/statistics.py",
         "CentralTreeMechanism.user_level(T, d, self.eps, self.delta, self.rounds_per_user)",
         "CentralTreeMechanism.user_level(T, d, 2 * self.eps, self.delta, self.rounds_per_user)",
         "TreeSums: the eps passed to the user-level tree",
         TREE + (NEW,)),
    Site("cs-linucb/central-call-eps", "cs-linucb-central", "algorithms/linear/cs_linucb.py",
         "return CentralTreeMechanism.event_level(horizon, d, self.eps, self.delta)",
         "return CentralTreeMechanism.event_level(horizon, d, 2 * self.eps, self.delta)",
         "CentralTreeStatistics: the eps passed to the central tree",
         CS + (NEW,)),
    Site("cs-linucb/block-budget", "cs-linucb", "mechanisms/counters/concurrent_shuffle.py",
         "self.epsilon, self.delta = epsilon / parts, delta / parts",
         "self.epsilon, self.delta = 2 * epsilon / parts, delta / parts",
         "VectorConcurrentTree: each block's P_Vec at (eps/k, delta/k)",
         CS + (NEW,)),
    Site("cs-linucb/call-eps", "cs-linucb", "algorithms/linear/cs_linucb.py",
         "return VectorConcurrentTree(N, k, self.eps, self.delta, degree, d_low, dim=d)",
         "return VectorConcurrentTree(N, k, 2 * self.eps, self.delta, degree, d_low, dim=d)",
         "ConcurrentShuffleStatistics: the eps passed to the vector tree",
         CS + (NEW,)),
    # -- shuffle-glm: Algorithm 2 (JDP-GLM, Private-GLM) ----------------------------------------------------
    Site("glm/lemma-i4-sigma", "jdp-glm, private-glm (tree='printed')", "mechanisms/glm/exploration_set.py",
         "return math.sqrt(36 * tree_depth(T) * math.log(32 / delta) ** 2 / (kappa_star**2 * epsilon**2))",
         "return 0.5 * math.sqrt(36 * tree_depth(T) * math.log(32 / delta) ** 2 / (kappa_star**2 * epsilon**2))",
         "node_noise_sigma, Lemma I.4's tree sigma",
         GLM2 + (NEW,)),
    Site("glm/jdp-call-eps", "jdp-glm", "algorithms/glm/jdp_glm.py",
         "sigma = node_noise_sigma(T, self.eps, self.delta, self.kappa_star)",
         "sigma = node_noise_sigma(T, 2 * self.eps, self.delta, self.kappa_star)",
         "JDPGLM.settings: the eps passed for both trees",
         GLM2 + (NEW,)),
    Site("glm/tree-draw", "jdp-glm, private-glm", "mechanisms/glm/exploration_set.py",
         "z = rng.normal(0.0, self.sigma, (runs, self.d, self.d))",
         "z = rng.normal(0.0, 0.5 * self.sigma, (runs, self.d, self.d))",
         "SymmetricGaussianTree.node_noise, the policies' node draw",
         GLM2 + (NEW,)),
    Site("glm/jdp-budget-split", "jdp-glm", "algorithms/glm/parameters.py",
         "return epsilon / (6 * math.sqrt(2 * cutoff * math.log(4 / delta))), delta / (6 * cutoff)",
         "return epsilon / (3 * math.sqrt(2 * cutoff * math.log(4 / delta))), delta / (6 * cutoff)",
         "algorithm2_parameters: (eps_o, delta_o) and (eps_tau, delta_tau) over the cutoffs' calls",
         GLM2 + (NEW,)),
    Site("glm/jdp-explore-call-eps", "jdp-glm", "algorithms/glm/jdp_glm.py",
         "return PrivateGD(eps_o, delta_o, n, params.d,",
         "return PrivateGD(2 * eps_o, delta_o, n, params.d,",
         "criterion_one_optimizer: line 8's P_GD at (eps_o, delta_o)",
         GLM2 + (NEW,)),
    Site("glm/jdp-switch-call-eps", "jdp-glm", "algorithms/glm/parameters.py",
         'pgd = PrivateGD(eps_tau, delta_tau, n, params.d, lipschitz, domain=domain, step="alg7")',
         'pgd = PrivateGD(2 * eps_tau, delta_tau, n, params.d, lipschitz, domain=domain, step="alg7")',
         "criterion_two_optimizer: line 12's P_GD at (eps_tau, delta_tau)",
         GLM2 + (NEW,)),
    Site("glm/zcdp-sigma", "private-glm", "mechanisms/glm/exploration_set.py",
         "return sensitivity / math.sqrt(2 * rho / m)",
         "return 0.5 * sensitivity / math.sqrt(2 * rho / m)",
         "zcdp_node_sigma, the cited code's tree sigma",
         GLM2 + (NEW,)),
    Site("glm/private-glm-call-eps-V", "private-glm", "algorithms/glm/private_glm.py",
         "sigma_V = zcdp_node_sigma(T, eps / 3, delta / 3, 1.0)",
         "sigma_V = zcdp_node_sigma(T, 2 * eps / 3, delta / 3, 1.0)",
         "PrivateGLM.settings: the budget of B_V",
         GLM2 + (NEW,)),
    Site("glm/private-glm-call-eps-H", "private-glm", "algorithms/glm/private_glm.py",
         "sigma_H = zcdp_node_sigma(T, eps / 3, delta / 3, 1 / kappa_star)",
         "sigma_H = zcdp_node_sigma(T, 2 * eps / 3, delta / 3, 1 / kappa_star)",
         "PrivateGLM.settings: the budget of B_H",
         GLM2 + (NEW,)),
    Site("glm/private-glm-printed-call-eps", "private-glm (tree='printed')", "algorithms/glm/private_glm.py",
         "sigma_V = sigma_H = node_noise_sigma(T, eps, delta, kappa_star)",
         "sigma_V = sigma_H = node_noise_sigma(T, 2 * eps, delta, kappa_star)",
         "PrivateGLM.settings: the budget of the printed trees",
         GLM2 + (NEW,)),
    Site("glm/dp-sgd-sigma", "private-glm", "mechanisms/training/dp_sgd.py",
         "self.sigma = self.noise_multiplier * self.clip",
         "self.sigma = 0.5 * self.noise_multiplier * self.clip",
         "DPSGD.sigma = z C (draw and exact law)",
         GLM2 + (NEW,)),
    Site("glm/dp-sgd-draw", "private-glm", "mechanisms/training/dp_sgd.py",
         "return clipped.sum(axis=1) + rng.normal(0.0, self.sigma, (clipped.shape[0], self.d))",
         "return clipped.sum(axis=1) + rng.normal(0.0, 0.5 * self.sigma, (clipped.shape[0], self.d))",
         "DPSGD.noisy_sums, the policy's gradient-noise draw",
         GLM2 + (NEW,)),
    Site("glm/released-tree-draw", "private-glm (constants='released-code')",
         "mechanisms/released_code/glm_released_code.py",
         "self._noise[c] = tree.noise.node_noise(self.runs, rng) if given is None else np.asarray(given, float)",
         "self._noise[c] = 0.5 * tree.noise.node_noise(self.runs, rng) if given is None else np.asarray(given, float)",
         "ReleasedCodeTreeStream.insert, the cited code's tree's node draw",
         ("tests/test_glm_released_code.py",)),
    Site("glm/released-dp-sgd-multiplier", "private-glm (constants='released-code')", "mechanisms/training/dp_sgd.py",
         "z = float(np.sqrt(np.min(steps * orders[room > 0] * q**2 / (2 * room[room > 0]))))",
         "z = 0.5 * float(np.sqrt(np.min(steps * orders[room > 0] * q**2 / (2 * room[room > 0]))))",
         "released_code_noise_multiplier, the cited code's DP-SGD accountant",
         ("tests/test_shuffle_glm_presets.py",)),
    Site("glm/dp-sgd-call-eps", "private-glm", "algorithms/glm/private_glm.py",
         "eps0, delta0 = per_call_budget(self.eps / 3, self.delta / 3, cutoff)",
         "eps0, delta0 = per_call_budget(2 * self.eps / 3, self.delta / 3, cutoff)",
         "PrivateGLM.fit: the per-call DP-SGD budget",
         GLM2 + (NEW,)),
    Site("glm/pgd-round-budget", "jdp-glm, shuffle-glm", "mechanisms/glm/private_gd.py",
         "return epsilon / (2 * math.sqrt(2 * T_it * math.log(1 / delta))), delta / (T_it + 1)",
         "return epsilon / math.sqrt(2 * T_it * math.log(1 / delta)), delta / (T_it + 1)",
         "round_budget, P_GD's per-iteration budget (P_1's noise bits b ~ 1/eps^2)",
         GLM2 + GLM1 + (NEW,)),
    Site("glm/summation-bits", "jdp-glm, shuffle-glm", "mechanisms/shuffle/vector_summation.py",
         "b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * n))",
         "b = math.ceil(6e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * n))",
         "summation_parameters, eq. (127)'s b of P_1 and P_2",
         GLM1 + GLM2[:1] + (NEW,)),
    # -- shuffle-glm: Algorithm 1 ---------------------------------------------------------------------------
    Site("glm/shuffle-glm-p2-call-eps", "shuffle-glm", "algorithms/glm/shuffle_glm.py",
         "OuterProductSummation(ShuffledMatrixSummation(self.eps / 2, self.delta / 2, d, n, Delta))",
         "OuterProductSummation(ShuffledMatrixSummation(self.eps, self.delta / 2, d, n, Delta))",
         "ShuffleGLM: P_2 at (eps/2, delta/2)",
         GLM1 + (NEW,)),
    Site("glm/shuffle-glm-pgd-call-eps", "shuffle-glm", "algorithms/glm/parameters.py",
         'pgd = PrivateGD(epsilon / 2, delta / 2, n, d, lipschitz, radius=S, step="alg1", reward_bound=R)',
         'pgd = PrivateGD(epsilon, delta / 2, n, d, lipschitz, radius=S, step="alg1", reward_bound=R)',
         "algorithm1_optimizer: P_GD at (eps/2, delta/2)",
         GLM1 + (NEW,)),
    # -- the noise laws every release draws from --------------------------------------------------------------
    Site("noise/laplace-draw", "dp-se, anytime-lazy-ucb, hybrid-ucb, naive FTNL's M4", "mechanisms/noise/laplace.py",
         "return rng.laplace(self.loc, float(self.scale), size)",
         "return rng.laplace(self.loc, 0.5 * float(self.scale), size)",
         "Laplace.sample",
         NOISE + (NEW,)),
    Site("noise/discrete-laplace-draw", "dist-dp-se, cdp-se, shuffle-dp-se, ldp-se", "mechanisms/noise/laplace.py",
         "return self.loc + two_sided_geometric(float(self.scale), size, rng)",
         "return self.loc + two_sided_geometric(0.5 * float(self.scale), size, rng)",
         "DiscreteLaplace.sample",
         NOISE + (NEW,)),
    Site("noise/gaussian-draw", "the central-tree variants, jdp-glm, private-glm", "mechanisms/noise/gaussian.py",
         "return rng.normal(self.loc, self.sigma, size)",
         "return rng.normal(self.loc, 0.5 * self.sigma, size)",
         "Gaussian.sample",
         NOISE + (NEW,)),
    Site("noise/discrete-gaussian-draw", "dist-cdp-se", "mechanisms/noise/gaussian.py",
         "exact_discrete_gaussian(rational.numerator, rational.denominator, n, rng)",
         "exact_discrete_gaussian(rational.numerator, 4 * rational.denominator, n, rng)",
         "DiscreteGaussian.sample, the exact sampler (variance / 4)",
         NOISE + (NEW,)),
    Site("noise/skellam-draw", "dist-rdp-se", "mechanisms/noise/skellam.py",
         "mu = self.variance / 2\n        return self.loc + rng.poisson(mu, size) - rng.poisson(mu, size)",
         "mu = self.variance / 8\n        return self.loc + rng.poisson(mu, size) - rng.poisson(mu, size)",
         "Skellam.sample",
         NOISE + (NEW,)),
    Site("noise/polya-draw", "dist-dp-se, shuffle-dp-se, ldp-se", "mechanisms/noise/polya.py",
         "return rng.negative_binomial(self.r, 1 - self.beta, size)",
         "return rng.negative_binomial(self.r, 1 - self.beta**2, size)",
         "Polya.sample (beta^2: the decay of a halved discrete-Laplace scale)",
         NOISE + (NEW,)),
)


# -- running -------------------------------------------------------------------------------------------------

def check_sites(sites: tuple[Site, ...]) -> None:
    names = [s.name for s in SITES]
    if len(set(names)) != len(names):
        raise SystemExit("noise_sweep: site names must be unique")
    for site in sites:
        text = (ROOT / site.path).read_text()
        count = text.count(site.original)
        if count != 1:
            raise SystemExit(f"noise_sweep: {site.name}: the original text occurs {count} times in {site.path} "
                             f"(must be once): {site.original!r}")
        if site.original == site.mutated:
            raise SystemExit(f"noise_sweep: {site.name}: the mutation changes nothing")
        for test in site.tests:
            if not (ROOT / test.split("::")[0]).exists():
                raise SystemExit(f"noise_sweep: {site.name}: no test file {test}")


def refuse_uncommitted(paths: set[str]) -> None:
    """A mutated file is restored from memory; if the sweep dies before that, git must hold the original."""
    out = subprocess.run(["git", "status", "--porcelain", "--", *sorted(paths)], cwd=ROOT, capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise SystemExit(f"noise_sweep: git status failed: {out.stderr.strip()}")
    if out.stdout.strip():
        raise SystemExit("noise_sweep: these target files have uncommitted changes; commit or stash them first:\n"
                         + out.stdout)


#: a summary line of -ra: "FAILED <node id> - <message>" (a node id may hold spaces in its parameters)
FAILED = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.MULTILINE)


def run_site(site: Site) -> tuple[str, str, float]:
    """Apply the mutation, run the tests, restore: (result, killing test or note, seconds)."""
    path = ROOT / site.path
    original = path.read_bytes()
    mutated = original.decode().replace(site.original, site.mutated, 1).encode()
    started = time.monotonic()
    try:
        path.write_bytes(mutated)
        try:
            proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *site.tests],
                                  cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return "time-out", f"no verdict within {TIMEOUT_SECONDS} s", time.monotonic() - started
    finally:
        path.write_bytes(original)
        if path.read_bytes() != original:
            raise SystemExit(f"noise_sweep: {site.path} was NOT restored; run git checkout -- {site.path}")
    seconds = time.monotonic() - started
    if proc.returncode == 0:
        return "survived", "", seconds
    failed = FAILED.findall(proc.stdout)
    if proc.returncode == 1 and failed:
        return "killed", failed[0], seconds
    tail = " ".join(proc.stdout.strip().splitlines()[-1:] + proc.stderr.strip().splitlines()[-1:])
    return "error", f"pytest exit {proc.returncode}: {tail[:200]}", seconds


# -- the report ------------------------------------------------------------------------------------------

HEADER = """# Noise-halving mutation sweep

Every place a private policy's noise is determined (the release's calibration, the draw, and the eps or budget
the algorithm passes), halved one at a time, with the tests listed for the site run by `pytest -x -q`. A site
is *killed* when at least one test fails. Regenerate with `python tools/mutation/noise_sweep.py` (one site:
`--only NAME`); the sites, their exact texts and their tests are in `tools/mutation/noise_sweep.py`.

| site | policies | where | mutation | result | killed by |
| --- | --- | --- | --- | --- | --- |
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def row(site: Site, result: str, test: str) -> str:
    where = f"{site.path}: {site.what}"
    killer = f"`{test}`" if result == "killed" else test
    return (f"| {site.name} | {_cell(site.policies)} | {_cell(where)} | {_cell(site.mutation)} | {result} | "
            f"{_cell(killer)} |")


def write_report(rows: dict[str, str]) -> None:
    """The table in SITES order; rows of sites not run this time are kept from the existing report."""
    kept: dict[str, str] = {}
    if REPORT.exists():
        for line in REPORT.read_text().splitlines():
            match = re.match(r"^\| (\S+) \|", line)
            if match and match.group(1) in {s.name for s in SITES}:
                kept[match.group(1)] = line
    kept.update(rows)
    lines = [kept[s.name] for s in SITES if s.name in kept]
    results = [re.split(r" \| ", line)[-2] for line in lines]
    summary = (f"\n{results.count('killed')} of {len(SITES)} sites killed"
               + ("" if len(lines) == len(SITES) else f" ({len(SITES) - len(lines)} not yet run)")
               + "".join(f", {results.count(r)} {r}" for r in ("survived", "error", "time-out") if r in results)
               + ".\n")
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(HEADER + "\n".join(lines) + "\n" + summary)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run the sites whose name matches (shell pattern; repeatable)")
    parser.add_argument("--list", action="store_true", help="list the sites and exit")
    args = parser.parse_args(argv)
    sites = tuple(s for s in SITES if not args.only or any(fnmatch.fnmatch(s.name, p) for p in args.only))
    if not sites:
        raise SystemExit(f"noise_sweep: no site matches {args.only}")
    if args.list:
        for s in sites:
            print(f"{s.name:40} {s.path}: {s.mutation}")
        return 0
    check_sites(sites)
    refuse_uncommitted({s.path for s in sites})
    # a termination signal unwinds through run_site's finally, which restores the mutated file
    signal.signal(signal.SIGTERM, _interrupt)
    rows: dict[str, str] = {}
    for i, site in enumerate(sites, 1):
        print(f"[{i}/{len(sites)}] {site.name} ({site.path}) ...", end=" ", flush=True)
        result, note, seconds = run_site(site)
        print(f"{result} in {seconds:.0f} s" + (f": {note}" if note else ""), flush=True)
        rows[site.name] = row(site, result, note)
        write_report(rows)  # after every site, so an interrupted sweep keeps what it found
    survivors = [n for n, r in rows.items() if "| killed |" not in r]
    print(f"{len(rows) - len(survivors)} of {len(rows)} killed" + (f"; not killed: {', '.join(survivors)}"
                                                                     if survivors else ""))
    print(f"report: {REPORT.relative_to(ROOT)}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
