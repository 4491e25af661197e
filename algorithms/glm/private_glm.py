"""Private-GLM: shuffle-glm's Algorithm 2 as its experiments run it (Remark A.1), with the hyperparameters of
the code the paper cites (the spec's 5.5) and DP-SGD as the optimizer.

    lambda      = 2 log(4/delta) log(4T/zeta)^2 / (eps kappa*) + 0.75 d log(4T/zeta) / R^2
    lambda_max/min = lambda +- 1.5 log(4/delta) log(4T/zeta)^2 / (eps kappa*)
    gamma       = R S sqrt(d log(T/zeta))          (elimination width gamma sqrt(kappa), eqs. 16-17)
    beta        = 4 sqrt(d log(T/zeta))            (eq. 18's width)
    threshold   = 1 / (0.01 kappa R^4 S^2 d)       (criterion I)
    count1_cutoff = int(d R^2 kappa gamma^2 log T / 20000)
    count2_cutoff = int(log2(lambda_max/lambda_min + T / (kappa*^2 lambda_min d)))   (commit ab8fd160)
    per-call budget: (eps/3, delta/3) over the cutoff's calls: an equal split if cutoff <= 10, else advanced
        composition solved for the per-call eps (:func:`~dpaudit.mechanisms.accounting.advanced_composition_budget`,
        delta' = delta/6, per-call delta = delta / (6 cutoff)), the code's ``per_step_budget_auto``
    optimizer: :class:`~dpaudit.mechanisms.training.dp_sgd.DPSGD` (clip 0.2, batch 2048 or the whole set,
        lr 10/sqrt(step), 50 epochs, regulariser 1e-5, average of the epoch-end iterates after 10 burn-in
        epochs), on the loss whose per-point gradient is (mu(<x, theta>) - r) x, started from the estimate it
        replaces
    trees: ``tree="repository"`` (default): the code's zCDP calibration of each tree at (eps/3, delta/3),
        sensitivity 1 for B_V and 1/kappa* for B_H (:func:`~dpaudit.mechanisms.glm.exploration_set.zcdp_node_sigma`);
        ``tree="printed"``: Lemma I.4's sigma_noise for both (Remark A.1 does not change the trees, but with
        the code's lambda, about 10^2 at Table 2's sizes, the printed noise (about 60 per entry of a prefix sum)
        swamps the design matrices); ``tree="released-code"``: the code's calibration and the code's tree as it
        runs, whose query is not a prefix sum and is projected onto the PSD cone
        (:class:`~dpaudit.mechanisms.released_code.glm_released_code.ReleasedCodeTree`; not private as Algorithm 2 is).

``schedule="released-code"`` runs each DP-SGD call as commit ab8fd160 does: with the noise multiplier of its
accountant (:func:`~dpaudit.mechanisms.training.dp_sgd.released_code_noise_multiplier`, 1.3-1.6x this package's) and the
epochs, burn-in and learning rate that its adaptation picks when the noise is large
(:func:`~dpaudit.mechanisms.training.dp_sgd.released_code_schedule`);
the default, ``"fixed"``, keeps 50 epochs, learning rate 10 and burn-in 10 for every call.
``variant="released-code"`` makes these departures of the code from Algorithm 2 (``Private_RS_GLinUCB`` at
ab8fd160; the default ``"paper"`` makes none):
- the UCB is centred at (theta_o + theta_tau)/2, and both optimizer calls start there;
- a criterion-I round's V leaf is x x^T / (1 + ||x||^2_{V^-1});
- before count1's cutoff, a criterion-I point also joins criterion II's data;
- criterion I is strict (``>``);
- the switch fires at det >= 2 det, never after count2's cutoff (H_tau then stays), and its reference becomes the
  larger of the last reference and det(H) at the switch (Algorithm 2: the running maximum of det(H_s));
- V takes the round's leaf when the arm is chosen (the zero leaf in a criterion-II round), so the elimination
  (eqs. 16-17) reads the V that includes it.
The registry's ``constants="released-code"`` sets both and ``tree="released-code"``.

Choices: count2_cutoff is commit ab8fd160's (the other commit, d9c93e11, has max(1, int(3 log2(...)))), the parent
commit, whose stored outputs are the paper's Table 2; a cutoff of 0 means no optimizer call of that kind (theta
stays 0). By default the optimizer keeps 50 epochs, learning rate 10 and burn-in 10 whatever its noise; both
commits adapt them when the noise is large (:mod:`~dpaudit.mechanisms.training.dp_sgd`;
``schedule="released-code"`` takes ab8fd160's). What the code does and Algorithm 2 does not is followed only
under ``variant="released-code"`` and ``tree="released-code"`` (above), except that the code draws DP-SGD's
batches by shuffling (accounted as if Poisson; here they are Poisson, see :mod:`~dpaudit.mechanisms.training.dp_sgd`).
With these hyperparameters ||x||^2_{V^-1} <= 1/lambda is below the criterion-I threshold, so criterion I fires
only when the trees' noise pulls V's smallest eigenvalue below 1/threshold. Such a round makes a DP-SGD call
on the 1-4 points of T_o, whose noise (z clip / n, z about 260 at the per-call budget) sends theta_o to norms of
order 10^6; the elimination around theta_o (eqs. 16-17) then keeps only the arms best along a random direction
(Figure 1(b) at eps = 8: 3 of 10 runs end above 1800). ``project=True`` (not the code's) projects the
criterion-I DP-SGD iterates onto Algorithm 2's line-8 domain {||theta|| <= S} (post-processing, same privacy).
"""

from __future__ import annotations

import math
import warnings

