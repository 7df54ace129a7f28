"""Answering many queries: why independent noise fails, and what does better.

* :mod:`~dpteach.queries.linear` — a finite universe, histograms and linear (counting)
  queries: marginals and random queries;
* :mod:`~dpteach.queries.independent` — every query answered with its own noise (Laplace,
  or Gaussian under zCDP), and their expected worst error;
* :mod:`~dpteach.queries.mwem` — private multiplicative weights (online, on sparse vector)
  and MWEM (synthetic data);
* :mod:`~dpteach.queries.boosting` — boosting for queries (Dwork, Rothblum & Vadhan).

Neighbouring datasets: independent answers are private when one person is added or removed;
PMW and MWEM when one person is replaced (they use the number of people n, which is public).
"""

from .independent import gaussian_answers, laplace_answers
from .linear import LinearQueries, Universe, marginal_queries, random_queries
from .mwem import private_multiplicative_weights
from .boosting import boosting_for_queries

__all__ = [
    "Universe", "LinearQueries", "marginal_queries", "random_queries",
    "laplace_answers", "gaussian_answers", "private_multiplicative_weights",
    "boosting_for_queries",
]
