"""dpaudit.audit_dpsgd and ``dpaudit dpsgd``: verdicts from the certified bracket, the record, and bad input.

Nothing here is statistical: every verdict is decided by certified bounds."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import dpaudit
from dpaudit import ApproxDP, DPSGDConfig, PoissonBatches, PureDP, ShuffledBatches
from dpaudit.cli import main
from dpaudit.core.results import AuditResult

POISSON = DPSGDConfig(PoissonBatches(0.01), 1.0, steps=1000)  # eps(1e-5) in [1.828213, 1.828248]


def test_a_claim_above_the_bracket_is_verified_and_one_below_refuted():
    above = dpaudit.audit_dpsgd(POISSON, ApproxDP(1.83, 1e-5))
    assert above.verdict == "verified" and above.confidence == 1.0 and above.samples == 0
    below = dpaudit.audit_dpsgd(POISSON, ApproxDP(1.82, 1e-5))
    assert below.verdict == "refuted"
    assert below.delta_lower > 1e-5 and below.epsilon_lower > 1.82
    assert below.witness["order"] == "forward" and "one has an example the other lacks" in below.witness["datasets"]
    assert below.relation["name"] == "add-remove"


def test_a_claim_inside_the_bracket_is_not_refuted_and_says_so():
    res = dpaudit.audit_dpsgd(DPSGDConfig(ShuffledBatches(1, 1000), 0.8, epochs=1, relation="zero-out"),
                              ApproxDP(5.5, 1e-5))  # eps(1e-5) in [5.23, 5.68]: shuffling's bracket is not tight
    assert res.verdict == "not-refuted"
    assert any(note.startswith("undecided") for note in res.notes)
    assert not res.parameters["tight"]
    lo, hi = res.statistic.interval
    assert lo < 5.5 < hi


def test_pure_dp_is_refuted_by_any_positive_delta_lower_bound():
    res = dpaudit.audit_dpsgd(POISSON, PureDP(10.0))
    assert res.verdict == "refuted" and res.delta_lower > 0


def test_the_record_survives_json():
    res = dpaudit.audit_dpsgd(POISSON, ApproxDP(1.82, 1e-5))
    again = AuditResult.from_dict(json.loads(json.dumps(res.to_dict())))
    assert again.verdict == "refuted" and again.statistic.interval == res.statistic.interval
    assert again.parameters["dpsgd"]["sampler"]["rate"] == 0.01


def test_an_object_that_describes_its_configuration_is_audited_through_it():
    class Loop:
        def dpsgd_config(self):
            return POISSON

    assert dpaudit.audit_dpsgd(Loop(), ApproxDP(1.83, 1e-5)).verdict == "verified"


@pytest.mark.parametrize("subject,claim,error", [
    ("poisson", ApproxDP(1, 1e-5), TypeError),
    (POISSON, dpaudit.RenyiDP(2.0, 1.0), dpaudit.InvalidClaim),
    (POISSON, "approx-dp eps=1", dpaudit.InvalidClaim),
])
def test_bad_subjects_and_claims_are_refused(subject, claim, error):
    with pytest.raises(error):
        dpaudit.audit_dpsgd(subject, claim)


def test_the_command_line_prints_the_bracket_and_the_verdict(capsys):
    assert main(["dpsgd", "--sampler", "poisson", "--rate", "0.01", "--noise", "1", "--steps", "1000"]) == 0
    out = capsys.readouterr().out
    assert "certified in [1.82821, 1.82825]" in out
    code = main(["dpsgd", "--sampler", "poisson", "--rate", "0.01", "--noise", "1", "--steps", "1000",
                 "--claim", "approx-dp eps=1.8 delta=1e-5", "--json"])
    assert code == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "refuted"
    assert main(["dpsgd", "--sampler", "shuffle", "--batch", "1", "--size", "1000", "--epochs", "1", "--noise",
                 "0.8", "--relation", "zero-out", "--claim", "approx-dp eps=6 delta=1e-5"]) == 0


SHUFFLED = ["dpsgd", "--sampler", "shuffle", "--batch", "1", "--size", "1000", "--epochs", "1", "--noise", "0.8",
            "--relation", "zero-out"]


def test_the_command_line_sets_each_accountant_beside_the_bracket(capsys):
    """A shuffled run: dp-accounting's RDP has no event for shuffling, so it is asked as Poisson (said so) and its
    epsilon is refuted (exit 1); on a Poisson run the PLD is inside the bracket (exit 0)."""
    assert main([*SHUFFLED, "--accountant", "dp-accounting-rdp"]) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "dp-accounting-rdp" in x)
    assert "(as Poisson)" in line and "refuted: below the certified lower bound 5.23" in line
    assert main(["dpsgd", "--sampler", "poisson", "--rate", "0.01", "--noise", "1", "--steps", "1000",
                 "--accountant", "dp-accounting-pld"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "dp-accounting-pld" in x)
    assert "epsilon 1.82824 (given as an upper bound), inside the certified bracket" in line


def test_the_command_line_plots_with_and_without_a_claim(capsys, tmp_path, monkeypatch):
    """--plot draws the sweep; the claim's point only where a claim was given (a bracket asked for alone is not a
    claim)."""
    import dpaudit.auditors.dpsgd as auditor

    seen = []
    real = auditor.noise_sweep
    monkeypatch.setattr(auditor, "noise_sweep", lambda run, eps, *a, **k: seen.append(eps) or real(run, eps, *a, **k))
    run = ["dpsgd", "--sampler", "poisson", "--rate", "0.01", "--noise", "1", "--steps", "100", "--points", "2"]
    assert main([*run, "--plot", str(tmp_path / "a.png")]) == 0
    assert main([*run, "--claim", "approx-dp eps=3 delta=1e-5", "--plot", str(tmp_path / "b.png")]) == 0
    assert seen == [None, 3.0]
    assert all((tmp_path / f).read_bytes()[:4] == b"\x89PNG" for f in ("a.png", "b.png"))


def test_an_accountant_that_fails_is_one_line_exit_2_and_the_others_are_still_asked(capsys, monkeypatch):
    from dpaudit.adapters import accountants

    def fails(self, config, delta):
        raise OverflowError("math range error")

    monkeypatch.setattr(accountants.DPAccountingPLD, "epsilon", fails)
    assert main([*SHUFFLED, "--accountant", "dp-accounting-pld", "--accountant", "dp-accounting-rdp"]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        "dpaudit dpsgd: dp-accounting-pld-pessimistic (as Poisson) failed at delta = 1e-05: OverflowError: math "
        "range error"]
    assert "certified in [5.23" in captured.out and "dp-accounting-rdp (as Poisson): epsilon" in captured.out
    monkeypatch.setattr(accountants.DPAccountingPLD, "epsilon", lambda self, config, delta: float("nan"))
    assert main([*SHUFFLED, "--accountant", "dp-accounting-pld"]) == 2
    assert "answered epsilon = nan" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["--sampler", "poisson", "--rate", "1.5", "--noise", "1", "--steps", "3"], "rate must be in (0, 1]"),
    (["--sampler", "poisson", "--rate", "0.1", "--noise", "0", "--steps", "3"], "noise_multiplier must be > 0"),
    (["--sampler", "poisson", "--rate", "0.1", "--noise", "1"], "exactly one of steps and epochs"),
    (["--sampler", "poisson", "--rate", "0.1", "--noise", "1", "--steps", "3", "--delta", "2"], "delta must be in"),
    (["--sampler", "shuffle", "--batch", "10", "--size", "100", "--noise", "1", "--epochs", "1"], "zero-out"),
    (["--sampler", "fixed-size", "--size", "100", "--noise", "1", "--steps", "1"], "needs --batch"),
    (["--noise", "1"], "give --sampler"),
    (["--sampler", "poisson", "--rate", "0.1", "--noise", "1", "--steps", "3", "--claim", "zcdp rho=1"],
     "decides (epsilon, delta)"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main(["dpsgd", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_bad_input_from_the_shell_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "dpaudit", "dpsgd", "--sampler", "poisson", "--rate", "2",
                           "--noise", "1", "--steps", "3"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "rate must be in" in proc.stderr


def test_the_report_has_a_dpsgd_section_with_the_bracket(tmp_path):
    from dpaudit.reports.markdown import render_markdown
    from dpaudit.reports.plots import render

    res = dpaudit.audit_dpsgd(POISSON, ApproxDP(1.82, 1e-5))
    assert render(res) is not None  # the bracket plot
    record = res.to_dict() | {"claim_id": "mine/dpsgd@1", "outcome": "unexpected-refutation"}
    text = render_markdown({"run": {}, "records": [record]})
    assert "## DP-SGD (1)" in text
    row = next(line for line in text.splitlines() if line.startswith("| mine/dpsgd@1"))
    assert "epsilon at delta=1e-05 in [1.82821, 1.82825]" in row and "eps 1.82, delta 1e-05" in row


@pytest.mark.slow  # the sweep's data is checked exactly on a stub bracket in test_dpsgd_auditor_steps.py
def test_a_sweep_draws_epsilon_against_the_noise_multiplier():
    """End to end on real brackets (six certified brackets of shuffled and Poisson batches): less noise, more
    epsilon, and dp-accounting answers at every point."""
    from dpaudit.auditors.dpsgd import CertifiedAccountingAuditor
    from dpaudit.reports.plots import render

    config = DPSGDConfig(ShuffledBatches(10, 200), 1.0, epochs=1, relation="zero-out")
    finding = CertifiedAccountingAuditor().audit(config, ApproxDP(1.0, 1e-5), sweep=3)
    data = finding.plot_data
    assert data["kind"] == "dpsgd-sweep" and len(data["z"]) == 3 and data["z"][0] == pytest.approx(0.5)
    assert set(data["bands"]) == {"certified, shuffle batches", "certified, Poisson at the same rate"}
    lo, hi = data["bands"]["certified, shuffle batches"]
    assert all(a <= b for a, b in zip(lo, hi)) and lo[0] > lo[-1]  # less noise, more epsilon
    assert all(v is not None for v in data["accountants"]["dp-accounting RDP (as Poisson)"])
    assert finding.parameters["sweep"] == 3 and render(finding) is not None


@pytest.mark.slow  # the gaps are checked on a stub bracket in test_dpsgd_auditor_steps.py; here on real ones
def test_a_sweep_draws_each_accountant_given_and_leaves_a_gap_where_one_fails():
    from dpaudit.auditors.dpsgd import noise_sweep

    def halves(run, delta):  # 1 / z, failing below z = 0.8
        if run.noise_multiplier < 0.8:
            raise ArithmeticError("diverged")
        return 1.0 / run.noise_multiplier

    data = noise_sweep(POISSON, 1.83, 1e-5, 3, accountants={"mine": halves, "nan": lambda run, d: float("nan")})
    assert data["accountants"]["mine"] == [None, pytest.approx(1.0), pytest.approx(0.5)]
    assert data["accountants"]["nan"] == [None, None, None]
    assert data["claim"] == (POISSON.noise_multiplier, 1.83)


def test_a_sweep_without_a_claim_draws_no_claim():
    """dpaudit dpsgd --plot without --claim: the bracket's curves only, never a point labelled as a claim."""
    from dpaudit.auditors.dpsgd import noise_sweep
    from dpaudit.core.results import NOT_REFUTED, Finding
    from dpaudit.reports.plots import render

    data = noise_sweep(POISSON, None, 1e-5, 2, accountants={"one": lambda run, d: 1.0})
    assert data["claim"] is None
    assert render(Finding(NOT_REFUTED, "certified-accounting", plot_data=data), title="x") is not None


