"""private-online's experiments (Section 6 and Appendix I; the spec's Section 5) as presets.

Bandit setting only (the paper has no experiments of its full-information algorithms): K = 5 Bernoulli
arms with the means of settings 1-3, T = 2^22, 15 runs, Anytime-Lazy-UCB (Algorithm 1), Hybrid-UCB
(Algorithm 4) and DP-SE (Sajed & Sheffet) with beta = 1/T, cumulative pseudo-regret against t. One
preset per figure: ``fig1`` .. ``fig4``, ``fig6`` .. ``fig8``, ``fig9a`` .. ``fig9c``, ``fig11a`` ..
``fig11d``, ``fig12b`` .. ``fig12h`` at one eps each; ``fig5``, ``fig10``, ``fig12a`` plot the final
regret against every eps in {0.1, 0.25, 0.5, 1, 8, 64, 128} (their configurations are the same
simulations as the per-eps figures of their setting, run once when run together).
"""

from __future__ import annotations

from dpaudit.algorithms.environments import BernoulliBandit
from dpaudit.bandits.experiments import Configuration, Curve, PerHorizon, Preset

PAPER = "private-online"
HORIZON = 2**22
RUNS = 15
EPSILONS = (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0)
SETTINGS = {
    1: (0.75, 0.70, 0.70, 0.70, 0.70),  # Sec. 6, from Sajed & Sheffet
    2: (0.75, 0.625, 0.5, 0.375, 0.25),  # Sec. 6, from Sajed & Sheffet
    3: (0.75, 0.15, 0.15, 0.15, 0.15),  # App. I.3
}
SOURCE = "private-online Sec. 6, line 318, as the spec's Section 5 reports it"
SMALL_EPS = "Figs 1-2: Anytime-Lazy-UCB ~ DP-SE; Hybrid-UCB is worse."
LARGE_EPS = ("Figs 3-4: Hybrid-UCB performs well; larger eps is better. The stated reason is that with large eps "
             "Hybrid-UCB is essentially UCB1, since it uses all data and updates every round.")
FINAL = "Fig 5: the UCB methods' final regret decreases with eps; DP-SE is roughly flat in eps (as in S&S)."
SETTING2 = ("Figs 6-8: setting 2 matches setting 1 qualitatively (Anytime-Lazy-UCB competitive with DP-SE; "
            "Hybrid-UCB good at large eps).")
# the orderings of the final regrets the text states (groups of curve labels, lowest regret first); Figs 3-4's
# "Hybrid-UCB starts performing well" read as the opposite of Figs 1-2's "does not perform well"
SMALL_EPS_ORDERING = (("Anytime-Lazy-UCB", "DP-SE"), ("Hybrid-UCB",))
LARGE_EPS_ORDERING = (("Hybrid-UCB",), ("Anytime-Lazy-UCB", "DP-SE"))
NOTES = (
    "Reward distribution not stated: Bernoulli(mu_j).",
    "Plotted quantity not stated: the cumulative pseudo-regret (sum of the gaps of the arms played); the paper "
    "shows no error bands, the plots add +-1 standard error.",
    "Seeds not stated: seed 0 for every configuration, so the runs of one setting draw their rewards from the same "
    "streams at every eps.",
    "DP-SE's parameters beyond beta = 1/T are not given; beta follows --horizon.",
)


def curves(eps: float) -> tuple[Curve, ...]:
    """The three algorithms of every figure (the paper fixes no colours)."""
    return (Curve("Anytime-Lazy-UCB", "anytime-lazy-ucb", {"eps": eps}),
            Curve("Hybrid-UCB", "hybrid-ucb", {"eps": eps}),
            Curve("DP-SE", "dp-se", {"eps": eps, "beta": PerHorizon("1/T", _reciprocal)}))


def _reciprocal(horizon: int) -> float:
    return 1.0 / horizon


def _configuration(setting: int, eps: float) -> Configuration:
    return Configuration((("eps", eps),), BernoulliBandit(SETTINGS[setting]), HORIZON, RUNS, curves(eps))


def _means(setting: int) -> str:
    return ", ".join(f"{m:g}" for m in SETTINGS[setting])


def _over_time(figure: str, setting: int, eps: float, observation: str, appendix: bool,
               ordering: tuple[tuple[str, ...], ...] = ()) -> Preset:
    where = "App. I" if appendix else "Sec. 6"
    title = f"Fig. {figure[3:]} ({where}): setting {setting} (means {_means(setting)}), eps = {eps:g}"
    return Preset(PAPER, figure, title, observation, SOURCE, ("eps",), (_configuration(setting, eps),),
                  metric="cumulative", notes=NOTES, ordering=ordering)


def _final(figure: str, setting: int, observation: str, appendix: bool) -> Preset:
    where = "App. I" if appendix else "Sec. 6"
    title = f"Fig. {figure[3:]} ({where}): final regret vs eps, setting {setting} (means {_means(setting)})"
    return Preset(PAPER, figure, title, observation, SOURCE, ("eps",),
                  tuple(_configuration(setting, eps) for eps in EPSILONS), metric="cumulative", final_vs="eps",
                  notes=NOTES)


def _unstated(nearest: str) -> str:
    return f"The paper states no observation for this appendix figure; the nearest stated one: {nearest}"


def _nearest(eps: float) -> str:
    return SMALL_EPS if eps <= 1 else LARGE_EPS


PRESETS = (
    _over_time("fig1", 1, 0.5, SMALL_EPS, False, SMALL_EPS_ORDERING),
    _over_time("fig2", 1, 1.0, SMALL_EPS, False, SMALL_EPS_ORDERING),
    _over_time("fig3", 1, 8.0, LARGE_EPS, False, LARGE_EPS_ORDERING),
    _over_time("fig4", 1, 64.0, LARGE_EPS, False, LARGE_EPS_ORDERING),
    _final("fig5", 1, FINAL, False),
    _over_time("fig6", 2, 0.5, SETTING2, False, SMALL_EPS_ORDERING),
    _over_time("fig7", 2, 8.0, SETTING2, False, LARGE_EPS_ORDERING),
    _over_time("fig8", 2, 64.0, SETTING2, False, LARGE_EPS_ORDERING),
    *(_over_time(f"fig9{part}", 1, eps, _unstated(_nearest(eps)), True)
      for part, eps in zip("abc", (0.1, 0.25, 128.0))),
    _final("fig10", 2, _unstated(FINAL), True),
    *(_over_time(f"fig11{part}", 2, eps, _unstated(SETTING2), True)
      for part, eps in zip("abcd", (0.1, 0.25, 1.0, 128.0))),
    _final("fig12a", 3, _unstated(FINAL), True),
    *(_over_time(f"fig12{part}", 3, eps, _unstated(_nearest(eps)), True) for part, eps in zip("bcdefgh", EPSILONS)),
)

__all__ = ["LARGE_EPS_ORDERING", "PRESETS", "SETTINGS", "SMALL_EPS_ORDERING", "curves"]
