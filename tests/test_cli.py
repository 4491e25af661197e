"""The command line as a new user meets it: help, exit codes, and one clear message on bad input.

Seeded statistical assertions: a correct mechanism "not-refuted" (exit 0) fails with probability at
most 0.01 over seeds; `dpaudit run classic` exiting 0 fails with probability at most its
family-wise alpha 0.01; refuting scale 0.1 noise claimed as eps = 1 fails with probability below 1e-9.
"""

from __future__ import annotations

import json
import textwrap

import pytest

MECHS = textwrap.dedent(
    """
    import numpy as np

    def laplace(data, size, rng):
        return np.asarray(data, dtype=float) + rng.laplace(0.0, 1.0, size)

    def leaky(data, size, rng):
        return np.asarray(data, dtype=float) + rng.laplace(0.0, 0.1, size)

    def wrong_shape(data, size, rng):
        return np.zeros(size + 3)

    def nan(data, size, rng):
        return np.full(size, np.nan)

    own = np.random.default_rng(0)  # its own stream, not the audit's (seeded here so the verdict is fixed)

    def draws_its_own(data, size, rng):
        return np.asarray(data, dtype=float) + own.laplace(0.0, 1.0, size)

    class Laplace:
        def sample(self, data, size, rng):
            return laplace(data, size, rng)

    instance = Laplace()
    """
)


@pytest.fixture
def mechs(tmp_path):
    (tmp_path / "mechs.py").write_text(MECHS)
    return tmp_path / "mechs.py"


@pytest.mark.slow
def test_help_explains_commands(cli):
    out = cli("--help")
    assert out.returncode == 0
    for word in ("list", "run", "report", "audit", "regret", "exit codes"):
        assert word in out.stdout
    for command in ("list", "run", "report", "audit", "regret"):
        assert cli(command, "--help").returncode == 0


@pytest.mark.slow
def test_list(cli):
    out = cli("list", "classic")
    assert out.returncode == 0
    assert "classic/laplace-scale-eps" in out.stdout and "[expected refuted]" in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) <= 120  # no terminal: 120 columns
    rows = json.loads(cli("list", "classic/laplace-eps1", "--json").stdout)
    assert rows == [{"id": "classic/laplace-eps1", "title": "Laplace mechanism, eps=1 (exact)",
                     "subject": "Laplace(eps=1, sensitivity=1)", "claim": "pure-dp epsilon=1.0", "auditor": "exact",
                     "relation": "query answers differing by at most 1 in each coordinate", "expected": "not-refuted",
                     "reason": "", "footing": "", "hypothesis": "", "truth": 1.0}]


