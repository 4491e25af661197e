"""The budgets a suite runs at (quick, standard, thorough, paper), what a budget an entry gives no value
for falls back to, and the defaults of samples and timeouts per budget."""

from __future__ import annotations

from typing import Any

#: ``paper`` runs the regret entries at the papers' horizons and run counts (and the others as ``standard``)
BUDGETS = ("quick", "standard", "thorough", "paper")
#: a budget an entry gives no value for takes the value of this one (``thorough`` and ``paper`` grow
#: ``standard``'s numbers only where an entry says how)
BUDGET_FALLBACK = {"standard": "quick", "thorough": "standard", "paper": "standard"}
# Samples per side of a pair for statistical privacy audits.
DEFAULT_SAMPLES = {"quick": 200_000, "standard": 2_000_000, "thorough": 20_000_000}
# Seconds an entry may run before it becomes an error record.
DEFAULT_TIMEOUTS = {"quick": 600.0, "standard": 3600.0, "thorough": 6 * 3600.0, "paper": 6 * 3600.0}


def at_budget(table: dict[str, Any], budget: str) -> Any:
    """``table[budget]``, or the value of the budget it falls back to (:data:`BUDGET_FALLBACK`)."""
    key: str | None = budget
    while key is not None and key not in table:
        key = BUDGET_FALLBACK.get(key)
    if key is None:
        raise KeyError(f"no value for budget {budget!r} (nor any it falls back to) in {sorted(table)}")
    return table[key]


__all__ = ["BUDGETS", "BUDGET_FALLBACK", "DEFAULT_SAMPLES", "DEFAULT_TIMEOUTS", "at_budget"]
