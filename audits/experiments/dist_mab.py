"""dist-mab's experiments (Section 7 and Appendix J; the spec's Section 5) as presets.

Every figure plots the time-average regret Reg(t)/t against t, averaged over 20 runs:

- ``fig1`` (Fig. 1 top): K = 10 Gaussian arms (sd 0.1, clipped to [0, 1]) with means drawn per run
  uniformly on [0.5 - gap/2, 0.5 + gap/2], gap 0.5 (easy) and 0.1 (hard), eps in {0.1, 0.5, 1}, DP-SE
  against Dist-DP-SE and Dist-RDP-SE (s = 10, 100), p = 0.1, T = 10^7;
- ``fig2`` / ``fig3`` (App. J): the easy / hard instance at eps in {0.1, 0.5, 1}, at the released
  code's horizons (10^6 easy, 10^7 hard);
- ``fig4`` (App. J): the trust models compared on the easy instance: CDP-SE, LDP-SE, Dist-DP-SE,
  Dist-RDP-SE(s = 10), Dist-CDP-SE(s = 10), batch growth 2;
- ``fig1-mslr`` (Fig. 1 bottom) and ``fig5`` (App. J): MSLR-WEB10K, which is not fetched: a synthetic
  stand-in instance (:data:`MSLR_STAND_IN`), or the real data when a user gives its file
  (``dpaudit simulate dist-mab/fig5 --data Fold1/train.txt``; :mod:`dpaudit.algorithms.environments.mslr`
  reads it and builds the paper's 50 K-means arms); every record and report says which was used
  (:data:`MSLR_NOT_GIVEN`, or "data: MSLR-WEB10K from <file name> (...)").

Constants (``constants``, :data:`dpaudit.bandits.experiments.CONSTANTS`): ``"theorem"`` (the default) runs
the paper as printed: Algorithm 1's batches l(b) = 2^b and Section 7's p = 0.1; ``"released-code"`` runs the
constants of the authors' released code (:data:`RELEASED_SOURCE`): batches 4^b for Figs. 1-3 (2^b for
Fig. 4, the plot script's "dc = 2"), p = 0.1, and DP-SE's one Laplace draw per epoch shared by every arm
(:data:`RELEASED_NOTES` lists what differs and what of the code is not reproduced).

Algorithms are named by registry name: ``dp-se`` (eps, beta; the experiments' p = 0.1 is DP-SE's
beta), ``dist-dp-se``, ``dist-rdp-se``, ``dist-cdp-se``, ``cdp-se``, ``ldp-se`` (eps, p, eta, s).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from dpaudit.algorithms.environments import BernoulliBandit, GaussianBandit, UniformMeans
from dpaudit.algorithms.environments.mslr import load_mslr
from dpaudit.bandits.experiments import (
    RELEASED_CODE,
    THEOREM,
    Configuration,
    Curve,
    Preset,
    constant_set_fields,
    constants_title,
)

PAPER = "dist-mab"
ARMS = 10
EPSILONS = (0.1, 0.5, 1.0)
P = 0.1  # confidence level of the released code, in beta(b) and tau
RUNS = 20
SIGMA = 0.1  # reward standard deviation of the released code
EASY, HARD = 0.5, 0.1  # width of the interval the means are drawn from
HORIZON = {EASY: 10**6, HARD: 10**7}  # the released code's horizons
HARD_YLIM = (0.0, 0.045)  # the released plot script's y range for the hard instance
ETA = {THEOREM: 2, RELEASED_CODE: 4}  # batch growth of Figs. 1-3: Algorithm 1's l(b) = 2^b; the code's 4^b
TRUST_ETA = 2  # Fig. 4: the plot script's "batch factor dc = 2" (Algorithm 1's growth too)
RELEASED_SOURCE = ("the authors' released code, sayakrc/Differentially-Private-Bandits at ea7503b (MABPrivate.py); "
                   "the paper cites no commit")
RELEASED_NOTES = (
    "Released-code constants: batches l(b) = 4^b for Figs. 1-3 and the MSLR-WEB10K figures (Fig. 4: 2^b, the plot "
    "script's dc = 2), p = 0.1 in the radius and in tau, DP-SE with one Lap(1/eps) draw per epoch added to every "
    "arm's sum (DPSE.central_rand), which cancels in the elimination rule, so DP-SE's decisions are those of the "
    "non-private rule on the true sums.",
    "Not reproduced, as errors of the code rather than constants: its Polya sampler draws Gamma(r, scale (1 - q)/q) "
    "with q = e^(-eps/g), the parameter inverted, so its Dist-DP-SE noise is Polya(1/n, 1 - e^(-eps/g)) (at eps "
    "= 0.1, n = 16 the batch's total noise has variance 0.23 against Theorem 1's 200); Dist-RDP-SE's tau without "
    "the square root on its first log term (a larger tau: the decisions differ only when the total noise exceeds "
    "the smaller one, probability at most p per batch); DP-SE's epoch length 1 + int(.) where the reconstruction "
    "rounds up (equal unless the maximum is an integer).",
    "Not in the released code: the classes behind Fig. 4 (CDP-SE, LDP-SE, Dist-CDP-SE) and the MSLR-WEB10K "
    "experiment; their released-code variants take the code's constants for the algorithms it has.",
)

OBSERVATION = ("As T grows, Dist-DP-SE's regret matches DP-SE's. There is a slight difference at small T. It is the "
               "price of distributed privacy with discrete noise (quantization error) and no trusted server. The "
               "difference is smaller for larger eps. RDP with s = 10 gives a considerable gain over pure DP, "
               "especially for small eps. The gain increases with s.")
OBSERVATION_SOURCE = "dist-mab Sec. 7 and App. J, as the spec's 5.4 reports them"
TRUST_OBSERVATION = ("CDP-SE ~ Dist-DP-SE, both much better than LDP-SE. Dist-RDP-SE and Dist-CDP-SE are better "
                     "still. Dist-CDP-SE beats Dist-RDP-SE. This is attributed to the sub-Gaussian discrete-Gaussian "
                     "tails vs sub-exponential Skellam tails.")
#: Fig. 1's "RDP with s = 10 gives a considerable gain over pure DP ... The gain increases with s", as an
#: ordering of the final regrets (DP-SE is not placed: it only "matches" Dist-DP-SE as T grows)
SE_ORDERING = (("Dist-RDP-SE(s=100)",), ("Dist-RDP-SE(s=10)",), ("Dist-DP-SE",))
#: Fig. 4's "CDP-SE ~ Dist-DP-SE, both much better than LDP-SE; Dist-RDP-SE and Dist-CDP-SE are better still;
#: Dist-CDP-SE beats Dist-RDP-SE"
TRUST_ORDERING = (("Dist-CDP-SE(s=10)",), ("Dist-RDP-SE(s=10)",), ("CDP-SE", "Dist-DP-SE"), ("LDP-SE",))
COMMON_NOTES = (
    "Plots show the pseudo-regret (sum of the gaps of the arms played); the released code plots the realised "
    "regret against each round's best-arm reward, which has the same expectation. Tables also give the realised "
    "regret against the best mean.",
    "Every configuration uses seed 0, so run r faces the same instance in every configuration of one gap (the "
    "released code seeds instance r with np.random.seed(r)); the instances themselves differ from the code's.",
    "p = 0.1, as the paper's Section 7 states (\"We fix confidence level p = 0.1\") and the released code uses; "
    "DP-SE gets it as beta.",
)
THEOREM_NOTES = (
    "Batches l(b) = 2^b, as Algorithm 1 prints them (Remark 4 allows any eta^b); the authors' figures used the "
    "released code's 4^b (--constants released-code).",
)


def _notes(constants: str) -> tuple[str, ...]:
    return COMMON_NOTES + (THEOREM_NOTES if constants == THEOREM else RELEASED_NOTES)


def synthetic(gap: float) -> GaussianBandit:
    """K = 10 arms, means uniform on [0.5 - gap/2, 0.5 + gap/2] per run, N(mu, 0.1^2) rewards clipped to [0, 1]."""
    return GaussianBandit(UniformMeans.around(0.5, gap, ARMS), sigma=SIGMA, clip=(0.0, 1.0))


def se_curves(eps: float, constants: str = THEOREM) -> tuple[Curve, ...]:
    """Fig. 1's algorithms, in the released plot script's colours, with the constant set ``constants``."""
    eta = ETA[constants]
    dp_se = {"eps": eps, "beta": P} if constants == THEOREM else {"eps": eps, "beta": P, "shared_noise": True}
    return (Curve("DP-SE", "dp-se", dp_se, "black"),
            Curve("Dist-DP-SE", "dist-dp-se", {"eps": eps, "p": P, "eta": eta}, "blue"),
            Curve("Dist-RDP-SE(s=10)", "dist-rdp-se", {"eps": eps, "p": P, "eta": eta, "s": 10}, "red"),
            Curve("Dist-RDP-SE(s=100)", "dist-rdp-se", {"eps": eps, "p": P, "eta": eta, "s": 100}, "green"))


def trust_curves(eps: float, eta: int = TRUST_ETA) -> tuple[Curve, ...]:
    """Fig. 4's algorithms (the plot script's colours for them are not known)."""
    return (Curve("CDP-SE", "cdp-se", {"eps": eps, "p": P, "eta": eta}),
            Curve("LDP-SE", "ldp-se", {"eps": eps, "p": P, "eta": eta}),
            Curve("Dist-DP-SE", "dist-dp-se", {"eps": eps, "p": P, "eta": eta}),
            Curve("Dist-RDP-SE(s=10)", "dist-rdp-se", {"eps": eps, "p": P, "eta": eta, "s": 10}),
            Curve("Dist-CDP-SE(s=10)", "dist-cdp-se", {"eps": eps, "p": P, "eta": eta, "s": 10}))


# -- MSLR-WEB10K stand-in ----------------------------------------------------------------------------------

#: label frequencies of 0..4, roughly those reported for MSLR-WEB10K (not checked against the data set)
MSLR_LABEL_FREQUENCIES = (0.52, 0.32, 0.13, 0.02, 0.01)
MSLR_CONCENTRATION = 20.0
MSLR_SEED = 0
MSLR_ARMS = 50


def mslr_stand_in_means() -> np.ndarray:
    """The 50 arms' means: each arm is a synthetic cluster whose label proportions are one draw of
    Dirichlet(20 x (0.52, 0.32, 0.13, 0.02, 0.01)) from ``numpy.random.default_rng(0)``; its mean is the
    cluster's mean relevance label divided by 4."""
    rng = np.random.default_rng(MSLR_SEED)
    proportions = rng.dirichlet(MSLR_CONCENTRATION * np.asarray(MSLR_LABEL_FREQUENCIES), size=MSLR_ARMS)
    return proportions @ np.arange(5) / 4


