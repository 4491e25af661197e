"""The vectorised entry points the private LinUCB variants call (R runs' batches at once) have the
exact law of the mechanisms' audited releases: equal outputs given the same noise draws where the
draws line up, and seeded law tests (false-failure rates in comments) where they do not."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpaudit.mechanisms.counters.central_tree import CentralTreeMechanism
from dpaudit.mechanisms.shuffle.shuffle_amp import (
    GaussianRandomizer,
    ShuffledGaussianProtocol,
    ldp_sigma,
    returning_user_sigma,
    unique_user_sigma,
)
from dpaudit.mechanisms.shuffle.shuffle_vec import ShuffledVectorProtocol


def _rows(rng, shape, d):
    """Rows (phi, y) with ||phi|| <= 1 and |y| <= 1."""
    phi = rng.standard_normal((*shape, d))
    phi *= rng.random((*shape, 1)) / np.linalg.norm(phi, axis=-1, keepdims=True)
    return np.concatenate([phi, rng.uniform(-1, 1, (*shape, 1))], axis=-1)


def test_randomizer_rows_are_sample_given_the_same_draws():
    randomizer = GaussianRandomizer(0.7, 3)
    row = _rows(np.random.default_rng(0), (), 3)
    expected = randomizer.sample(row, 50, np.random.default_rng(5))
    got = randomizer.release_rows(np.broadcast_to(row, (50, 4)), np.random.default_rng(5))
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match="last axis"):
        randomizer.release_rows(np.zeros((2, 3)), np.random.default_rng(0))


def test_protocol_batches_are_sample_sums_given_the_same_draws():
    protocol = ShuffledGaussianProtocol(GaussianRandomizer(0.4, 2), 5)
    rng = np.random.default_rng(1)
    batch = _rows(rng, (5,), 2)
    expected = protocol.sample_sums(batch, 30, np.random.default_rng(9))
    got = protocol.release_batches(np.broadcast_to(batch, (30, 5, 3)), np.random.default_rng(9))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    # different batches per run: the noise does not depend on the data, each run's centre is its own sum
    mixed = _rows(rng, (30, 5), 2)
    noise_mixed = protocol.release_batches(mixed, np.random.default_rng(9)) - np.stack(
        [protocol.means(b).sum(axis=0) for b in mixed])
    np.testing.assert_allclose(noise_mixed, expected - protocol.means(batch).sum(axis=0), atol=1e-12)
    with pytest.raises(ValueError, match=r"shape \(R, 5, 3\)"):
        protocol.release_batches(mixed[:, :4], np.random.default_rng(0))


def test_protocol_noise_drawn_into_a_buffer_is_the_fresh_draws():
    """sum_noise into a buffer (the compiled rounds reuse one from block to block): the values of a fresh array, bit
    for bit, in pieces as in one piece; a buffer of another shape, dtype or layout is refused."""
    protocol = ShuffledGaussianProtocol(GaussianRandomizer(0.4, 3), 7)
    fresh = protocol.sum_noise((5, 4), np.random.default_rng(3))
    assert fresh.shape == (5, 4, protocol.randomizer.coordinates)
    rng, buffer = np.random.default_rng(3), np.full((6, 4, protocol.randomizer.coordinates), np.nan)
    first = protocol.sum_noise((2, 4), rng, out=buffer[:2]).copy()
    rest = protocol.sum_noise((3, 4), rng, out=buffer[:3])
    assert np.shares_memory(rest, buffer)
    np.testing.assert_array_equal(np.concatenate([first, rest]), fresh)
    for bad in (np.empty((2, 4, 3)), np.empty((2, 4, protocol.randomizer.coordinates), dtype=np.float32),
                np.empty((4, 2, protocol.randomizer.coordinates)).transpose(1, 0, 2)):
        with pytest.raises(ValueError, match="out must be a C-contiguous float array"):
            protocol.sum_noise((2, 4), rng, out=bad)


def test_sigma_formulas_outside_the_range_only_when_asked():
    with pytest.raises(ValueError, match="epsilon"):
        unique_user_sigma(10.0, 0.1, 20)
    assert unique_user_sigma(10.0, 0.1, 20, strict=False) == pytest.approx(unique_user_sigma(0.3, 0.1, 20) * 0.03)
    with pytest.raises(ValueError, match="epsilon0"):
        ldp_sigma(10.0, 0.1)
    assert ldp_sigma(10.0, 0.1, strict=False) == pytest.approx(ldp_sigma(1.0, 0.1) / 10)
    with pytest.raises(ValueError, match="E.3"):
        returning_user_sigma(10.0, 0.1, 20, 100)
    assert returning_user_sigma(10.0, 0.1, 20, 100, strict=False) == pytest.approx(
        returning_user_sigma(1.0, 0.1, 20, 100) / 10)


def test_vector_protocol_batches_have_the_exact_count_law():
    # small (g, b) so every label's law is a short table; two data sets interleaved over 20,000 runs;
    # a chi-square goodness-of-fit per label and data set (10 tests) against count_laws, rejected
    # below p = 1e-4 each: a false failure has probability at most 1e-3
    protocol = ShuffledVectorProtocol(4, 10, 2, 3)
    rng = np.random.default_rng(2)
    data = [_rows(rng, (3,), 2), _rows(rng, (3,), 2)]
    runs = 20_000
    rows = np.stack([data[r % 2] for r in range(runs)])
    counts = protocol.release_batches(rows, np.random.default_rng(3))
    assert counts.shape == (runs, protocol.labels)
    for which in (0, 1):
        sample = counts[which::2]
        for label, law in enumerate(protocol.count_laws(data[which])):
            support = law.offset + np.arange(len(law.probs))
            observed = np.array([(sample[:, label] == k).sum() for k in support])
            assert observed.sum() == sample.shape[0]  # nothing outside the exact support
            expected = law.probs * sample.shape[0]
            keep = expected >= 5
            obs = np.append(observed[keep], observed[~keep].sum())
            exp = np.append(expected[keep], expected[~keep].sum())
            obs, exp = (obs, exp) if exp[-1] > 0 else (obs[:-1], exp[:-1])
            assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4


def test_vector_protocol_batches_at_the_papers_b():
    # Theorem 3.5 at eps = 0.2 (b ~ 1.2e9 bits per entry): counts are drawn, never bits; the analyzer's
    # output is unbiased with the law's standard deviation (1/g) sqrt(sum f(1 - f) + B b p (1 - p));
    # a z-test of the mean over 4,000 runs per label at |z| < 5 (false failure < 1e-5 over 20 labels)
    protocol = ShuffledVectorProtocol.unique_users(0.2, 0.1, 5, 20)
    assert protocol.b > 10**9
    batch = _rows(np.random.default_rng(4), (20,), 5)
    counts = protocol.release_batches(np.broadcast_to(batch, (4000, 20, 6)), np.random.default_rng(5))
    vector, matrix = protocol.analyze(counts)
    exact = protocol.entries(batch).sum(axis=0)
    released = np.concatenate([vector, matrix[:, protocol.upper[0], protocol.upper[1]]], axis=1)
    sd = np.sqrt(20 / 4 + 20 * protocol.b * 3 / 16) / protocol.g
    z = (released.mean(axis=0) - exact) / (sd / np.sqrt(4000))
    assert np.abs(z).max() < 5
    assert released.std(axis=0) == pytest.approx(np.full(exact.size, sd), rel=0.1)


def test_tree_runs_are_the_mechanisms_prefixes_given_the_same_node_noise():
    mech = CentralTreeMechanism(11, 2, sigma=0.3, batch=2)  # 6 leaves, the last one partial
    rng = np.random.default_rng(6)
    runs = 3
    stream = _rows(rng, (runs, 11), 2)
    noise = rng.normal(0, 0.3, (runs, mech.leaves, len(mech.upper[0])))
    online = mech.runs(runs, np.random.default_rng(0))
    padded = np.concatenate([stream, np.zeros((runs, 1, 3))], axis=1)
    for leaf in range(mech.leaves):
        got = online.add(padded[:, 2 * leaf: 2 * leaf + 2], noise=noise[:, leaf])
        for r in range(runs):
            expected = mech.prefix_matrices(mech.tree.node_sums(mech.leaf_stream(stream[r])) + noise[r])[leaf]
            np.testing.assert_allclose(got[r], expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="all 6 leaves"):
        online.add(padded[:, :2])


def test_tree_runs_draw_each_node_once_with_the_trees_law():
    # the noise of the prefixes through leaves 1..8 (zero rows: the release is the noise) over 4,000
    # runs: its covariance must be sigma^2 |nodes(t) & nodes(t')| (a node's draw reused by every prefix
    # that contains it); each of the 36 entries within 5 standard errors (Gaussian fourth moments):
    # false failure < 36 x 6e-7
    mech = CentralTreeMechanism(8, 1, sigma=1.0)
    online = mech.runs(4000, np.random.default_rng(7))
    noise = np.stack([online.add(np.zeros((4000, 1, 2)))[:, 0, 0] for _ in range(8)], axis=1)
    nodes = [set(mech.tree.prefix_nodes(t)) for t in range(1, 9)]
    exact = np.array([[len(a & b) for b in nodes] for a in nodes], dtype=float)
    empirical = np.cov(noise, rowvar=False)
    se = np.sqrt((np.outer(np.diag(exact), np.diag(exact)) + exact**2) / 4000)
    assert (np.abs(empirical - exact) < 5 * se).all()
    for t in range(1, 9):
        assert mech.error_law(t).sigma ** 2 == pytest.approx(exact[t - 1, t - 1])