from dpaudit.core.validation import choice
from dpaudit.mechanisms.accounting import advanced_composition_budget
from dpaudit.mechanisms.glm.exploration_set import node_noise_sigma, zcdp_node_sigma
from dpaudit.mechanisms.glm.geometry import Ball
from dpaudit.mechanisms.released_code.glm_released_code import ReleasedCodeTree
from dpaudit.mechanisms.training.dp_sgd import DPSGD, released_code_schedule

from .algorithm2 import Algorithm2, Algorithm2Settings, cumulant_gradient

TREES = ("repository", "printed", "released-code")
SCHEDULES = ("fixed", "released-code")
VARIANTS = ("paper", "released-code")


def per_call_budget(epsilon: float, delta: float, calls: int) -> tuple[float, float]:
    """The code's per-call budget for ``calls`` optimizer calls sharing (eps, delta): (eps/k, delta/k) for
    k <= 10, else advanced composition with delta' = delta/2 solved for the per-call eps."""
    if calls <= 10:
        return epsilon / calls, delta / calls
    return advanced_composition_budget(epsilon, delta, calls, delta / 2)


class PrivateGLM(Algorithm2):
    """shuffle-glm Remark A.1's Private-GLM (module docstring)."""

    owner = "PrivateGLM"
    source = "Algorithm 2 as modified by Remark A.1 (DP-SGD optimizer), the cited code's hyperparameters"

    def __init__(self, eps: float, delta: float = 0.02, zeta: float = 0.02, S: float = 1.0,
                 kappa: float | None = None, kappa_star: float | None = None, link: str = "logistic",
                 R: float = 1.0, T: int | None = None, tree: str = "repository", project: bool = False,
                 record: bool = False, schedule: str = "fixed", variant: str = "paper"):
        super().__init__(eps, delta, zeta, S, kappa, kappa_star, link, R, T, record)
        self.variant = choice(self.owner, "variant", variant, VARIANTS)
        self.tree = choice(self.owner, "tree", tree, TREES)
        self.schedule = choice(self.owner, "schedule", schedule, SCHEDULES)
        self.project = bool(project)
        if not self.delta > self.zeta:  # the experiments' delta = zeta = 0.02
            note = (f"{self.owner}: zeta = {self.zeta:g} is not below delta = {self.delta:g}; Theorem 6.2 (Lemma I.7) "
                    "needs delta > zeta (the experiments run delta = zeta)")
            warnings.warn(note, stacklevel=2)
            self.notes.append(note)

    def settings(self, d: int, T: int) -> Algorithm2Settings:
        eps, delta, zeta, R, S = self.eps, self.delta, self.zeta, self.R, self.S
        kappa, kappa_star = self.kappa, self.kappa_star
        privacy = math.log(4 / delta) * math.log(4 * T / zeta) ** 2 / (eps * kappa_star)
        lam = 2 * privacy + 0.75 * d * math.log(4 * T / zeta) / R**2
        lam_max, lam_min = lam + 1.5 * privacy, lam - 1.5 * privacy
        gamma = R * S * math.sqrt(d * math.log(T / zeta))
        beta = 4 * math.sqrt(d * math.log(T / zeta))
        count1 = int(d * R**2 * kappa * gamma**2 * math.log(T) / 20000)
        count2 = int(math.log2(lam_max / lam_min + T / (kappa_star**2 * lam_min * d)))
        self.lam_bounds = (lam_min, lam_max)
        if self.tree in ("repository", "released-code"):
            sigma_V = zcdp_node_sigma(T, eps / 3, delta / 3, 1.0)
            sigma_H = zcdp_node_sigma(T, eps / 3, delta / 3, 1 / kappa_star)
        else:
            sigma_V = sigma_H = node_noise_sigma(T, eps, delta, kappa_star)
        return Algorithm2Settings(lam, 1 / (0.01 * kappa * R**4 * S**2 * d), gamma * math.sqrt(kappa), beta,
                                  count1, count2, sigma_V, sigma_H)

    def _trees(self, d, T, s):
        if self.tree != "released-code":
            return super()._trees(d, T, s)
        return (ReleasedCodeTree(T, d, s.sigma_V, s.lam).stream(self.runs),
                ReleasedCodeTree(T, d, s.sigma_H, s.lam).stream(self.runs))

    def _released(self, stream, leaves):
        if self.tree != "released-code":
            return super()._released(stream, leaves)
        return stream.insert(leaves, self.rng)  # the code's query adds lambda I itself, then projects

    def fit(self, kind, n, data, start, theta_o, V, rng):
        # a call is made only below its cutoff, so the cutoff is >= 1 here
        cutoff = self.config.count1_cutoff if kind == "explore" else self.config.count2_cutoff
        eps0, delta0 = per_call_budget(self.eps / 3, self.delta / 3, cutoff)
        if self.schedule == "released-code":
            epochs, burn_in, lr0 = released_code_schedule(eps0, delta0, n, accountant="released-code")
            optimizer = DPSGD(eps0, delta0, n, self._d, epochs=epochs, lr0=lr0, burn_in=burn_in,
                              accountant="released-code", batches="shuffled")
        else:
            optimizer = DPSGD(eps0, delta0, n, self._d)
        domain = Ball(self.S).project if self.project and kind == "explore" else None
        if self.record:  # the call as its accountant sees it (shuffle-glm's remarkA.1 entries read these)
            self.trace.setdefault("optimizers", []).append((kind, n, optimizer))
        return optimizer.run(cumulant_gradient(self.link, 0.0), data(), start, rng, project=domain)


    @property
    def name(self) -> str:
        schedule = "" if self.schedule == "fixed" else ", DP-SGD schedule of the released code"
        variant = "" if self.variant == "paper" else ", the released code's Algorithm 2"
        return super().name[:-1] + schedule + variant + ")"


__all__ = ["SCHEDULES", "TREES", "VARIANTS", "PrivateGLM", "per_call_budget"]