_means = np.sort(mslr_stand_in_means())[::-1]
MSLR_STAND_IN = (
    "MSLR-WEB10K (1.2 million query-url pairs clustered by K-means into 50 arms) is not fetched. In its place: a "
    "fixed 50-armed Bernoulli bandit whose arm means are the mean relevance labels / 4 of 50 synthetic clusters, "
    "each cluster's label proportions one draw of Dirichlet(20 x (0.52, 0.32, 0.13, 0.02, 0.01)) (label "
    "frequencies roughly those of MSLR-WEB10K) from numpy.random.default_rng(0) "
    f"(best mean {_means[0]:.4f}, second {_means[1]:.4f}, worst {_means[-1]:.4f}). The paper's numbers, were "
    "there any, would not apply to it. Give the real file to use it: dpaudit simulate dist-mab/fig5 --data PATH.")
MSLR_EPSILONS = (1.0, 2.0, 5.0)
MSLR_HORIZON = 10**7
MSLR_NOTES = COMMON_NOTES + (
    "eps: the paper says only 'eps >= 1 for real data'; the grid is {1, 2, 5}.",
    "T is not stated for the real data: 10^7, the released code's larger horizon.",
    "How a pull draws a reward is not stated (a random label of the cluster, or a draw with the cluster's mean): "
    "Bernoulli(mean) rewards, so the means are exactly the stand-in's label means / 4.",
    "The instance is fixed, so the 20 runs differ in their rewards and noise only.",
)


