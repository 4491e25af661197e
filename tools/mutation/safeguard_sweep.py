"""Safeguard mutation sweep: every safeguard of the certified DP-SGD accounting, removed or turned the wrong way,
must fail a test.

A certified bracket rests on a chain of safeguards: the direction each step's privacy loss is rounded (the
dominating split upwards, the garbling downwards), each float operation's rounding carried in the right
direction, every error bound (the normal distribution function's, the quadrature's remainder, the FFT's, the
truncated tails' Chernoff bounds) added where it widens the bracket, both orders of the neighbouring datasets
taken, the certification in high precision of the shuffle lower bound's test. Each site below removes one of
them (or a group of roundings that only together make a bound rigorous) and nothing else; the tests in
``tests/test_certified_accounting.py`` must then fail. The sweep applies each mutation in place, runs the
site's tests with ``pytest -x -q``, restores the file byte for byte, and records killed or survived.

    python tools/mutation/safeguard_sweep.py                  # every site, then docs/mutation/safeguards.md
    python tools/mutation/safeguard_sweep.py --only 'grid/*'  # the matching sites; their rows replaced
    python tools/mutation/safeguard_sweep.py --list           # the sites, nothing run

It refuses to start when a target file has uncommitted changes, and checks before running anything that every
original text occurs exactly once in its file (:mod:`sweep`).
"""

from __future__ import annotations

import sys

from sweep import ROOT, Site, Sweep, main

REPORT = ROOT / "docs" / "mutation" / "safeguards.md"
ACC = "tests/test_certified_accounting.py"
TESTS = (ACC,)
GRID = "dpaudit/exact/accounting/grid.py"
NORMAL = "dpaudit/exact/accounting/normal.py"
MIX = "dpaudit/exact/accounting/mixtures.py"
ALLOC = "dpaudit/exact/accounting/allocation.py"
BRACKETS = "dpaudit/exact/accounting/brackets.py"

