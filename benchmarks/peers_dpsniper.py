"""DP-Sniper's side of benchmarks/peers.py, run by an interpreter that has torch (DP-Sniper needs it; dpaudit does not).

    PYTHON benchmarks/peers_dpsniper.py --checkout PATH --row svt|noisy-max --pairs JSON --samples N
        [--selection N] [--confidence 0.99] [--processes 2] [--mlp]

PATH is a checkout of https://github.com/eth-sri/dp-sniper, imported from there, never copied. This file imports
nothing of dpaudit, so that it runs in DP-Sniper's own environment (``pip install torch==2.13.0`` then the
checkout's ``setup.py`` requirements). It prints one line of JSON: the certified value, the estimate, the pair,
the seconds.

DP-Sniper is run as its DD-Search runs (``dpsniper.example``, ``experiments.exp_default``): for each input pair in
both orders, a classifier is trained on ``--selection`` samples per side, its threshold is set on ``--selection``
samples, and the attack's epsilon is estimated on ``--selection`` samples per side; the pair with the largest
estimate is kept and its lower confidence bound is computed on ``--samples`` fresh samples per side (its
``compute_eps_high_precision``), at ``--confidence``. The classifier is exp_default's logistic regression (its MLP
with ``--mlp``) with exp_default's feature transform per mechanism. DP-Sniper's own default sample sizes are
10.7 * 10^6 for each selection stage and 2 * 10^8 for the final bound.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def build(row: str):
    """DP-Sniper's mechanism, output dimension and feature transform for a row of benchmarks/peers.py."""
    from dpsniper.classifiers.feature_transformer import FlagsFeatureTransformer
    from dpsniper.mechanisms.report_noisy_max import ReportNoisyMax1
    from dpsniper.mechanisms.sparse_vector_technique import SparseVectorTechnique1

    if row == "svt":  # Lyu et al. Alg. 1, eps = 1, c = 1, T = 0.5; answers 1 / 0 / -1 (aborted), flagged as exp_default
        return SparseVectorTechnique1(eps=1.0, c=1, t=0.5), 20, FlagsFeatureTransformer([-1]), "svt"
    if row == "noisy-max":  # Laplace(2/eps) report noisy max, index only
        return ReportNoisyMax1(eps=0.7), 1, None, "noisy-max"
    raise SystemExit(f"unknown row {row!r}")


def classifier_factory(dimensions: int, transform, label: str, mlp: bool):
    """exp_default's two classifiers, with its hyper-parameters."""
    from dpsniper.classifiers.classifier_factory import LogisticRegressionFactory, MultiLayerPerceptronFactory
    from dpsniper.classifiers.torch_optimizer_factory import AdamOptimizerFactory, SGDOptimizerFactory

    if mlp:
        return MultiLayerPerceptronFactory(in_dimensions=dimensions, hidden_sizes=(10, 5),
                                           optimizer_factory=AdamOptimizerFactory(learning_rate=0.1, step_size=500),
                                           feature_transform=transform, regularization_weight=0.0001, epochs=10,
                                           label=label)
    return LogisticRegressionFactory(in_dimensions=dimensions,
                                     optimizer_factory=SGDOptimizerFactory(learning_rate=0.3, momentum=0.3,
                                                                           step_size=500),
                                     feature_transform=transform, regularization_weight=0.001, epochs=10, label=label)


class GivenPairs:
    """The pairs dpaudit and StatDP get, each in both orders as DP-Sniper's PatternGenerator yields them (DD-Search
    only calls ``get_input_pairs``; a class of this module, so that DP-Sniper's spawned workers can unpickle it)."""

    def __init__(self, pairs):
        self.pairs = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) for a, b in pairs]

    def get_input_pairs(self):
        for a, b in self.pairs:
            yield a, b
            yield b, a


def round_samples(n: int) -> int:
    """DP-Sniper refuses sample sizes of 10^4 or more that are not multiples of 1000."""
    return n if n < 10_000 else n - n % 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkout", required=True)
    parser.add_argument("--row", required=True, choices=("svt", "noisy-max"))
    parser.add_argument("--pairs", required=True, help="JSON list of [a, b] input pairs")
    parser.add_argument("--samples", type=int, required=True, help="samples per side for the final bound")
    parser.add_argument("--selection", type=int, default=1_000_000, help="samples per stage of the pair's search")
    parser.add_argument("--confidence", type=float, default=0.99)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--mlp", action="store_true")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(Path(args.checkout).resolve()))
    from dpsniper.attack.dpsniper import DPSniper
    from dpsniper.search.ddconfig import DDConfig
    from dpsniper.search.ddsearch import DDSearch
    from dpsniper.utils.initialization import initialize_dpsniper

    mechanism, dimensions, transform, label = build(args.row)
    selection = round_samples(args.selection)
    config = DDConfig(n_train=selection, n=selection, n_check=selection, n_final=round_samples(args.samples),
                      n_processes=args.processes, confidence=args.confidence)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as out, initialize_dpsniper(config, out_dir=out):
        search = DDSearch(mechanism, DPSniper(mechanism, classifier_factory(dimensions, transform, label, args.mlp),
                                              config), GivenPairs(json.loads(args.pairs)), config)
        witness = search.run()
        witness.compute_eps_high_precision(mechanism, config)
    print(json.dumps({"bound": float(witness.lower_bound), "estimate": float(witness.eps),
                      "pair": [list(map(float, witness.a1)), list(map(float, witness.a2))],
                      "seconds": time.perf_counter() - start}))


if __name__ == "__main__":
    main()
