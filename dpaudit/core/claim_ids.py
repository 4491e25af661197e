"""Claim ids: ``<suite>/<name>``, matched case-insensitively.

For the five papers the name follows the paper's numbering,
``<kind><number>[-<part>]`` (``dist-mab/thm1-privacy``, ``concurrent-shuffle/lemB.2``,
``shuffle-glm/claimsecD.1``); the ``classic`` suite and users' own suites use free names
(``classic/laplace-eps0.1``). A claim audited at several parameter points gets one id per point,
the claim's id plus ``@<point>`` (``dist-mab/prop1@var100``). Selectors on the command line are
suite keys, ids (an id without a point selects all of its points), or shell-style globs over ids
(``dist-mab/thm*``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from .errors import InvalidClaimId

PAPERS: dict[str, str] = {
    "shuffle-lcb": "Chowdhury & Zhou, Shuffle Private Linear Contextual Bandits (ICML 2022)",
    "dist-mab": "Chowdhury & Zhou, Distributed Differential Privacy in Multi-Armed Bandits (ICLR 2023)",
    "shuffle-glm": "Sarmasarkar, Shuffle and Joint DP for Generalized Linear Contextual Bandits",
    "concurrent-shuffle": (
        "Tenenbaum, Kaplan, Mansour, Stemmer, Concurrent Shuffle DP Under Continual Observation (ICML 2023)"
    ),
    "private-online": (
        "Hu, Huang, Mehta, Near-Optimal Algorithms for Private Online Learning in a Stochastic Environment"
    ),
}
CLASSIC = "classic"

KINDS = ("thm", "lem", "cor", "prop", "claim", "fact", "def", "remark", "alg", "eq", "fig", "table")
PARTS = ("privacy", "regret", "accuracy", "tail", "confidence", "inequality", "lower", "communication", "ldp", "jdp",
         "sdp")

#: claims renamed since they were first recorded, old id -> new: selectors, ``dpaudit report --compare`` and older
#: results read an old id as its new one (:func:`current_id`), and a renamed claim keeps the seed of its first id
#: (:func:`seed_id`), so its verdicts and witnesses did not move with its name. Figures numbered as the paper
#: prints them (private-online's Figures 2, 4, 7 and 8 had the ids of Figures 1, 3 and 6); a statement with a
#: privacy and a tail part names the part in its id, as its neighbours do (dist-mab's Fact 2, beside Fact 3).
RENAMED: dict[str, str] = {
    "private-online/fig1@setting1,eps1": "private-online/fig2@setting1,eps1",
    "private-online/fig3@setting1,eps64": "private-online/fig4@setting1,eps64",
    "private-online/fig6@setting2,eps8": "private-online/fig7@setting2,eps8",
    "private-online/fig6@setting2,eps64": "private-online/fig8@setting2,eps64",
    "dist-mab/fact2@privacy,Delta1,eps1": "dist-mab/fact2-privacy@Delta1,eps1",
    "dist-mab/fact2@privacy,Delta20,eps0.5": "dist-mab/fact2-privacy@Delta20,eps0.5",
    **{f"dist-mab/fact2@{form},sigma{sigma}": f"dist-mab/fact2-tail@{form},sigma{sigma}"
       for form in ("mgf", "tail") for sigma in ("0.3", "1", "10")},
}
_CURRENT = {old.casefold(): new for old, new in RENAMED.items()}
_FIRST = {new.casefold(): old for old, new in RENAMED.items()}


def current_id(text: str) -> str:
    """The id a claim has now: ``text`` itself, or the new id of a renamed claim (:data:`RENAMED`)."""
    return _CURRENT.get(text.casefold(), text) if isinstance(text, str) else text


def seed_id(claim_id: str) -> str:
    """The id a claim's seed derives from: its first id, which a renamed claim keeps (:data:`RENAMED`)."""
    return _FIRST.get(claim_id.casefold(), claim_id)


_SUITE_KEY = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# number as printed, appendix letters kept: 3.2, B.2, sec5a, secD.1a, fn2, obs1
_PAPER_NAME = re.compile(
    rf"(?P<kind>{'|'.join(KINDS)})(?P<number>[A-Za-z0-9][A-Za-z0-9.]*?)(?:-(?P<part>{'|'.join(PARTS)}))?"
)
_FREE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_POINT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=,+-]*")


@dataclass(frozen=True)
class ClaimId:
    """A parsed claim id. ``kind``, ``number`` and ``part`` are set for paper claims only."""

    suite: str
    name: str
    kind: str | None = None
    number: str | None = None
    part: str | None = None
    point: str | None = None  # the parameter point, for a claim audited at several

    def __str__(self) -> str:
        return f"{self.suite}/{self.name}" + (f"@{self.point}" if self.point else "")

    @property
    def key(self) -> str:
        """The form ids are compared by (case-insensitive)."""
        return str(self).casefold()


def check_suite_key(key: str) -> str:
    """A suite key: lower-case words joined by '-' (a paper key or a free one)."""
    if not isinstance(key, str) or not _SUITE_KEY.fullmatch(key):
        raise InvalidClaimId(f"suite key {key!r} must be lower-case words joined by '-', e.g. 'my-suite'")
    return key


def parse_claim_id(text: str) -> ClaimId:
    """Parse and validate a claim id, raising :class:`InvalidClaimId` with the reason."""
    if not isinstance(text, str):
        raise InvalidClaimId(f"claim id must be a string, got {type(text).__name__}")
    suite, slash, name = text.partition("/")
    if not slash or not name:
        raise InvalidClaimId(f"claim id {text!r} must look like '<suite>/<name>', e.g. 'dist-mab/thm1-privacy'")
    name, at, point = name.partition("@")
    if at and not _POINT.fullmatch(point):
        raise InvalidClaimId(
            f"claim id {text!r}: the parameter point after '@' may hold letters, digits, '.', '_', '=', ',', "
            "'+' and '-', and must start with a letter or digit (e.g. 'dist-mab/prop1@var100')"
        )
    if not _SUITE_KEY.fullmatch(suite):
        raise InvalidClaimId(f"claim id {text!r}: suite key {suite!r} must be lower-case words joined by '-'")
    if suite in PAPERS:
        m = _PAPER_NAME.fullmatch(name)
        if not m or m["number"].endswith("."):
            raise InvalidClaimId(
                f"claim id {text!r}: a paper claim is '<kind><number>[-<part>]' with kind one of "
                f"{', '.join(KINDS)} and part one of {', '.join(PARTS)} (e.g. '{suite}/thm3.2-privacy')"
            )
        return ClaimId(suite, name, m["kind"], m["number"], m["part"], point or None)
    if not _FREE_NAME.fullmatch(name):
        raise InvalidClaimId(
            f"claim id {text!r}: name {name!r} may hold letters, digits, '.', '_', '+' and '-', "
            "and must start with a letter or digit"
        )
    return ClaimId(suite, name, point=point or None)


def is_glob(selector: str) -> bool:
    return any(ch in selector for ch in "*?[")


def selector_matches(selector: str, claim_id: str) -> bool:
    """Whether ``selector`` (a suite key, a claim id or a glob over ids) selects ``claim_id``."""
    sel = selector.casefold()
    cid = claim_id.casefold()
    if is_glob(sel):
        return fnmatch.fnmatchcase(cid, sel)
    if "/" in sel:
        return sel == cid or ("@" not in sel and cid.partition("@")[0] == sel)
    return cid.partition("/")[0] == sel
