"""Figures for answering many queries: independent noise against MWEM (notebook 22, app page).

The crossover: answering k counting queries *independently* at total ε costs noise that
grows with k (:mod:`dpteach.queries.independent`); MWEM's synthetic data (:mod:`dpteach.queries.mwem`)
pays for T measurements only, so its error barely grows with k. Past some k it wins.

In the crossover figures the independent lines are exact expectations
(:func:`dpteach.queries.independent.independent_max_error`, computed here); MWEM's points
come from the shipped grid (:func:`dpteach.tables.load_crossover_grid`, made with
:func:`dpteach.queries.mwem.compare_independent` on :func:`crossover_workload` and the seeds
of :func:`crossover_rng`), so a slider move computes nothing heavy.

References
----------
.. [HLM12] M. Hardt, K. Ligett and F. McSherry. A simple and practical algorithm for
   differentially private data release. NeurIPS 2012.
.. [HR10] M. Hardt and G. N. Rothblum. A multiplicative weights mechanism for
   privacy-preserving data analysis. FOCS 2010.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._validation import EPSILON, Domain, array, integer, real, refuse, validate
from ..queries.linear import adult_universe, conjunction_queries, random_queries
from ..queries.independent import independent_max_error
from .. import tables
from ._style import PALETTE, shipped_table
from .figure import FigureData, Rule, Series, drawn

__all__ = [
    "CROSSOVER_KS", "CROSSOVER_EPSILONS", "CROSSOVER_T", "CROSSOVER_PASSES", "CROSSOVER_REPEATS",
    "CROSSOVER_DELTA", "crossover_workload", "crossover_rng", "NEEDED_COLUMNS", "NEEDED_EPSILONS",
    "needed_workload",
    "needed_data", "plot_needed",
    "boosting_rounds_data", "plot_boosting_rounds",
    "crossover_data", "plot_crossover",
    "crossover_epsilon_data", "plot_crossover_epsilon",
    "mwem_rounds_data", "plot_mwem_rounds",
    "pmw_errors_data", "plot_pmw_errors",
]

#: The numbers of queries of the grid (and of the app's k slider): 10 … 10,000, log-spaced.
CROSSOVER_KS: tuple[int, ...] = (10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000,
                                 1500, 2000, 3000, 5000, 7000, 10000)
#: The ε's of the grid: the app's ε slider values (about six per decade, 0.01 to 10).
CROSSOVER_EPSILONS: tuple[float, ...] = tuple(
    round(m * 10.0 ** e, 10) for e in (-2, -1, 0) for m in (1, 1.5, 2, 3, 5, 7)) + (10.0,)
CROSSOVER_T = 30             #: MWEM's rounds in the grid
CROSSOVER_PASSES = 10        #: MWEM's extra passes over past measurements in the grid
CROSSOVER_REPEATS = 5        #: MWEM runs per (k, ε) in the grid
CROSSOVER_DELTA = 1e-6       #: δ of the Gaussian (zCDP) line
WORKLOAD_SEED = 2024         #: seed of the random workload (its first k rows for each k)
GRID_SEED = 14               #: first part of every grid entry's seed (see crossover_rng)
ROUNDS_MAX = 1_000           #: most points in plot_mwem_rounds / errors per point
PMW_QUERIES_MAX = 100_000    #: most answers in plot_pmw_errors
#: A setting where MWEM is needed: a large universe of Adult's columns (40,320 cells) ...
NEEDED_COLUMNS = ("age", "sex", "race", "education", "marital-status", "relationship")
NEEDED_K = 240               #: ... many overlapping conjunction queries (k·|U| ≤ 10**7) ...
NEEDED_EPSILONS = (0.02, 0.03, 0.05, 0.1, 0.2)   #: ... and small budgets
NEEDED_T, NEEDED_PASSES, NEEDED_RUNS, NEEDED_SEED = 20, 10, 10, 22

#: a cell of the precomputed grid: k of CROSSOVER_KS and ε of CROSSOVER_EPSILONS
GRID_K: Domain = Domain(f"one of the grid's k {list(CROSSOVER_KS)}",
                lambda name, value: _on_grid(name, value, GRID_K, CROSSOVER_KS, int),
                example=100, edges=(10, 10000), bad=[11, 0, 2.5, "10", None, True])
GRID_EPSILON: Domain = Domain(f"one of the grid's ε {list(CROSSOVER_EPSILONS)}",
                      lambda name, value: _on_grid(name, value, GRID_EPSILON, CROSSOVER_EPSILONS,
                                                   float),
                      example=1.0, edges=(0.01, 10.0), bad=[0.011, 0.0, "1", None, True])
#: MWEM results: the numbers of rounds and the largest errors (fractions of n)
ROUNDS = array(ndim=1, low=1, high=10**6, integers=True, max_size=ROUNDS_MAX,
               example=[1, 5, 10])
ERRORS = array(ndim=(1, 2), low=0.0, high=1e15, example=[0.3, 0.2, 0.25])
PMW_ERRORS = array(ndim=1, low=0.0, high=1e15, max_size=PMW_QUERIES_MAX,
                   example=[0.1, 0.02, 0.3])
UPDATED = array(ndim=1, low=0, high=1, integers=True, booleans=True, max_size=PMW_QUERIES_MAX,
                example=[False, False, True])

_NAMES = {
    "laplace": ("independent Laplace, ε/k per query", PALETTE["vermillion"], "solid"),
    "gaussian": ("independent Gaussian, zCDP (δ = 1e-6)", PALETTE["orange"], "dashed"),
    "mwem": ("MWEM synthetic data (average, as published)", PALETTE["blue"], "solid"),
    "mwem-last": ("MWEM, last distribution", PALETTE["sky"], "dotted"),
}


def _fmt(x: float) -> str:
    return f"{x:.3g}"


# ---------------------------------------------------------------- the workload and grid
@functools.lru_cache(maxsize=1)
def crossover_workload():
    """``(universe, hist, queries)`` of the crossover: Adult on age × sex × race.

    The universe is :func:`dpteach.queries.linear.adult_universe` (60 cells), ``hist`` the
    histogram of all 48,842 people of :func:`dpteach.datasets.load_adult`, and ``queries``
    10,000 random counting queries (:func:`dpteach.queries.linear.random_queries`, seed
    :data:`WORKLOAD_SEED`); the workload of k queries is ``queries.first(k)``.
    """
    from ..datasets import load_adult

    universe = adult_universe()
    hist = universe.to_histogram(load_adult())
    hist.setflags(write=False)
    return universe, hist, random_queries(universe, max(CROSSOVER_KS), rng=WORKLOAD_SEED)


@functools.lru_cache(maxsize=1)
def needed_workload():
    """``(universe, hist, queries)`` where MWEM is needed: Adult on :data:`NEEDED_COLUMNS`.

    6 × 2 × 5 × 16 × 7 × 6 = 40,320 cells, all 48,842 people, and 240 random conjunctions
    (:func:`dpteach.queries.linear.conjunction_queries`, seed :data:`NEEDED_SEED`).
    """
    from ..datasets import load_adult

    universe = adult_universe(NEEDED_COLUMNS)
    hist = universe.to_histogram(load_adult())
    hist.setflags(write=False)
    return universe, hist, conjunction_queries(universe, NEEDED_K, rng=NEEDED_SEED)


@validate(k=integer(1, 10**5, example=10), epsilon=real(0.0, 1e9, low_open=True))
def crossover_rng(k: int, epsilon: float) -> np.random.Generator:
    """The generator of the grid entry (k, ε): seeded by ``(GRID_SEED, k, round(ε·10⁶))``."""
    return np.random.default_rng((GRID_SEED, k, int(round(epsilon * 1e6))))


def _grid() -> dict:
    return shipped_table(tables.load_crossover_grid, tables.CROSSOVER_TABLE,
                         "scripts/precompute_many_queries.py")


def _lines(xs, pairs, n: float) -> dict:
    """Independent expectations and MWEM grid numbers along a list of (k, ε) cells."""
    table = _grid()
    out: dict[str, list[float]] = {"laplace": [], "gaussian": [], "mwem": [], "mwem-last": [],
                                   "low": [], "high": []}
    for i_eps, i_k in pairs:
        k, eps = CROSSOVER_KS[i_k], CROSSOVER_EPSILONS[i_eps]
        out["laplace"].append(independent_max_error(k, eps, n=n))
        out["gaussian"].append(independent_max_error(k, eps, n=n, mechanism="gaussian",
                                                     delta=CROSSOVER_DELTA))
        runs = table["mwem"][i_eps, i_k]
        out["mwem"].append(float(runs.mean()))
        out["mwem-last"].append(float(table["mwem_last"][i_eps, i_k].mean()))
        out["low"].append(float(runs.min()))
        out["high"].append(float(runs.max()))
    return {key: np.asarray(v) for key, v in out.items()}


def _crossover_figure(x, lines, *, x_title, title, rule, mark_index, n) -> FigureData:
    series = [Series(key, _NAMES[key][0], x, lines[key], colour=_NAMES[key][1],
                     dash=_NAMES[key][2], width=2.5 if key == "mwem" else 2.0)
              for key in ("laplace", "gaussian", "mwem", "mwem-last")]
    series.insert(2, Series("mwem-band", "", x, lines["low"], kind="band", y2=lines["high"],
                            colour=PALETTE["blue"], opacity=0.2))
    at = {key: float(lines[key][mark_index]) for key in ("laplace", "gaussian", "mwem",
                                                         "mwem-last")}
    return FigureData(
        title=title, x_title=x_title,
        y_title="largest error over the k queries (fraction of n)",
        series=tuple(series), rules=(rule,), log_x=True, log_y=True,
        x_integer="number" in x_title, extra={"at": at, "x": np.asarray(x, dtype=float), "n": n})


@validate(k=GRID_K, epsilon=GRID_EPSILON)
def crossover_data(k: int, epsilon: float) -> FigureData:
    """Largest error over k random counting queries against k, at one total ε.

    On :func:`crossover_workload` (Adult, 60 cells, n = 48,842) and for every k of
    :data:`CROSSOVER_KS`:

    * ``"laplace"`` — independent Laplace, ε/k per query: expected maximum ``k·H_k/(nε)``;
    * ``"gaussian"`` — independent Gaussian, zCDP budget at (ε, δ = 1e-6): ``σ·E max|Z|``;
    * ``"mwem"`` — MWEM (T = 30, 10 extra passes) at total ε: mean of the shipped runs,
      with their range (``"mwem-band"``); ``"mwem-last"`` its last distribution.

    The rule ``k`` marks the chosen k (one of :data:`CROSSOVER_KS`; ``epsilon`` one of
    :data:`CROSSOVER_EPSILONS`). ``extra``: ``at`` (the four errors at k), ``x``, ``n``.
    """
    i_k, i_eps = CROSSOVER_KS.index(k), CROSSOVER_EPSILONS.index(epsilon)
    n = float(_grid()["meta"]["n"])
    lines = _lines(CROSSOVER_KS, [(i_eps, j) for j in range(len(CROSSOVER_KS))], n)
    return _crossover_figure(
        CROSSOVER_KS, lines, x_title="number of queries k (log scale)",
        title=f"Answering k counting queries at total ε = {_fmt(epsilon)}\n"
              f"Adult, 60 cells, n = {n:,.0f}; MWEM with T = {CROSSOVER_T}",
        rule=Rule("k", "x", float(k), label=f"k = {k:,}"), mark_index=i_k, n=n)


plot_crossover = drawn(crossover_data, figsize=(7.0, 4.4))


@validate(k=GRID_K, epsilon=GRID_EPSILON)
def crossover_epsilon_data(k: int, epsilon: float) -> FigureData:
    """The lines of :func:`crossover_data` against ε (every :data:`CROSSOVER_EPSILONS`) at k.

    Independent noise falls like 1/ε; MWEM's error levels off at what T rounds can fit, so
    for large ε independent answers win again. The rule ``epsilon`` marks the chosen ε.
    """
    i_k, i_eps = CROSSOVER_KS.index(k), CROSSOVER_EPSILONS.index(epsilon)
    n = float(_grid()["meta"]["n"])
    lines = _lines(CROSSOVER_EPSILONS, [(i, i_k) for i in range(len(CROSSOVER_EPSILONS))], n)
    return _crossover_figure(
        CROSSOVER_EPSILONS, lines, x_title="total privacy budget ε (log scale)",
        title=f"Answering k = {k:,} counting queries: error against ε\n"
              f"Adult, 60 cells, n = {n:,.0f}; MWEM with T = {CROSSOVER_T}",
        rule=Rule("epsilon", "x", float(epsilon), label=f"ε = {_fmt(epsilon)}"),
        mark_index=i_eps, n=n)


plot_crossover_epsilon = drawn(crossover_epsilon_data, figsize=(7.0, 4.4))


_NEEDED = {  # method: (label, colour, dash)
    "histogram": ("noisy histogram (Laplace on every cell)", PALETTE["green"], "solid"),
    "laplace_l1": ("independent Laplace (best calibration)", PALETTE["vermillion"], "solid"),
    "mwem": ("MWEM synthetic data (average, as published)", PALETTE["blue"], "solid"),
    "gaussian": ("independent Gaussian (needs δ = 1e-6)", PALETTE["orange"], "dashed"),
}


def needed_data() -> FigureData:
    """Where MWEM is needed: each method's largest error against ε (the shipped runs).

    On :func:`needed_workload` (40,320 cells, 240 conjunctions, n = 48,842), from
    :func:`dpteach.tables.load_mwem_needed`: for the noisy histogram, independent Laplace
    (ℓ1 calibration) and MWEM, the median over the runs (a line) and their range (a band);
    the Gaussian's median, dashed (a weaker guarantee); the data-free uniform answer's
    error, a rule.
    """
    table = tables.load_mwem_needed()
    eps = np.asarray(table["epsilons"], dtype=float)
    series = []
    for key, (label, colour, dash) in _NEEDED.items():
        runs = np.asarray(table[key])
        series.append(Series(key, label, eps, np.median(runs, axis=1), colour=colour,
                             dash=dash, width=2.5 if key == "mwem" else 2.0))
        if key != "gaussian":
            series.append(Series(f"{key}-band", "", eps, runs.min(axis=1), kind="band",
                                 y2=runs.max(axis=1), colour=colour, opacity=0.15))
    meta = table["meta"]
    return FigureData(
        title=f"{meta['k']} overlapping questions about {meta['n']:,.0f} people, "
              f"{meta['universe']['size']:,} cells",
        x_title="total privacy budget ε (log scale)",
        y_title="largest error over the queries (fraction of n)",
        series=tuple(series), log_x=True, log_y=True,
        rules=(Rule("uniform", "y", float(table["uniform"]),
                    label="answer as if everyone were spread evenly (no data)"),),
        extra={"n": float(meta["n"])})


plot_needed = drawn(needed_data, figsize=(7.0, 4.4))


@validate(median_errors=PMW_ERRORS, round_errors=PMW_ERRORS,
          reference=real(0.0, 1e15, example=0.1).or_none())
def boosting_rounds_data(median_errors, round_errors, *, reference=None) -> FigureData:
    """Boosting for queries round by round (:func:`dpteach.queries.boosting.boosting_for_queries`).

    ``median_errors[t]``: the largest error (fraction of n) of the median of the first t + 1
    synopses; ``round_errors[t]``: of round t + 1's synopsis alone; ``reference``, e.g.
    MWEM's error at the same ε, a rule.
    """
    if median_errors.size != round_errors.size:
        raise refuse("round_errors", round_errors, f"one per round ({median_errors.size})")
    t = np.arange(1, median_errors.size + 1)
    rules = () if reference is None else (
        Rule("reference", "y", float(reference), label="MWEM at the same ε"),)
    return FigureData(
        title="Boosting for queries: the median of t synopses against one synopsis alone",
        x_title="round t", y_title="largest error over the queries (fraction of n)",
        series=(Series("round", "one round's synopsis alone", t, round_errors,
                       colour=PALETTE["sky"], dash="dotted"),
                Series("median", "median of the first t synopses", t, median_errors,
                       colour=PALETTE["blue"], width=2.5)),
        rules=rules, x_integer=True)


plot_boosting_rounds = drawn(boosting_rounds_data, figsize=(7.0, 4.4))


# ------------------------------------------------------------------ notebook figures
@validate(rounds=ROUNDS, errors=ERRORS, epsilon=EPSILON,
          reference=real(0.0, 1e15, example=0.1).or_none())
def mwem_rounds_data(rounds, errors, epsilon: float, *, reference=None) -> FigureData:
    """MWEM's largest error against its number of rounds T (results of :func:`dpteach.queries.mwem.mwem`).

    It falls, then the noise of ever smaller per-round budgets takes over. Series ``mwem``
    (the mean), ``mwem-points`` and ``mwem-band`` (the range, with several runs); rule
    ``reference``; ``extra["best_T"]``, the T with the smallest mean error.

    Parameters
    ----------
    rounds : array_like of int, shape (m,)
        Distinct numbers of rounds T.
    errors : array_like, shape (m,) or (m, r)
        The largest error (fraction of n) of each run: one per T, or r runs per T.
    epsilon : float
        The total ε of every run (for the title).
    reference : float, optional
        A reference error (e.g. independent Laplace at the same ε).
    """
    T, err = rounds, errors
    if np.unique(T).size != T.size or err.shape[0] != T.size \
            or (err.ndim == 2 and err.shape[1] > ROUNDS_MAX):
        raise refuse("rounds, errors", (T, err), f"distinct; a row per round, ≤ {ROUNDS_MAX} runs")
    order = np.argsort(T)
    T, err = T[order], err[order]
    runs = err if err.ndim == 2 else err[:, None]
    mean = runs.mean(axis=1)
    series = []
    if runs.shape[1] > 1:
        series.append(Series("mwem-band", "range over the runs", T, runs.min(axis=1),
                             kind="band", y2=runs.max(axis=1), colour=PALETTE["blue"],
                             opacity=0.2))
    series.append(Series("mwem", "MWEM, mean largest error", T, mean, kind="line",
                         colour=PALETTE["blue"], width=2.5))
    series.append(Series("mwem-points", "", T, mean, kind="points", colour=PALETTE["blue"]))
    rules = () if reference is None else (
        Rule("reference", "y", reference, label="reference", colour=PALETTE["vermillion"],
             dash="dashed"),)
    return FigureData(
        title=f"MWEM: more rounds fit better, until their noise dominates\n"
              f"total ε = {_fmt(epsilon)}, each round ε/(2T) + ε/(2T)",
        x_title="number of rounds T (log scale)", y_title="largest error (fraction of n)",
        series=tuple(series), rules=rules, log_x=True, log_y=bool(np.all(runs > 0)),
        x_integer=True,
        extra={"best_T": int(T[int(np.argmin(mean))]), "mean": mean})


plot_mwem_rounds = drawn(mwem_rounds_data)


@validate(errors=PMW_ERRORS, updated=UPDATED, threshold=real(0.0, 1.0, low_open=True, example=0.1))
def pmw_errors_data(errors, updated, threshold: float) -> FigureData:
    """The error of every answer of an online PMW run, in the order of the queries.

    Series ``free`` (synthetic answers) and ``update`` (paid Laplace answers with an
    update), rule ``threshold``; ``extra``: ``n_updates``, ``max_free`` (largest error of a
    free answer, 0 if none).

    Parameters
    ----------
    errors : array_like, shape (m,)
        ``|answer − true answer| / n`` of each answered query.
    updated : array_like of bool, shape (m,)
        :attr:`dpteach.queries.mwem.PMWResult.updated`.
    threshold : float
        The run's threshold α (fraction of n).
    """
    err, upd, alpha = errors, updated.astype(bool), threshold
    if upd.shape != err.shape:
        raise refuse("updated", upd, f"True/False, one per entry of errors ({err.size})")
    idx = np.arange(1, err.size + 1, dtype=float)
    series = (Series("free", "synthetic answer (free)", idx[~upd], err[~upd], kind="points",
                     colour=PALETTE["blue"], width=1.2),
              Series("update", "Laplace answer + update (paid)", idx[upd], err[upd],
                     kind="points", colour=PALETTE["vermillion"], width=1.8))
    return FigureData(
        title=f"Private multiplicative weights, online: {int(upd.sum())} paid updates for "
              f"{err.size:,} answers\nthreshold α = {_fmt(alpha)}",
        x_title="query number", y_title="error of the released answer (fraction of n)",
        x_integer=True,
        series=series,
        rules=(Rule("threshold", "y", alpha, label="threshold α", dash="dashed"),),
        extra={"n_updates": int(upd.sum()),
               "max_free": float(err[~upd].max()) if (~upd).any() else 0.0})


plot_pmw_errors = drawn(pmw_errors_data, figsize=(7.0, 4.0))


def _on_grid(name: str, value, domain: Domain, grid: tuple, kind: type):
    """The value of ``grid`` that ``value`` is (within 1e-9, relatively)."""
    allowed = isinstance(value, (int, np.integer)) or (
        kind is float and isinstance(value, (float, np.floating)))
    if allowed and not isinstance(value, (bool, np.bool_)):
        for g in grid:
            if math.isclose(value, g, rel_tol=1e-9):
                return g
    raise domain.refuse(name, value)