SITES: tuple[Site, ...] = (
    # -- one step: the dominating split and the dominated garbling -------------------------------------------
    Site("grid/split-direction", "upper bound", GRID,
         "    mass[1:] += up_hi\n",
         "    mass[:-1] += up_hi\n",
         "upper_step: the excess G_j / (1 - e^-h) goes to the cell's upper knot (to the lower: not dominating)",
         TESTS),
    Site("grid/split-rounding", "upper bound", GRID,
         "    mass = _up(mass, 3)\n",
         "",
         "upper_step: each knot's mass rounded up by three floats (its three roundings)", TESTS),
    Site("grid/split-rounding-once", "upper bound", GRID,
         "    mass = _up(mass, 3)\n",
         "    mass = _up(mass, 1)\n",
         "upper_step: three floats up, not one", TESTS,
         accepted="redundant by a proof, so no test can tell it apart: the quotient's rounding lies inside 1 - e^-h's "
                  "16-ulp allowance (gap_lo), and the two roundings left (P_hi - U_lo and the knot's sum, each at "
                  "most half a float of a result no larger than the sum) are together at most one float of the "
                  "computed sum; three floats keep the comment's count without that case analysis"),
    Site("grid/split-lower-share-rounding", "upper bound", GRID,
         "    up_lo = np.minimum(_down(np.maximum(cells.g_lo, 0.0) / gap_hi), cells.p_hi)",
         "    up_lo = np.minimum(np.maximum(cells.g_lo, 0.0) / gap_hi, cells.p_hi)",
         "upper_step: the lower bound on the share sent up rounded down (P_j minus it may cancel)", TESTS,
         accepted="redundant: the quotient's rounding (half a float) lies inside 1 - e^-h's 16-ulp allowance (gap_hi) "
                  "where it is normal, and inside the knot's three floats up where it is subnormal (an absolute "
                  "2^-1075 at most, three floats being at least 3 * 2^-1074)"),
    Site("grid/split-gap-rounding", "upper bound", GRID,
         "    up_hi = np.minimum(np.maximum(cells.g_hi, 0.0) / gap_lo, cells.p_hi)",
         "    up_hi = np.minimum(np.maximum(cells.g_hi, 0.0) / gap, cells.p_hi)",
         "upper_step: G_j / (1 - e^-h) with 1 - e^-h at its lower bound", TESTS,
         accepted="redundant: with 1 - e^-h as computed (expm1, within one ulp) the share is at most 1.5 floats "
                  "low, inside the knot's three floats up beside the other two roundings' one float"),
    Site("grid/split-enclosure-ends", "upper bound", GRID,
         "    up_hi = np.minimum(np.maximum(cells.g_hi, 0.0)",
         "    up_hi = np.minimum(np.maximum(cells.g_lo, 0.0)",
         "upper_step: the mass sent up is the upper end of G_j's enclosure", TESTS),
    Site("grid/merge-balance", "lower bound", GRID,
         "used = min(r, _ratio(ex_l[j], 1.0, d, upward=False)) if ex_l[j] > 0.0 else 0.0",
         "used = r",
         "_merge: what cell j cannot balance stays on cell j-1's lower knot (moved up: a loss raised)", TESTS),
    Site("grid/merge-fraction-rounding", "lower bound", GRID,
         "a = _ratio(r, d, ex_l[j], upward=True) if ex_l[j] > 0.0 else math.inf",
         "a = r * d / ex_l[j] if ex_l[j] > 0.0 else math.inf",
         "_merge: the fraction a_j balancing the deficit rounded up", TESTS),
    Site("grid/merge-subnormal", "lower bound", GRID,
         "    if min(x, y, z) > _SMALL and z < 2.0**900:",
         "    if z > 0:",
         "_ratio: exact rationals where a float product or quotient could be subnormal", TESTS),
    Site("grid/merge-remainder-rounding", "lower bound", GRID,
         "        if a < 0.5 and Fraction(r) + Fraction(a) > 1:  # 1 - a rounded up",
         "        if False:",
         "_merge: the remainder 1 - a_j rounded down (a cell gives away at most itself)", TESTS),
    Site("grid/merge-total-check", "lower bound", GRID,
         "        if Fraction(float(own[j])) > room:",
         "        if False:",
         "_merge: each cell's fractions checked exactly to sum to at most 1", TESTS),
    Site("grid/garbling-deficit-slack", "lower bound", GRID,
         "deficit = np.maximum((grow_hi * cells.p_hi - e_h * cells.g_lo) + 4 * _U * (grow_hi * cells.p_hi",
         "deficit = np.maximum((grow_hi * cells.p_hi - e_h * cells.g_lo) + 0 * _U * (grow_hi * cells.p_hi",
         "garbling: the deficit at the upper knot rounded up (relative to its terms)", TESTS,
         accepted="redundant: e^h - 1 and e^h are taken 16 ulps to the unfavourable side, which moves (e^h - 1) P_hi "
                  "- e^h G_lo by at least 15u (|first| + |second|) against the two products' and the difference's "
                  "roundings, 2u (|first| + |second|) at most; subnormal products are grid/garbling-deficit-"
                  "subnormal's"),
    Site("grid/garbling-deficit-sign", "lower bound", GRID,
         "    e_h = np.where(cells.g_lo >= 0, math.exp(h) * (1 - ULPS * _U), math.exp(h) * (1 + ULPS * _U))",
         "    e_h = math.exp(h) * (1 - ULPS * _U)",
         "garbling: e^h taken at the end of its enclosure that makes -e^h G_lo largest for either sign of G_lo",
         TESTS),
    Site("grid/garbling-deficit-subnormal", "lower bound", GRID,
         "                         + 4 * _SUBNORMAL, 0.0)",
         "                         + 0 * _SUBNORMAL, 0.0)",
         "garbling: the deficit's absolute rounding where its terms are subnormal", TESTS),
    Site("grid/garbling-rounding", "lower bound", GRID,
         "    mass = _down(mass, 3)\n",
         "",
         "lower_step: the buckets' masses rounded down", TESTS),
    Site("grid/grouped-outcomes-floor", "lower bound", GRID,
         "cell = np.floor(loss_lo[finite] / h).astype(np.int64)",
         "cell = np.ceil(loss_lo[finite] / h).astype(np.int64)",
         "cells_from_outcomes: an outcome goes to the knot at or below its loss", TESTS),
    # -- composition -------------------------------------------------------------------------------------------
    Site("grid/tilt-rounding", "both bounds", GRID,
         "    pmf = pmf * np.exp(err) if step.side == UPPER else pmf * np.exp(-err)\n",
         "",
         "_tilted: each tilted mass widened by its float error (up on the upper side, down on the lower)", TESTS),
    Site("grid/fft-error", "both bounds", GRID,
         "return _fft_convolve(x, y), convolution_error(x, y)",
         "return _fft_convolve(x, y), 0.0",
         "_convolve: the FFT's error bound (Higham) carried", TESTS),
    Site("grid/spike-error", "both bounds", GRID,
         "    error += (len(heavy) + 2) * _U * float(x[heavy].sum()) * float(y.sum())\n",
         "",
         "_convolve: the direct convolution of a spike's heavy cells, its rounding carried", TESTS),
    Site("grid/error-propagation", "both bounds", GRID,
         "error = (a.error * (sb + b.error) + sa * b.error + stage) * (1 + 4 * _U)",
         "error = stage",
         "_product: the operands' errors carried into the product's", TESTS),
    Site("grid/upper-tail-to-infinity", "upper bound", GRID,
         "infinite = min(1.0, infinite + _chernoff(c, float(losses[i_hi]), upper=True))",
         "infinite = infinite",
         "_truncated: the upper side's cut upper tail sent to +inf with its Chernoff bound", TESTS),
    Site("grid/lower-tail-moved-up", "upper bound", GRID,
         "            pmf[0] += bound * _exp_capped(-float(w[0]) + float(slack[0])) * (1 + 2 * _U)\n",
         "",
         "_truncated: the upper side's cut lower tail moved up to the cut with its Chernoff bound", TESTS),
    Site("grid/chernoff-moments", "upper bound", GRID,
         "best = min(sign * s * level + m for s, m in zip(CHERNOFF, moments))",
         "best = min(sign * s * level + m for s, m in zip(CHERNOFF, moments)) - 1.0",
         "_chernoff: the tail bound e^(-+s l) E[e^(+-s L)] as it is (not e^-1 of it)", TESTS),
    Site("grid/log-mgf-rounding", "upper bound", GRID,
         "out.append(v + ULPS * _U * (2 + abs(v) + s * float(np.abs(step.losses).max())) + len(step.mass) * _U)",
         "out.append(v)",
         "_log_mgf: each step's moment rounded up", TESTS),
    Site("grid/delta-float-slack", "both bounds", GRID,
         "rel = float(slack.max()) + (n + ULPS) * _U",
         "rel = 0.0",
         "Composed.delta: the untilt's and the sum's float error", TESTS),
    Site("grid/delta-fft-error", "both bounds", GRID,
         "tail = self.error * _exp_capped(float(w_eps[0]) + float(s_eps[0]))",
         "tail = 0.0",
         "Composed.delta: the composition's carried error, untilted at eps, added (upper) or subtracted (lower)",
         TESTS),
    Site("grid/delta-infinite", "upper bound", GRID,
         "return min(1.0, (self.infinite + _exp_capped(log_total + rel) + tail) * (1 + 2 * _U))",
         "return min(1.0, (_exp_capped(log_total + rel) + tail) * (1 + 2 * _U))",
         "Composed.delta: the mass at +inf counted in the upper bound", TESTS),
    Site("grid/epsilon-upper-end", "upper bound", GRID,
         "                lo, hi = (lo, mid) if self.delta(mid) <= delta else (mid, hi)\n            return hi",
         "                lo, hi = (lo, mid) if self.delta(mid) <= delta else (mid, hi)\n            return lo",
         "Composed.epsilon: the upper side answers the end of its last bracket where delta(eps) <= delta was "
         "certified", TESTS),
    Site("grid/epsilon-lower-end", "lower bound", GRID,
         "            lo, hi = (mid, hi) if self.delta(mid) > delta else (lo, mid)\n        return lo",
         "            lo, hi = (mid, hi) if self.delta(mid) > delta else (lo, mid)\n        return hi",
         "Composed.epsilon: the lower side answers the end where delta(eps) > delta was certified", TESTS),
    # -- the normal distribution and the mixtures' cells --------------------------------------------------------
    Site("normal/ndtr-allowance", "both bounds", NORMAL,
         "NDTR_ULPS = 64", "NDTR_ULPS = 0",
         "the allowance for scipy's ndtr error", TESTS),
    Site("normal/interval-corners", "both bounds", NORMAL,
         "    lo = _difference(a_hi, b_lo, lower=True)",
         "    lo = _difference(a_lo, b_lo, lower=True)",
         "interval: the smallest mass over the ends' box taken at (a_hi, b_lo)", TESTS),
    Site("normal/interval-middle-rounding", "both bounds", NORMAL,
         "        out[middle] += -2 * _U if lower else 2 * _U\n",
         "",
         "_difference: the two subtractions across the middle rounded outwards", TESTS),
    Site("mixtures/quadrature-remainder", "both bounds", MIX,
         "    return out * (1 + 64 * _U)\n",
         "    return out * 0.0\n",
         "_remainder: Gauss-Legendre's remainder in the cells' error", TESTS),
    Site("mixtures/density-error", "both bounds", MIX,
         "        error += d * (ULPS * _U * (8 + 8 * z * z) + mixture.weight_error)\n",
         "",
         "_density: each component's float error (and its weight's)", TESTS),
    Site("mixtures/density-subnormal", "both bounds", MIX,
         "    return value, error + ULPS * _U * value + len(mixture.weights) * 1e-300",
         "    return value, error + ULPS * _U * value",
         "_density: an absolute allowance where a density is subnormal", TESTS),
    Site("mixtures/cell-ends", "both bounds", MIX,
         "        g_lo = g_mid - g_err - g_ends * (1 + 4 * _U) - tiny",
         "        g_lo = g_mid - g_err - tiny",
         "_cell_masses: what a cell's true ends (anywhere in their enclosures) can take from G_j", TESTS),
    Site("mixtures/loss-error", "both bounds", MIX,
         "        error = ea.max(axis=0) + eb.max(axis=0) + ULPS",
         "        error = 0.0 * (ea.max(axis=0) + eb.max(axis=0)) * ULPS",
         "MixturePair.loss: the loss's float error bound", TESTS),
    # -- the shuffle lower bound and the brackets -------------------------------------------------------------
    Site("allocation/certified-sides", "lower bound", ALLOC,
         "                shift = mpmath.mpf(a if side == \"p\" else b)",
         "                shift = mpmath.mpf(b if side == \"p\" else a)",
         "_certified_tails: P's event probability from P's shifts, Q's from Q's", TESTS),
    Site("allocation/certified-slack", "lower bound", ALLOC,
         "        return float(max(out[0] - slack, 0) * (1 - 2 * _U)), float(min(out[1] + slack, 1) * (1 + 2 * _U))",
         "        return float(out[0]), float(out[1])",
         "_certified_tails: the 120-digit values rounded outwards to floats", TESTS),
    Site("allocation/parameter-shifts", "lower bound", ALLOC,
         "                shift += toward * abs(shift) * PARAMETER_ULPS * mpmath.mpf(_U)\n",
         "",
         "_certified_tails: each shift moved PARAMETER_ULPS roundings the unfavourable way", TESTS),
    Site("allocation/log-cdf-widening", "lower bound", ALLOC,
         "            widen = np.expm1((np.abs(x) + d + 1) * d) * (1 + 4 * _U)",
         "            widen = 0.0 * d",
         "log_cdf: Phi(c - shift) widened relatively for the rounding of c - shift and of the shift", TESTS),
    Site("brackets/symmetrised-fixed-size", "upper bound", BRACKETS,
         "    sym = symmetrised(up_f, up_b)\n",
         "    sym = up_f\n",
         "_fixed_size: replace-one's upper bound from the symmetrised pair (dominating either order at every step)",
         TESTS),
    Site("brackets/symmetrised-infinite", "upper bound", BRACKETS,
         "    infinite = max(forward.infinite, backward.infinite, float(np.max(need[upper_half])), 0.0) * (1 + 4 * _U)",
         "    infinite = max(forward.infinite, backward.infinite, 0.0)",
         "symmetrised: the mass at +inf covers whatever the knots >= 0 still need", TESTS),
    Site("brackets/symmetrised-at-zero", "upper bound", BRACKETS,
         "    mass[zero] = at_zero\n",
         "",
         "symmetrised: the mass at loss 0 covers the knots below 0 and the total", TESTS),
    Site("brackets/both-orders-upper", "upper bound", BRACKETS,
         "                eps_upper = max(eps_upper, hint)",
         "                eps_upper = hint if direction == FORWARD else eps_upper",
         "certify: the upper bound is the larger of the two orders'", TESTS),
    Site("brackets/both-orders-delta-upper", "upper bound", BRACKETS,
         "                delta_upper = max(delta_upper, du)",
         "                delta_upper = du if direction == FORWARD else delta_upper",
         "certify: delta's upper bound is the larger of the two orders'", TESTS),
    Site("brackets/closed-form-slack", "both bounds", BRACKETS,
         "    slack = 2.0**-199 + abs(v) * 2.0**-52\n",
         "    slack = 0.0\n",
         "gaussian_delta: the 256-bit value widened by its error and a float's rounding", TESTS),
)

HEADER = """# Safeguard mutation sweep: certified DP-SGD accounting

Every safeguard the certified brackets of `dpaudit.exact.accounting` rest on (a rounding direction, an error bound
added, both orders of the neighbouring datasets, the high-precision certification of the shuffle test), removed or
turned the wrong way one at a time, with the site's tests run by `pytest -x -q`. A site is *killed* when at least
one test fails. Regenerate with `python tools/mutation/safeguard_sweep.py` (one site: `--only NAME`); the sites,
their exact texts and their tests are in `tools/mutation/safeguard_sweep.py`.

| site | guards | where | mutation | result | killed by |
| --- | --- | --- | --- | --- | --- |
"""

SWEEP = Sweep("safeguard_sweep", SITES, REPORT, HEADER)

if __name__ == "__main__":
    sys.exit(main(SWEEP, __doc__.splitlines()[0]))