MSLR_NOT_GIVEN = "data: synthetic stand-in (MSLR-WEB10K not given)"
MSLR_REAL_NOTES = MSLR_NOTES[:-2] + (
    "Arms: K-means (K = 50) on the standardised 136 features of the given file, each cluster's mean relevance "
    "label / 4 its mean; Bernoulli(mean) rewards (how a pull draws a reward is not stated).",
    "The instance is fixed, so the 20 runs differ in their rewards and noise only.",
)


def _mslr(figure: str, title: str, data: Path | None = None, constants: str = THEOREM) -> Preset:
    """The MSLR-WEB10K figure on the synthetic stand-in, or (``data``, a LETOR file) on the real data."""
    if data is None:
        means, line, stand_in, notes = mslr_stand_in_means(), MSLR_NOT_GIVEN, MSLR_STAND_IN, MSLR_NOTES
        shown = f"{title} (synthetic stand-in)"
    else:
        (means, line), stand_in, notes = load_mslr(data), None, MSLR_REAL_NOTES
        shown = f"{title} (MSLR-WEB10K from {Path(data).name})"
    env = BernoulliBandit(means)
    notes = notes + (THEOREM_NOTES if constants == THEOREM else RELEASED_NOTES)
    return Preset(PAPER, figure, constants_title(shown, constants), OBSERVATION, OBSERVATION_SOURCE, ("eps",),
                  tuple(Configuration((("eps", eps),), env, MSLR_HORIZON, RUNS, se_curves(eps, constants))
                        for eps in MSLR_EPSILONS),
                  metric="time-average", notes=notes, stand_in=stand_in, ordering=SE_ORDERING, data=line,
                  with_data=partial(_mslr, figure, title, constants=constants),
                  **constant_set_fields(constants, RELEASED_SOURCE, partial(_mslr, figure, title, data)))