def test_list_prints_one_short_line_per_claim_and_the_rest_on_request(capsys, monkeypatch):
    from dpaudit.cli import main
    from dpaudit.cli.suites import short_lines

    monkeypatch.setenv("COLUMNS", "70")
    assert main(["list", "classic/laplace-eps1", "classic/laplace-scale-eps"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["classic/laplace-eps1       pure-dp epsilon=1.0",
                     "classic/laplace-scale-eps  pure-dp epsilon=0.1  [expected refuted]", "",
                     "2 claims (--long adds the auditor and subject, --json everything)"]
    assert main(["list", "classic/laplace-eps1", "--long"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["ID", "EXPECTED", "AUDITOR", "CLAIM", "SUBJECT"]
    assert table[1].split()[:3] == ["classic/laplace-eps1", "not-refuted", "exact"] and "Laplace(eps=1" in table[1]
    rows = [{"id": "p/a", "claim": "x" * 100, "expected": "not-refuted"},
            {"id": "p/" + "b" * 60, "claim": "y" * 10, "expected": "refuted (standard only)"}]
    assert short_lines(rows, 40) == ["p/a" + " " * 19 + "x" * 17 + "…",  # the id column: half the line
                                     "p/" + "b" * 60 + "  y…  [expected refuted (standard only)]"]
    assert short_lines(rows[:1], 40) == ["p/a  " + "x" * 34 + "…"] and len(short_lines(rows[:1], 40)[0]) == 40


@pytest.mark.slow
def test_list_prints_no_warnings(cli):
    """Listing every suite plans every entry (building its policy): the out-of-range notes of the
    papers' policies belong to their records, not to the terminal of `dpaudit list`."""
    out = cli("list")
    assert out.returncode == 0 and "shuffle-lcb/" in out.stdout
    assert out.stderr == ""


@pytest.mark.slow
def test_unknown_selector_is_exit_2(cli):
    out = cli("list", "no-such-suite")
    assert out.returncode == 2
    assert "matches no claim" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_run_quick_says_where_the_report_is(cli, tmp_path):
    out = cli("run", "classic/laplace-*", "classic/discrete-laplace-eps1*", "--out", "rep", "--workers", "2")
    assert out.returncode == 0, out.stderr
    assert "Report: rep/report.html" in out.stdout
    for name in ("results.json", "report.md", "report.html", "junit.xml"):
        assert (tmp_path / "rep" / name).is_file()
    assert "[9/9]" in out.stderr  # plain progress lines when not on a terminal


@pytest.mark.slow
def test_run_errors_and_refutations_exit_codes(cli, suites_dir):
    out = cli("run", "testing-broken", "--suite", suites_dir / "broken.py", "--workers", "1")
    assert out.returncode == 2
    assert "error: testing-broken/raises" in out.stderr
    assert "unexpected-refutation: testing-broken/overclaimed" in out.stderr
    assert cli("run", "testing-broken/overclaimed", "--suite", suites_dir / "broken.py").returncode == 1


@pytest.mark.slow
def test_run_usage_errors(cli):
    out = cli("run", "classic", "--scheduler", "local:none")
    assert out.returncode == 2 and "local:N" in out.stderr and "Traceback" not in out.stderr
    assert cli("run", "--budget", "huge").returncode == 2
    assert cli("run", "classic", "--alpha", "2").returncode == 2


@pytest.mark.slow
def test_report_rerenders(cli, tmp_path):
    assert cli("run", "classic/laplace-eps1", "--out", "rep").returncode == 0
    (tmp_path / "rep" / "report.html").unlink()
    out = cli("report", "rep")
    assert out.returncode == 0 and (tmp_path / "rep" / "report.html").is_file()
    missing = cli("report", "nowhere")
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "results.json").write_text('{"schema": "other"}')
    bad = cli("report", "bad")
    assert bad.returncode == 2 and "not a dpaudit results file" in bad.stderr


@pytest.mark.slow
def test_audit_own_mechanism(cli, mechs):
    ok = cli("audit", f"{mechs}:laplace", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--samples", "100000")
    assert ok.returncode == 0, ok.stderr
    assert "not-refuted" in ok.stdout
    bad = cli("audit", f"{mechs}:leaky", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--samples", "100000")
    assert bad.returncode == 1 and "refuted" in bad.stdout and "witness" in bad.stdout
    as_json = cli("audit", "mechs:instance", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--samples", "20000",
                  "--json", cwd=mechs.parent)
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["verdict"] == "not-refuted"


@pytest.mark.slow
def test_audit_a_mechanism_that_draws_its_own_randomness(cli, mechs):
    args = ("audit", f"{mechs}:draws_its_own", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--samples", "100000")
    refused = cli(*args)
    assert refused.returncode == 2 and "dpaudit.unseeded" in refused.stderr
    ok = cli(*args, "--unseeded")
    assert ok.returncode == 0, ok.stderr
    assert "not-refuted" in ok.stdout and "not reproducible from the run seed" in ok.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "args", "message"),
    [
        ("nosuchmodule:f", [], "cannot import"),
        ("{mechs}:nothing", [], "no attribute"),
        ("{mechs}", [], "MODULE:ATTR"),
        ("{mechs}:Laplace", [], "is a class"),
        ("missing.py:f", [], "no such file"),
        ("{mechs}:laplace", ["--claim", "pure-dp eps=-1"], "epsilon must be"),
        ("{mechs}:laplace", ["--claim", "laplace eps=1"], "unknown claim kind"),
        ("{mechs}:laplace", ["--pair", "[0, 1"], "not valid JSON"),
        ("{mechs}:laplace", ["--pair", "[0, 1, 2]"], "two inputs"),
        ("{mechs}:laplace", ["--relation", "query-distance sensitivity=1", "--pair", "[0, 5]"], "sensitivity"),
        ("{mechs}:wrong_shape", [], "shape"),
        ("{mechs}:nan", [], "non-finite"),
        ("{mechs}:laplace", ["--samples", "0"], "samples"),
        ("{mechs}:laplace", ["--confidence", "1.5"], "confidence"),
    ],
)
def test_audit_bad_input_is_exit_2_with_one_message(cli, mechs, target, args, message):
    base = {"--claim": "pure-dp eps=1", "--pair": "[0, 1]"}
    given = dict(zip(args[::2], args[1::2]))
    argv = [target.format(mechs=mechs)]
    for flag, value in {**base, **given}.items():
        argv += [flag, value]
    out = cli("audit", *argv)
    assert out.returncode == 2, out.stdout + out.stderr
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_progress_bar_on_a_terminal(tmp_path):
    """On a terminal (a pseudo-terminal 100 columns wide) the run draws a bar, not one line per claim."""
    import fcntl
    import os
    import pty
    import struct
    import sys
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # child: become the CLI
        os.chdir(tmp_path)
        os.execv(sys.executable, [sys.executable, "-m", "dpaudit", "run", "classic/laplace-eps1*", "--workers", "1"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(status) == 0
    assert "2/2" in text and "claim/s" in text and "100%" in text
    assert "[1/2]" not in text


@pytest.mark.slow
def test_audit_sequential_and_event_families(cli, mechs):
    out = cli("audit", f"{mechs}:leaky", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--samples", "2000000",
              "--sequential", "--events", "threshold", "--json")
    assert out.returncode == 1, out.stderr
    record = json.loads(out.stdout)
    assert record["parameters"]["bounds"] == "betting" and record["parameters"]["sequential"] is True
    assert record["witness"]["family"] == "threshold"
    assert record["samples"] == record["parameters"]["samples_drawn"] < 100_000  # stopped early
    assert record["parameters"]["samples_budget"] == 2_000_000
    fixed = cli("audit", f"{mechs}:leaky", "--claim", "pure-dp eps=1", "--pair", "[0, 1]", "--samples", "200000",
                "--no-sequential", "--events", "threshold", "--json")
    assert fixed.returncode == 1, fixed.stderr
    record = json.loads(fixed.stdout)
    assert record["parameters"]["sequential"] is False and record["samples"] == 200_000


POLICY = textwrap.dedent(
    """
    from dpaudit.testing import ExploreThenCommit

    etc = ExploreThenCommit(20)
    """
)


@pytest.mark.slow
def test_regret_command(cli, tmp_path):
    """A rate claim about a registry algorithm and the user's own policy, and an ordering: seeded.
    ETC(20) has linear regret after its exploration (it commits to the wrong arm with probability
    about 0.08), so T^0.2 is refuted; the ordering UCB < DP-SE at eps = 1 holds by far (10x)."""
    (tmp_path / "mypolicy.py").write_text(POLICY)
    env = "BernoulliBandit([0.6, 0.4])"
    plot = tmp_path / "rate.png"
    ok = cli("regret", "ucb", "--env", env, "--claim", "regret-rate T^1", "--horizons", "4000", "--runs", "40",
             "--plot", str(plot))
    assert ok.returncode == 0, ok.stderr
    assert "not-refuted, fitted exponent of T" in ok.stdout and plot.read_bytes()[:4] == b"\x89PNG"
    own = cli("regret", f"{tmp_path / 'mypolicy.py'}:etc", "--env", env, "--claim", "regret-rate T^0.2",
              "--horizons", "20000", "--runs", "200", "--json")
    assert own.returncode == 1, own.stderr
    assert json.loads(own.stdout)["verdict"] == "refuted"
    order = cli("regret", "--env", "BernoulliBandit([0.6, 0.5, 0.4])", "--claim", "regret-order ucb < dp-se",
                "--param", "eps=1", "--runs", "30", "--horizons", "3000")
    assert order.returncode == 0 and "1 of 1 claimed pairs confirmed" in order.stdout


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["ucb", "--env", "Bogus(1)", "--claim", "regret-rate T^0.5"], "expected an environment call"),
    (["ucb", "--env", "BernoulliBandit(x)", "--claim", "regret-rate T^0.5"], "must be literals"),
    (["ucb", "--env", "BernoulliBandit([1.5])", "--claim", "regret-rate T^0.5"], "--env"),
    (["nope", "--env", "BernoulliBandit([0.6, 0.5])", "--claim", "regret-rate T^0.5"], "unknown algorithm"),
    (["ucb", "--env", "BernoulliBandit([0.6, 0.5])", "--claim", "regret-rate T^0.5", "--param", "eps"],
     "NAME=VALUE"),
    (["--env", "BernoulliBandit([0.6, 0.5])", "--claim", "regret-rate T^0.5"], "name the POLICY"),
    (["ucb", "--env", "BernoulliBandit([0.6, 0.5])", "--claim", "regret-order ucb < dp-se"], "give no POLICY"),
    (["ucb", "--env", "BernoulliBandit([0.6, 0.5])", "--claim", "regret-bound T"], "Python-only"),
    (["ucb", "--env", "BernoulliBandit([0.6, 0.5])", "--claim", "regret-rate T^0.5", "--horizons", "0"],
     "horizon must be"),
])
def test_regret_bad_input_is_exit_2_with_one_message(cli, args, message):
    res = cli("regret", *args)
    assert res.returncode == 2, res.stderr
    assert message in res.stderr and "Traceback" not in res.stderr