class _Accountant:
    """A stand-in accountant that counts the questions it is asked."""

    name = "stand-in"

    def __init__(self, answer):
        self.answer, self.asked = answer, 0

    def epsilon(self, config, delta):
        self.asked += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize("answer,verdict", [(1.7, "refuted"), (1.9, "verified")])
def test_an_accountants_claim_is_asked_when_needed_and_audited(answer, verdict):
    from dpaudit.suite import AccountantEntry
    from dpaudit.suite.entries import RunContext

    accountant = _Accountant(answer)
    entry = AccountantEntry("mine/acc@1", subject=POISSON, accountant=accountant, delta=1e-5,
                            expected="refuted" if verdict == "refuted" else "not-refuted",
                            reason="below the bracket" if verdict == "refuted" else None,
                            footing="as printed" if verdict == "refuted" else None)
    assert accountant.asked == 0  # building the entry asks nothing
    assert entry.claim == ApproxDP(answer, 1e-5) and entry.claim is entry.claim and accountant.asked == 1
    audit = entry.audit(RunContext(0, "quick", 0.01, None))
    assert audit.finding.verdict == verdict and accountant.asked == 1


@pytest.mark.parametrize("answer,message", [(ValueError("no such event"), "stand-in failed: ValueError: no such"),
                                            (float("nan"), "answered epsilon = nan"),
                                            (-1.0, "answered epsilon = -1.0")])
def test_an_accountant_that_fails_says_so_in_one_line(answer, message):
    from dpaudit.suite import AccountantEntry

    entry = AccountantEntry("mine/acc@1", subject=POISSON, accountant=_Accountant(answer), delta=1e-5)
    with pytest.raises(ValueError, match=message):
        _ = entry.claim
    with pytest.raises(ValueError, match="delta must be in"):
        AccountantEntry("mine/acc@2", subject=POISSON, accountant=_Accountant(1.0), delta=0.0)
