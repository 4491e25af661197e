"""The benchmark scripts still run: each one's audit step on one small case, so that a renamed attribute breaks
a test here rather than the script the next time someone measures (benchmarks/privacy_auditors.py read
``entry.mechanism`` for a long time after suite entries named it ``subject``). Timings are never asserted."""

from __future__ import annotations

from benchmark_loader import load_script as _script


def _exits_2(bench, argv, capsys) -> str:
    """What a benchmark prints to stderr as it exits with status 2 on ``argv``."""
    import pytest

    with pytest.raises(SystemExit) as stop:
        bench.main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


def test_the_black_box_table_audits_a_classic_entry_and_reads_its_truth():
    bench = _script("privacy_auditors")
    entries = {e.id: e for e in bench.blackbox_entries()}
    assert "classic/laplace-eps1-blackbox" in entries and "classic/laplace-eps1" not in entries
    entry = entries["classic/staircase-sensitivity2-blackbox"]
    result, seconds = bench.audit(entry, samples=20_000, confidence=0.99)
    assert result.auditor == "black-box" and seconds > 0
    assert 1.0 < result.statistic.interval[0] <= bench.truth_of(entry, result) == 2.0  # refuted below the truth


def test_the_gaussian_rewards_benchmark_times_both_environments(capsys):
    bench = _script("gaussian_rewards")
    bench.main(["--horizon", "3000", "--runs", "2", "--repeats", "1", "--reward-by-reward"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("T = 3e+03, 2 runs, K = 10") and len(out) == 2 + len(bench.ALGORITHMS_TIMED)
    assert out[2].split()[0] == "se" and bench.bandits.EXACT_PULLS == 1 << 14  # the baseline's setting undone


def test_the_authors_code_benchmark_says_how_to_get_a_checkout(tmp_path, capsys):
    bench = _script("authors_code")
    for argv in ([], ["--checkout", str(tmp_path / "missing")], ["--checkout", str(tmp_path), "--family", "mab"],
                 ["--family", "glm"], ["--glm-checkout", str(tmp_path), "--family", "glm"]):
        err = _exits_2(bench, argv, capsys)
        assert "git clone https://github.com/sayakrc/Differentially-Private-Bandits" in err
        assert "checkout ab8fd160" in err
    # the instances are the scripts': run r's means from np.random.seed(r), the linear ones from seed 2
    means = bench.AuthorsMeans(3, 0.5)
    assert means.values.shape == (3, 10) and (0.25 <= means.values).all() and (means.values <= 0.75).all()
    features, thetas = bench.linear_instances(2, 5)
    assert features.shape == (2, 100, 5) and (features[:, :5, -1] == 1).all() and thetas[:, -1].tolist() == [0.5, 0.5]
    # the warm-up before a timing runs on as many runs as the timing: these instances are one per run
    from dpaudit.algorithms import ALGORITHMS
    from dpaudit.algorithms.environments import GivenLinearBandit
    bench.warmed_up(ALGORITHMS["linucb"](), GivenLinearBandit(features, thetas, "two instances"), 2)


def test_the_peer_benchmark_says_how_to_get_statdp_and_dpsniper(tmp_path, capsys):
    bench = _script("peers")
    for argv in ([], ["--statdp", str(tmp_path)], ["--dpsniper", str(tmp_path)]):
        err = _exits_2(bench, argv, capsys)
        assert "git clone https://github.com/cmla-psu/statdp" in err
        assert "git clone https://github.com/eth-sri/dp-sniper" in err
    # a checkout that the interpreter cannot run (no torch, or no DP-Sniper at all) is refused before any run
    (tmp_path / "dpsniper").mkdir()
    (tmp_path / "dpsniper" / "__init__.py").write_text("raise ImportError('torch is missing')\n")
    assert "does not import" in _exits_2(bench, ["--dpsniper", str(tmp_path)], capsys)


def test_the_dpsniper_driver_gives_every_pair_in_both_orders_and_sizes_it_accepts():
    driver = _script("peers_dpsniper")
    pairs = driver.GivenPairs([([1, 1], [2, 1]), ([0, 1], [1, 1])])
    assert [(a.tolist(), b.tolist()) for a, b in pairs.get_input_pairs()] == [
        ([1.0, 1.0], [2.0, 1.0]), ([2.0, 1.0], [1.0, 1.0]), ([0.0, 1.0], [1.0, 1.0]), ([1.0, 1.0], [0.0, 1.0])]
    # DP-Sniper refuses sizes of 10^4 or more that are not multiples of 1000
    assert [driver.round_samples(n) for n in (9999, 10_000, 1_234_567)] == [9999, 10_000, 1_234_000]


def test_the_event_search_benchmark_prints_every_seed_their_mean_and_both_ceilings(capsys):
    bench = _script("event_search_discrete")
    bench.main(["--samples", "20000", "--seeds", "2"])
    out = capsys.readouterr().out
    assert out.count("  seed ") == 4 and out.count("dpaudit: mean") == 2
    assert out.count("by the thinned Fisher test") == 2 and "not compared" in out


def test_the_chua_benchmark_says_how_to_get_their_accountants(tmp_path, capsys, monkeypatch):
    import sys

    bench = _script("chua_accountants")
    for argv in ([], ["--checkout", str(tmp_path)], ["--checkout", str(tmp_path / "missing")]):
        err = _exits_2(bench, argv, capsys)
        assert "https://github.com/google-research/google-research" in err
        assert "sparse-checkout set dpsgd_batch_sampler_accounting" in err
    # a checkout whose code does not import (a dependency missing) is refused before any run
    monkeypatch.setattr(sys, "path", list(sys.path))
    package = tmp_path / "dpsgd_batch_sampler_accounting"
    package.mkdir()
    (package / "dpsgd_bounds.py").write_text("raise ImportError('absl is missing')\n")
    try:
        assert "does not import" in _exits_2(bench, ["--checkout", str(package)], capsys)
    finally:
        for name in [m for m in sys.modules if m.startswith("dpsgd_batch_sampler_accounting")]:
            del sys.modules[name]


def test_the_chua_benchmark_sets_each_accountant_beside_its_configuration_and_reads_each_bound_its_way():
    from dpaudit.core.dpsgd import BallsAndBins, PoissonBatches, ShuffledBatches

    bench = _script("chua_accountants")
    shuffle = bench.config("shuffle", 0.8, 5, reshuffle=False)
    assert shuffle.sampler == ShuffledBatches(1, 1000, reshuffle=False) and shuffle.relation == "zero-out"
    assert shuffle.epochs == 5 and bench.config("bnb", 1.0, 1).sampler == BallsAndBins(1000)
    poisson = bench.config("poisson-lower", 1.0, 5)
    assert poisson.sampler == PoissonBatches(1e-3) and poisson.steps == 5000 and poisson.relation == "add-remove"
    assert bench.config("deterministic", 1.0, 5).sampler == PoissonBatches(1.0)
    # (difference, in the certified bracket, within 1e-3, a same-pair lower bound reached by dpaudit's)
    assert bench.compare("upper", 2.0005, 1.99, 2.0)[1:] == (True, True, None)
    assert not bench.compare("upper", 1.98, 1.99, 2.0)[1]  # an upper bound below the certified lower end
    assert not bench.compare("lower", 2.01, 1.99, 2.0)[1]
    assert bench.compare("exact", 2.0, 2.0, 2.0)[1:] == (True, True, None)
    # their get_epsilons bisects to within 1e-7: allowed on the bracket's ends, never more
    assert bench.compare("exact", 2.0 + 5e-8, 2.0, 2.0, slack=1e-7)[1]
    assert not bench.compare("exact", 2.0 + 5e-8, 2.0, 2.0)[1]
    # balls-and-bins at sigma = 0.35, eps = 10: their single threshold test is above dpaudit's certified lower bound
    # for the same pair, yet inside the bracket
    assert bench.compare("same pair", 10.0, 9.947, 16.9)[1:] == (True, False, False)


def test_the_bracket_speed_benchmark_times_dpaudit_and_dp_accounting(capsys):
    bench = _script("dpsgd_bracket_speed")
    bench.main(["--quick"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 0.01 | 2 |")]
    assert len(rows) == 2 and all(row.endswith("| yes |") for row in rows)  # dp_accounting inside both brackets
    runs = [bench.Measured(1e-3, 1.0, 1.0, 0.0, 0.5), bench.Measured(1e-4, 10.0, 10.0, 0.0, 0.05)]
    assert abs(bench.extrapolated_seconds(runs, 5e-3) - 100.0) < 1e-9  # width linear, time a power of the interval


def test_the_accountant_benchmarks_say_how_to_get_opacus_and_run_a_case(tmp_path, capsys):
    for name in ("accountant_grid", "accountant_cases"):
        err = _exits_2(_script(name), ["--opacus-python", str(tmp_path / "no-python")], capsys)
        assert "pip install torch==2.13.0 opacus" in err
    outcomes = _script("accountant_cases").main(["--only", "autodp-2,opacus-346"])
    assert [o.case for o in outcomes] == ["yuxiangw/autodp#2", "yuxiangw/autodp#2", "opacus-346"]
    assert all("not refuted" in o.verdict for o in outcomes[:2]) and "skipped" in outcomes[2].verdict


def test_the_black_box_timing_imports_a_baseline_from_its_checkout_alone(tmp_path):
    """A baseline's interpreter must take every dpaudit package from the baseline, as the script runs it (the
    checkout first on PYTHONPATH): a copy of this checkout's packages is imported from the copy alone, though an
    editable install's hook (CI installs so) maps the suites to this checkout; a folder without dpaudit is
    refused, dpaudit then coming from elsewhere."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    copy = tmp_path / "copy"
    for package in ("dpaudit", "mechanisms", "algorithms", "audits"):
        shutil.copytree(root / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(root / "pyproject.toml", copy)  # a checkout's root (dpaudit._checkout)
    code = ("import sys; from pathlib import Path; sys.path.insert(1, sys.argv[2]); "
            "from benchmark_loader import load_script; "
            "load_script('blackbox_time').import_only_from(Path(sys.argv[1])); print('ok')")
    for checkout, ok in ((copy, True), (tmp_path / "empty", False)):
        checkout.mkdir(exist_ok=True)
        run = subprocess.run([sys.executable, "-c", code, str(checkout), str(root / "tests")], cwd=checkout,
                             capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(checkout)})
        assert (run.returncode == 0 and run.stdout.strip() == "ok") if ok else "is not in the checkout" in run.stderr
