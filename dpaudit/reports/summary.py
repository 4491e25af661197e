"""What every report shows: counts by paper and the fields of a claim section."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ..core.claim_ids import PAPERS
from ..core.results import HYPOTHESIS_NOT_MET, NOT_REFUTED, Statistic, describe_power, number_from_json, warning_totals
from .frames import UNEXPECTED_OUTCOMES, summary_frame
from .frames import outcome_counts as frame_outcome_counts

if TYPE_CHECKING:
    import pandas as pd

#: what a reader sees first: the outcome (did the claim come out as the suite expects?), not the verdict; each
#: outcome's one name (results.json's, the frames' and the command line's, in words)
OUTCOME_LABELS = {"pass": "pass", "expected-refutation": "expected refutation",
                  "unexpected-refutation": "unexpected refutation", "not-reproduced": "not reproduced",
                  "error": "error"}
#: suites of controls: mechanisms with known true privacy, some broken on purpose, whose expected refutations keep
#: the auditors honest; the report lists them apart from (after) the papers' findings
CONTROL_SUITES = ("classic",)
#: a witness in a report shows at most this many items of a list (results.json keeps all of them)
WITNESS_ITEMS = 6
WITNESS_CHARS = 240
#: a claim card's summary line shows at most this many characters of the statistic
STATISTIC_SHORT_CHARS = 90


def by_paper(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[suite_of(r)].append(r)
    return dict(sorted(groups.items()))


def _frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """The columns of the records' :func:`~dpaudit.reports.frames.results_frame` that the tables count (suite,
    verdict, outcome), read straight off the records: a report renders records with fields missing too."""
    import pandas as pd

    return pd.DataFrame({"suite": [suite_of(r) for r in records], "verdict": [r.get("verdict") for r in records],
                         "outcome": [r.get("outcome") for r in records]}, dtype=object)


def suite_of(record: dict[str, Any]) -> str:
    """The record's suite as :func:`~dpaudit.reports.frames.results_frame` reads it ("" for an API record)."""
    return record.get("paper") or str(record.get("claim_id") or "").partition("/")[0]


def summary_rows(records: list[dict[str, Any]]) -> list[tuple[str, dict[str, int]]]:
    """The "claims by paper" table as (paper, {column: count}) rows: :func:`~dpaudit.reports.frames.summary_frame`
    of the records."""
    table = summary_frame(_frame(records))
    return [(str(suite), {column: int(value) for column, value in row.items()}) for suite, row in table.iterrows()]


