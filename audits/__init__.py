"""Audit suites, installed as ``dpaudit.audits``: one module per paper key plus ``classic``.

Each module defines ``suite = dpaudit.suite.Suite(key, title)`` and adds its entries; every
module here is discovered by :func:`dpaudit.suite.load_suites`.

May import anything; nothing imports it but discovery (:mod:`dpaudit.suite.discovery`, and
:mod:`dpaudit.bandits.experiments.presets` for ``experiments/``), by import path.
"""