def _instance(figure: str, title: str, gap: float, notes: tuple[str, ...], constants: str = THEOREM) -> Preset:
    return Preset(PAPER, figure, constants_title(title, constants), OBSERVATION, OBSERVATION_SOURCE, ("eps",),
                  tuple(Configuration((("eps", eps),), synthetic(gap), HORIZON[gap], RUNS, se_curves(eps, constants),
                                      ylim=HARD_YLIM if gap == HARD else None) for eps in EPSILONS),
                  metric="time-average", notes=_notes(constants) + notes, ordering=SE_ORDERING,
                  **constant_set_fields(constants, RELEASED_SOURCE, partial(_instance, figure, title, gap, notes)))


def _fig1(constants: str = THEOREM) -> Preset:
    return Preset(
        PAPER, "fig1", constants_title("Fig. 1 (top): synthetic Gaussian instances, easy (gap 0.5) and hard "
                                       "(gap 0.1)", constants),
        OBSERVATION, OBSERVATION_SOURCE, ("gap", "eps"),
        tuple(Configuration((("gap", gap), ("eps", eps)), synthetic(gap), 10**7, RUNS, se_curves(eps, constants),
                            ylim=HARD_YLIM if gap == HARD else None)
              for gap in (EASY, HARD) for eps in EPSILONS),
        metric="time-average",
        notes=_notes(constants) + (
            "The eps of each panel of Fig. 1 cannot be recovered from the text ('eps < 1 for synthetic data'): "
            "the grid covers both instances at every eps of App. J, {0.1, 0.5, 1}.",
            "T = 10^7 for both instances; the released code ran the easy instance at 10^6 (preset fig2 does, "
            "and --horizon 1000000 does here).",
            "The hard instance's plots use the released plot script's y range [0, 0.045]."),
        ordering=SE_ORDERING, **constant_set_fields(constants, RELEASED_SOURCE, _fig1))


def _fig4(constants: str = THEOREM) -> Preset:
    return Preset(
        PAPER, "fig4", constants_title("Fig. 4 (App. J): trust models on the easy instance", constants),
        TRUST_OBSERVATION,
        "dist-mab App. J, as the spec's 5.2 reports it", ("eps",),
        tuple(Configuration((("eps", eps),), synthetic(EASY), HORIZON[EASY], RUNS, trust_curves(eps))
              for eps in EPSILONS),
        metric="time-average",
        notes=COMMON_NOTES + (() if constants == THEOREM else RELEASED_NOTES) + (
            "Batch growth eta = 2 for every algorithm (the plot script's 'batch factor dc = 2', and Algorithm 1's "
            "2^b): the same under both constant sets.",
            "T is not stated for Fig. 4: 10^6, the released code's horizon for the easy instance; 20 runs as "
            "in Fig. 1.",
            "The classes behind Fig. 4 are not in the released code; its colours are not known."),
        ordering=TRUST_ORDERING, **constant_set_fields(constants, RELEASED_SOURCE, _fig4))


PRESETS = (
    _fig1(),
    _mslr("fig1-mslr", "Fig. 1 (bottom): MSLR-WEB10K, 50 arms"),
    _instance("fig2", "Fig. 2 (App. J): easy instance, means U[0.25, 0.75]", EASY,
              ("T = 10^6, the released code's horizon for the easy instance.",)),
    _instance("fig3", "Fig. 3 (App. J): hard instance, means U[0.45, 0.55]", HARD,
              ("T = 10^7, the released code's horizon for the hard instance; y range [0, 0.045] as in its plot "
               "script.",)),
    _fig4(),
    _mslr("fig5", "Fig. 5 (App. J): MSLR-WEB10K, 50 arms"),
)

__all__ = ["ETA", "MSLR_NOT_GIVEN", "MSLR_STAND_IN", "RELEASED_NOTES", "RELEASED_SOURCE",
           "PRESETS", "SE_ORDERING", "TRUST_ORDERING", "mslr_stand_in_means", "se_curves", "synthetic",
           "trust_curves"]