def outcome_counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many records came out with each outcome (:func:`~dpaudit.reports.frames.outcome_counts`)."""
    return frame_outcome_counts(_frame(records))


def paper_title(key: str, run: dict[str, Any] | None = None) -> str:
    """A paper's title; for a suite of the user's own, the title its ``Suite(key, title)`` gave it (the
    run records the selected suites' titles)."""
    return PAPERS.get(key) or str(((run or {}).get("suites") or {}).get(key) or "")


def fmt_number(value: Any) -> str:
    x = number_from_json(value) if value is not None else None
    if x is None:
        return "—"
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "∞" if x > 0 else "-∞"
    return f"{x:.6g}"


def statistic_text(record: dict[str, Any]) -> str:
    """The certified statistic in one line; for a record without one, why: its error's type and message
    (an audit that could not run), else "—"."""
    stat = record.get("statistic")
    if stat:
        text = Statistic.from_dict(stat).describe()
        if record.get("power") and record.get("verdict") == NOT_REFUTED:
            text += f"; {describe_power(record['power'])}"
        return text
    return error_text(record) or "—"


def statistic_short(record: dict[str, Any], limit: int = STATISTIC_SHORT_CHARS) -> str:
    """:func:`statistic_text` cut to ``limit`` characters, for a line that names the claim too (an error's
    message can run long; the claim's fields hold it whole)."""
    text = statistic_text(record)
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def error_text(record: dict[str, Any]) -> str:
    """A record's error as one line, "Type: message" ("" if it has none)."""
    error = record.get("error") or {}
    if not error:
        return ""
    message = " ".join(str(error.get("message") or "").split())
    return f"{error.get('type') or 'error'}: {message}" if message else str(error.get("type") or "error")


def footed_reason(record: dict[str, Any]) -> str:
    """The reason an expected refutation is accepted, led by its footing: "[proof step] the step ..."."""
    expected = record.get("expected") or {}
    footing, reason = expected.get("footing"), expected.get("reason") or ""
    return f"[{footing}] {reason}".strip() if footing else reason


def other_readings(record: dict[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records a finding's reason names by claim id: the entries encoding another reading of the same
    text (the reconstruction of damaged text), whose verdicts a reader weighs the finding against."""
    reason = (record.get("expected") or {}).get("reason") or ""
    # a whole id only: "x@n1" must not match inside "x@n16"
    return [r for r in records if r.get("claim_id") and r["claim_id"] != record.get("claim_id")
            and re.search(re.escape(r["claim_id"]) + r"(?![\w.,@-])", reason)]


def samples_text(record: dict[str, Any]) -> str:
    """The outputs drawn per side; a sequential audit's beside its budget and when it stopped."""
    drawn = str(record.get("samples", 0))
    parameters = record.get("parameters") or {}
    budget = parameters.get("samples_budget")
    if budget is None:
        return drawn
    stopped = {"selection": "refuted by its bets during selection", "confirmation": "refuted by its bets during "
               "confirmation", "budget": "the whole budget"}.get(parameters.get("stopped"), "")
    return f"{drawn} of {budget} (sequential: {stopped})" if stopped else f"{drawn} of {budget}"


def claim_fields(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text) rows of a claim section, in display order."""
    claim = record.get("claim") or {}
    claim_text = " ".join(f"{k}={v}" for k, v in claim.items() if k != "kind")
    expected = record.get("expected") or {}
    seed = record.get("seed")
    rows = [
        ("verdict", f"{record['verdict']} ({record.get('outcome')})"),
        ("claim", f"{claim.get('kind', '')} {claim_text}".strip() or "—"),
        ("subject", record.get("subject") or "—"),
        ("relation", (record.get("relation") or {}).get("description", "—")),
        ("auditor", record.get("auditor") or "—"),
        ("statistic", statistic_text(record)),
        ("confidence", fmt_number(record.get("confidence"))),
        ("alpha allotted", fmt_number(record.get("alpha"))),
        ("samples per side", samples_text(record)),
        ("seed", json.dumps(seed) if seed is not None else "—"),
        ("budget", record.get("budget") or "—"),
        ("seconds", f"{record.get('seconds', 0):.2f}"),
        ("expected", expected.get("verdict", "") + (f" — {footed_reason(record)}" if footed_reason(record) else "")),
    ]
    return rows


def warnings_line(records: list[dict[str, Any]]) -> str:
    """The header's line on the warnings the claims raised ('' when none raised any)."""
    total, distinct, claims = warning_totals(records)
    if not claims:
        return ""
    return (f"Warnings: {total} ({distinct} distinct) raised by {claims} claim{'s' if claims > 1 else ''}, listed "
            "in their sections.")


def reused_text(record: dict[str, Any]) -> str:
    """'reused from <date>' for a record a run carried over from an earlier run in its folder, else ''."""
    if not record.get("reused"):
        return ""
    return f"reused from {record.get('finished') or 'an earlier run'} (content key unchanged)"


def reused_line(records: list[dict[str, Any]]) -> str:
    """The header's line on reused records ('' when the run reused none)."""
    reused = sum(bool(r.get("reused")) for r in records)
    if not reused:
        return ""
    return (f"{reused} of {len(records)} claims reused from earlier runs in this folder (content keys unchanged; "
            "dpaudit run --fresh audits them again)")


def outcome_label(record: dict[str, Any]) -> str:
    """A record's outcome in words; an expected refutation on an instance outside the statement's hypotheses is
    labelled as such ("hypothesis not met"), never as a refutation of the statement."""
    if outside_hypotheses_record(record):
        return HYPOTHESIS_LABEL
    return OUTCOME_LABELS.get(str(record.get("outcome")), str(record.get("outcome")))


#: how the reports label a refutation on an instance outside its statement's hypotheses (footing HYPOTHESIS_NOT_MET)
HYPOTHESIS_LABEL = "hypothesis not met"
#: what the report says of those refutations
HYPOTHESIS_INTRO = ("Refuted on instances the statements do not cover (their hypotheses are not met): each says what "
                    "the statement assumes and what in the instance breaks it. They show where a paper's own use (its "
                    "experiments, its released code) leaves its analysis; they are not refutations of the statements.")


#: what the report's picture and outcomes line tell apart: the outcomes, with the expected refutations outside their
#: statements' hypotheses shown on their own
SHOWN_OUTCOMES = ("pass", "expected-refutation", "hypothesis-not-met", "unexpected-refutation", "not-reproduced",
                  "error")
SHOWN_LABELS = {**OUTCOME_LABELS, "hypothesis-not-met": HYPOTHESIS_LABEL}


def shown_outcome(record: dict[str, Any]) -> str:
    """The record's outcome as the picture and the outcomes line show it (:data:`SHOWN_OUTCOMES`)."""
    return "hypothesis-not-met" if outside_hypotheses_record(record) else str(record.get("outcome"))


def outcomes_line(records: list[dict[str, Any]]) -> str:
    """"pass 423, expected refutation 83, hypothesis not met 8, ...": every outcome's count (zeros included, so the
    absence of failures is said), the refutations outside their statements' hypotheses apart when there are any."""
    counts = outcome_counts(records)
    outside = sum(outside_hypotheses_record(r) for r in records)
    parts = []
    for outcome, n in counts.items():
        if outcome == "expected-refutation" and outside:
            parts += [f"{OUTCOME_LABELS[outcome]} {n - outside}", f"{HYPOTHESIS_LABEL} {outside}"]
        else:
            parts.append(f"{OUTCOME_LABELS.get(outcome, outcome)} {n}")
    return ", ".join(parts)


def outside_hypotheses_record(record: dict[str, Any]) -> bool:
    return (record.get("outcome") == "expected-refutation"
            and (record.get("expected") or {}).get("footing") == HYPOTHESIS_NOT_MET)


def findings(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The papers' findings: claims refuted as their suites expect, outside the control suites, by paper; refutations
    outside a statement's hypotheses are not findings about it (:func:`outside_hypotheses`)."""
    return by_paper([r for r in records if r.get("outcome") == "expected-refutation"
                     and suite_of(r) not in CONTROL_SUITES and not outside_hypotheses_record(r)])


def outside_hypotheses(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The expected refutations on instances outside their statements' hypotheses, by paper."""
    return by_paper([r for r in records if outside_hypotheses_record(r)])


def hypothesis_text(record: dict[str, Any]) -> str:
    """What the statement assumes and what in the instance breaks it ("" for any other record)."""
    return str((record.get("expected") or {}).get("hypothesis") or "") if outside_hypotheses_record(record) else ""


def controls(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The control suites' expected refutations: mechanisms broken on purpose, refuted as designed."""
    return [r for r in records if r.get("outcome") == "expected-refutation" and suite_of(r) in CONTROL_SUITES]


#: what the report says of the controls it lists
CONTROLS_INTRO = ("Mechanisms with known true privacy, broken on purpose, each refuted as designed: controls that show "
                  "the auditors refute what they should. They are not findings about any paper.")


def findings_sentence(records: list[dict[str, Any]]) -> str:
    """What the findings section says of the run, from its counts: how many papers' claims were refuted as expected,
    and, whatever that count, the unexpected refutations, refutations not reproduced and errors that the section
    above it lists, so that an empty findings section never reads as "nothing was refuted"."""
    found = sum(len(group) for group in findings(records).values())
    counts = outcome_counts(records)
    outside = sum(len(group) for group in outside_hypotheses(records).values())
    if found:
        text = (f"{counted(found, 'claim')} of the papers refuted as their suites expect, each with its footing (as "
                "printed, as reconstructed from damaged text, proof step, typo evident) and the reason the refutation "
                "is accepted.")
    else:
        text = "No claim of a paper was refuted as its suite expects."
    if outside:
        text += (f" {outside} more refuted on instances outside their statements' hypotheses, listed apart below: "
                 "not refutations of the statements.")
    surprises = [f"{counts[o]} {OUTCOME_LABELS[o]}" if o == "not-reproduced" else counted(counts[o], OUTCOME_LABELS[o])
                 for o in ("unexpected-refutation", "not-reproduced", "error") if counts.get(o)]
    if surprises:
        text += f" Needs attention, above: {', '.join(surprises)}."
    elif not found and not counts.get("expected-refutation"):
        text += " No claim was refuted."
    return text


def counted(n: int, noun: str) -> str:
    """``1 claim``, ``0 claims``, ``3 claims``: a count and its noun, plural but for one."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def left_out(run: dict[str, Any]) -> list[dict[str, str]]:
    """The selected claims the run did not audit, each ``{"claim_id", "reason"}`` (older results files
    have none)."""
    return [dict(item) for item in run.get("left_out") or []]


def needing_attention(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Unexpected refutations, refutations not reproduced and errors."""
    return [r for r in records if r.get("outcome") in (*UNEXPECTED_OUTCOMES, "error")]


#: the auditor whose records the report's DP-SGD section lists
DPSGD_AUDITOR = "certified-accounting"
#: the DP-SGD section's columns
DPSGD_COLUMNS = ("claim", "configuration", "claimed", "certified", "outcome")


def dpsgd_rows(records: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One row per DP-SGD record (decided by certified accounting): the claim id, the configuration, the claimed
    (eps, delta), the certified bracket of eps(delta) (or delta(eps) for pure DP), and the outcome."""
    rows = []
    for r in records:
        if r.get("auditor") != DPSGD_AUDITOR:
            continue
        claim = r.get("claim") or {}
        claimed = f"eps {fmt_number(claim.get('epsilon'))}" + (
            f", delta {fmt_number(claim.get('delta'))}" if claim.get("delta") is not None else "")
        stat = r.get("statistic")
        if isinstance(stat, dict):
            stat = Statistic.from_dict(stat)
        certified = "-"
        if stat is not None and stat.interval is not None:
            lo, hi = stat.interval
            certified = f"{stat.name} in [{fmt_number(lo)}, {fmt_number(hi)}]"
            if not (r.get("parameters") or {}).get("tight", True):
                certified += " (not tight)"
        rows.append({"claim": str(r.get("claim_id") or ""), "configuration": str(r.get("subject") or ""),
                     "claimed": claimed, "certified": certified, "outcome": outcome_label(r),
                     "plots": list(r.get("plots") or []) if (r.get("parameters") or {}).get("sweep") else []})
    return rows


DPSGD_INTRO = ("DP-SGD claims decided by certified accounting: every noisy step taken as released; the bracket is "
               "a rigorous lower bound from neighbouring datasets the sampler realises and an upper bound from a "
               "dominating pair where one is known (docs/dpsgd.md).")


#: the auditor whose records the report's canary section lists
CANARY_AUDITOR = "canary-scores"
#: the canary section's columns
CANARY_COLUMNS = ("claim", "loop", "design", "claimed", "bound", "ceiling", "white-box", "power", "outcome")
CANARY_INTRO = ("Claims about training loops audited from their canaries' scores: the bound on epsilon is valid at the "
                "claim's share of alpha; the ceiling is the most these runs or canaries could certify at that alpha "
                "(a claim at or above it could not have been refuted whatever the attack); the white-box bracket is "
                "the loop's own DP-SGD run's certified epsilon; the power, with a 'not refuted', the epsilon a "
                "violation would need to be refuted with probability 0.9 (docs/dpsgd.md).")


def canary_rows(records: list[dict[str, Any]]) -> list[dict[str, str]]:
    """One row per canary audit: the claim id, the loop, many runs or one, the claimed (eps, delta), the bound, the
    ceiling, the loop's white-box bracket where it has one, the power of a "not refuted", and the outcome."""
    rows = []
    for r in records:
        if r.get("auditor") != CANARY_AUDITOR:
            continue
        claim, parameters = r.get("claim") or {}, r.get("parameters") or {}
        claimed = f"eps {fmt_number(claim.get('epsilon'))}" + (
            f", delta {fmt_number(claim.get('delta'))}" if claim.get("delta") is not None else "")
        runs = (r.get("witness") or {}).get("runs")
        design = "one run" if parameters.get("runs") == "one" else "many runs"
        if parameters.get("runs") == "one":
            design += f", {(r.get('witness') or {}).get('canaries', '?')} canaries"
        elif parameters.get("sequential"):
            design = f"sequential, {parameters.get('runs_used')} of {parameters.get('budget')} runs per side"
        elif isinstance(runs, dict):
            design += " (" + " + ".join(str(v) for v in runs.values()) + " confirming)"
        box = parameters.get("white_box")
        stated = r.get("power") or {}
        rows.append({"claim": str(r.get("claim_id") or ""), "loop": str(r.get("subject") or ""), "design": design,
                     "claimed": claimed, "bound": fmt_number(r.get("epsilon_lower")),
                     "ceiling": fmt_number(parameters.get("ceiling")),
                     "white-box": f"[{fmt_number(box[0])}, {fmt_number(box[1])}]" if box else "-",
                     "power": f"eps {fmt_number(stated.get('value'))}" if stated else "-",
                     "outcome": outcome_label(r)})
    return rows


def claim_statement(record: dict[str, Any]) -> str:
    """The claim in one line: its title if the entry has one, else its kind and parameters."""
    if record.get("title"):
        return str(record["title"])
    claim = record.get("claim") or {}
    return (claim.get("kind", "") + " " + " ".join(f"{k}={v}" for k, v in claim.items() if k != "kind")).strip()


def _elided(value: Any) -> tuple[Any, bool]:
    """``value`` with long lists cut to their first :data:`WITNESS_ITEMS` items and long strings to
    :data:`WITNESS_CHARS` characters, and whether anything was cut."""
    if isinstance(value, dict):
        out, cut = {}, False
        for k, v in value.items():
            out[k], c = _elided(v)
            cut |= c
        return out, cut
    if isinstance(value, list):
        items = [_elided(v) for v in value[:WITNESS_ITEMS]]
        more = len(value) - WITNESS_ITEMS
        shown = [v for v, _ in items] + ([f"... {more} more"] if more > 0 else [])
        return shown, more > 0 or any(c for _, c in items)
    if isinstance(value, str) and len(value) > WITNESS_CHARS:
        return value[:WITNESS_CHARS] + f"... ({len(value) - WITNESS_CHARS} more characters)", True
    return value, False


def witness_text(record: dict[str, Any], full: bool = False) -> str:
    """The witness as JSON; long lists and strings elided unless ``full`` (results.json has it whole)."""
    witness = record.get("witness")
    if not witness:
        return ""
    shown, cut = (witness, False) if full else _elided(witness)
    text = json.dumps(shown, indent=1, ensure_ascii=False)
    return text + ("\n(elided; the whole witness is in results.json)" if cut else "")
