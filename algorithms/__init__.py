"""Bandit and online-learning algorithms, their environments, and the vectorised simulation
engine, installed as ``dpaudit.algorithms``. Algorithms are audited on their output sequences
(privacy) and through regret; none is implemented yet."""
