"""Figures for composition and privacy accounting (notebooks 05 and 06, app pages).

All numbers come from :mod:`dpteach.accounting` / :mod:`dpteach.accounting.composition`.
Some are slow: PLD (up to seconds each) and the optimal composition bound (O(k) per k).
For the values the app's sliders offer (the grids below) they are read from small shipped
tables (:func:`dpteach.tables.load_composition_table`,
:func:`dpteach.tables.load_planner_table`), so that no slider move waits for them; any
other arguments are computed.
"""

from __future__ import annotations

import functools
from typing import Any, cast

import numpy as np

from .. import tables
from .._validation import (DELTA_POSITIVE, Domain, ParameterError, array, choice, describe,
                           integer, real, refuse, validate)
from ..accounting.compare import (METHOD_LABELS, METHODS, QUERY_SIGMA, composition_epsilons,
                                  dpsgd_epsilons)
from ..accounting.composition import amplify_by_subsampling
from ._style import CYCLE, PALETTE, refuse_undrawable, refuse_undrawable_log
from .figure import FigureData, Rule, Series, drawn

__all__ = ["composition_data", "plot_composition", "dpsgd_epsilon_data", "plot_dpsgd_epsilon",
           "amplification_data", "plot_amplification", "planner_run", "planner_pld_steps"]

K_MAX_LIMIT = 100_000        # plot_composition: largest k_max (and mark_k)
STEPS_MAX_LIMIT = 10**6      # plot_dpsgd_epsilon: largest steps_max (and mark_steps)
PLD_POINTS_LIMIT = 100       # plot_dpsgd_epsilon: each PLD point costs up to ~35 ms


def _methods(name, value):
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, str) and v in METHODS for v in value) and len(set(value)) == len(value):
        return tuple(value)
    raise ACCOUNTING_METHODS.refuse(name, value)


#: a non-empty list or tuple of accounting methods, each once
ACCOUNTING_METHODS = Domain("a non-empty list or tuple of distinct names from "
                            + ", ".join(map(repr, METHODS)), _methods,
                            example=("basic", "advanced", "optimal"),
                            edges=(("basic",), METHODS),
                            bad=["basic", None, [], ["moments"], [1], ["basic", "basic"], 3])
#: the composition figure's largest k (work: the optimal bound is O(k) per k)
K_MAX = integer(2, K_MAX_LIMIT, example=1000, work=True)
#: the DP-SGD figure's largest number of steps (work: PLD's cost grows with it)
STEPS_MAX = integer(2, STEPS_MAX_LIMIT, example=15_000, work=True)
#: ε₀ of the composition figure's Laplace queries: up to 10, the app's largest (the PLD of
#: 20 queries takes seconds at ε₀ = 50 and its grid is refused at 500)
QUERY_EPSILON_SHOWN = real(1e-6, 10.0, example=0.1)
#: σ of a DP-SGD run, from the planner's smallest (0.3): PLD's cost grows as σ shrinks
#: (two PLD points of 50 steps take 0.6 s at σ = 0.3, 5 s at σ = 0.1)
RUN_SIGMA = real(0.3, 1e6, example=1.1)
#: Poisson sampling rate q of a DP-SGD run
RUN_RATE = real(1e-9, 1.0, example=0.01)
#: numbers of steps at which PLD is shown
PLD_STEPS = array(ndim=1, min_size=0, max_size=PLD_POINTS_LIMIT, low=1, high=STEPS_MAX_LIMIT,
                  integers=True, text=f"at most {PLD_POINTS_LIMIT} whole numbers in "
                  f"[1, {STEPS_MAX_LIMIT}]")
#: plot_amplification's ε's: amplify_by_subsampling's per-mechanism ε, at most 12 lines
AMPLIFIED_EPSILONS = array(ndim=(0, 1), low=1e-12, high=500.0, max_size=12,
                           text="1 to 12 numbers in [1e-12, 500]", example=[0.5, 1.0]).flat()
#: the planner's dataset size, batch and epochs
RUN = dict(n=integer(1, 10**9, example=60_000), batch=integer(1, 10**9, example=256),
           epochs=integer(1, 10**6, example=10))

# ----------------------------------------------------------------- the app's slider grids
# The pages "Composition & budget" and "DP-SGD planner" offer exactly these values;
# scripts/precompute_app_tables.py precomputes the slow numbers over them (the pages,
# the script and tests/test_tables.py import them from here, without Streamlit).

#: Composition page: numbers of queries k.
COMPOSITION_KS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000, 5000)
#: Composition page: per-query ε₀ of the Laplace queries (1-1.5-2-3-5-7 per decade).
COMPOSITION_EPSILONS = tuple(
    round(m * 10.0 ** e, 10) for e in (-2, -1, 0) for m in (1, 1.5, 2, 3, 5, 7)
) + (10.0,)
#: Composition page: noise σ of the Gaussian queries.
COMPOSITION_SIGMAS = (0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0, 50.0)
#: Composition page: total δ (> 0: every method but basic needs it).
COMPOSITION_DELTAS = tuple(10.0 ** -k for k in range(10, 1, -1))
#: Composition page: the figure shows k = 1 … COMPOSITION_K_MAX (and the chosen k).
COMPOSITION_K_MAX = 1000

#: DP-SGD planner: dataset sizes n.
PLANNER_DATASET_SIZES = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 60_000, 100_000,
                         200_000, 500_000, 1_000_000)
#: DP-SGD planner: expected batch sizes.
PLANNER_BATCH_SIZES = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
#: DP-SGD planner: numbers of epochs.
PLANNER_EPOCHS = (1, 2, 3, 5, 10, 20, 30, 50, 64, 100, 200)
#: DP-SGD planner: noise multipliers σ.
PLANNER_SIGMAS = (0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.5, 2.0, 3.0, 5.0, 10.0)
#: DP-SGD planner: δ.
PLANNER_DELTAS = tuple(10.0 ** -k for k in range(10, 1, -1))


def _batch_in(n: int, batch: int) -> None:
    if batch > n:
        raise refuse("batch", batch, f"at most n = {n}")


@validate(**RUN)
def planner_run(n: int, batch: int, epochs: int) -> tuple[float, int]:
    """Sampling rate q = batch/n and steps T = max(1, round(epochs/q)) of a planned run.

    The DP-SGD planner's arithmetic (one epoch = 1/q steps of Poisson sampling), here so
    that the page and the precomputed tables use the same floats. ``n`` is the dataset
    size, ``batch`` the expected batch size (at most n).
    """
    _batch_in(n, batch)
    q = batch / n
    return q, max(1, round(epochs / q))


@validate(**RUN)
def planner_pld_steps(n: int, batch: int, epochs: int) -> tuple[int, ...]:
    """Steps at which the planner marks PLD: T after each epoch count of the grid ≤ ``epochs``.

    The planner's figure shows PLD at these runs (their values are in the shipped
    table), always including the run itself. Arguments as :func:`planner_run`.
    """
    _batch_in(n, batch)
    counts = [e for e in PLANNER_EPOCHS if e < epochs] + [epochs]
    return tuple(sorted({planner_run(n, batch, e)[1] for e in counts}))


#: The planner table holds runs of at most this many steps (longer: a button on the page).
PLANNER_TABLE_MAX_STEPS = 10**6


def _composition_ks(k_max: int, mark_k: int | None = None) -> np.ndarray:
    """The k's of :func:`composition_data`: ~24 log-spaced k in [1, k_max], and ``mark_k``."""
    ks = _k_grid(k_max)
    return ks if mark_k is None else np.union1d(ks, [mark_k])


def composition_table_ks() -> np.ndarray:
    """Every k the composition page shows: its figure's k grid with each slider k marked."""
    return np.unique(np.concatenate([_composition_ks(COMPOSITION_K_MAX, k)
                                     for k in COMPOSITION_KS]))


def planner_table_runs() -> list[tuple[float, int]]:
    """Every run (q, T) of the planner's sliders with T ≤ :data:`PLANNER_TABLE_MAX_STEPS`."""
    runs = {planner_run(n, b, e) for n in PLANNER_DATASET_SIZES for b in PLANNER_BATCH_SIZES
            if b <= n for e in PLANNER_EPOCHS}
    return sorted(r for r in runs if r[1] <= PLANNER_TABLE_MAX_STEPS)


#: each accounting method's colour and dash (the composition figures of this module and
#: of :mod:`.budget`)
METHOD_COLOURS = {"basic": PALETTE["black"], "advanced": PALETTE["orange"],
                  "optimal": PALETTE["green"], "rdp": PALETTE["blue"], "pld": PALETTE["vermillion"]}
METHOD_DASHES = {"basic": "dotted", "advanced": "dashed", "optimal": "dashdot", "rdp": "solid",
                 "pld": "solid"}


def _k_grid(k_max: int, n: int = 24) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, k_max, n)).astype(int))


def _call(func, plot_args: dict, *args, **kwargs):
    """``func(*args, **kwargs)``; a refusal is re-raised with the plot's own arguments.

    The accounting functions see the grid (``ks``, ``steps``) built from ``k_max`` or
    ``steps_max``, not the plot's arguments; the message then names both.
    """
    try:
        return func(*args, **kwargs)
    except ParameterError as exc:
        got = ", ".join(f"{k}={describe(v)}" for k, v in plot_args.items())
        raise ParameterError(f"{exc} [for the plot's arguments {got}]") from None


# ------------------------------------------------------------------ precomputed tables
@functools.lru_cache(maxsize=None)
def _table(load):
    """``(arrays, index)`` of the shipped table ``load()`` reads, or None; ``index`` maps each
    axis name to ``{value: position}`` (exact float equality: the table is used only for
    arguments that are the very floats of the slider grids)."""
    arrays = load()
    if arrays is None:
        return None
    index = {name: {v.item(): i for i, v in enumerate(arrays[name])}
             for name in ("epsilons", "sigmas", "ks", "deltas") if name in arrays}
    if "sample_rates" in arrays:
        index["runs"] = {(q.item(), int(t)): i
                         for i, (q, t) in enumerate(zip(arrays["sample_rates"], arrays["steps"]))}
    return arrays, index


#: The composition methods read from the table (PLD: seconds at large kε₀; the exact
#: KOV bound: O(k) per k, ~50 ms for a figure), per mechanism.
COMPOSITION_TABLED = {"laplace": ("optimal", "pld"), "gaussian": ("optimal",)}


def _composition_tabled(method: str, ks: np.ndarray, mechanism: str, value: float,
                        delta: float, plot_args: dict) -> np.ndarray:
    """Total ε by ``method`` for each k: shipped table, else computed (``value``: ε₀ or σ)."""
    out = np.full(ks.size, np.nan)
    table = _table(tables.load_composition_table)
    if table is not None:
        arrays, index = table
        axis = "epsilons" if mechanism == "laplace" else "sigmas"
        i, d = index[axis].get(value), index["deltas"].get(delta)
        if i is not None and d is not None:
            values = arrays[f"{mechanism}_{method}"]
            for j, k in enumerate(ks):
                pos = index["ks"].get(int(k))
                if pos is not None:
                    out[j] = values[i, pos, d]
    missing = np.isnan(out)
    if missing.any():
        kw = dict(epsilon=value) if mechanism == "laplace" else dict(sigma=value)
        out[missing] = _call(composition_epsilons, plot_args, ks[missing], mechanism=mechanism,
                             delta=delta, methods=(method,), **kw)[method]
    return out


def _dpsgd_pld(steps: np.ndarray, sigma: float, q: float, delta: float,
               plot_args: dict) -> np.ndarray:
    """PLD ε after each number of DP-SGD steps: shipped table, else computed."""
    out = np.full(steps.size, np.nan)
    table = _table(tables.load_planner_table)
    if table is not None:
        arrays, index = table
        s, d = index["sigmas"].get(sigma), index["deltas"].get(delta)
        if s is not None and d is not None:
            for j, t in enumerate(steps):
                pos = index["runs"].get((q, int(t)))
                if pos is not None:
                    out[j] = float(arrays["epsilon"][s, pos, d])
    missing = np.isnan(out)
    if missing.any():
        out[missing] = _call(dpsgd_epsilons, plot_args, steps[missing], noise_multiplier=sigma,
                             sample_rate=q, delta=delta, accountants=("pld",))["pld"]
    return out


# ------------------------------------------------------------------ composition
_COMPOSITION = dict(k_max=K_MAX, mechanism=choice("laplace", "gaussian"),
                    epsilon=QUERY_EPSILON_SHOWN.or_none(), sigma=QUERY_SIGMA.or_none(),
                    delta=DELTA_POSITIVE, methods=ACCOUNTING_METHODS,
                    mark_k=integer(1, K_MAX_LIMIT, work=True).or_none())


@validate(**_COMPOSITION)
def composition_data(k_max: int = 1000, *, mechanism: str = "laplace",
                     epsilon: float | None = 0.1, sigma: float | None = None,
                     delta: float = 1e-5, methods=METHODS,
                     mark_k: int | None = None) -> FigureData:
    """Total ε of k identical queries against k (log–log), one series per method.

    The numbers are :func:`dpteach.accounting.composition_epsilons`' (see there what
    each method assumes; for Gaussian queries the per-query δ₀ = δ/(2k) split). The
    PLD of k Laplace queries and the optimal bound are read from the shipped table
    (bit-for-bit the library's numbers) when ε₀ or σ, δ and k are values of the app's
    sliders, and computed otherwise.

    Parameters
    ----------
    epsilon : float
        Per-query ε₀ (Laplace).
    sigma : float
        Noise σ (Gaussian, sensitivity 1).
    delta : float
        Total δ.
    mark_k : int, optional
        Mark this k with a vertical rule; the curves pass through it (beyond ``k_max``
        too).

    Returns
    -------
    FigureData
        One series per method, keyed by its name (the optimal curve last, drawn above RDP
        and PLD), the rule ``mark_k``, ``extra["ks"]`` and, with ``mark_k``,
        ``extra["at_mark"]`` (method → total ε at ``mark_k``).
    """
    ks = _composition_ks(k_max, mark_k)
    plot_args = dict(k_max=k_max, mechanism=mechanism, epsilon=epsilon, sigma=sigma, delta=delta,
                     methods=methods)
    tabled = COMPOSITION_TABLED.get(mechanism, ())
    fast = tuple(m for m in methods if m not in tabled)
    # the library checks every argument (also when only tabled methods are asked for)
    computed = _call(composition_epsilons, plot_args, ks, mechanism=mechanism, epsilon=epsilon,
                     sigma=sigma, delta=delta, methods=fast or ("basic",))
    # ε₀ or σ: composition_epsilons (above) refused the one the mechanism lacks
    value = cast(float, epsilon if mechanism == "laplace" else sigma)
    curves = {m: computed[m] if m in fast else
              _composition_tabled(m, ks, mechanism, value, delta, plot_args) for m in methods}
    refuse_undrawable_log("the total ε values", plot_args, *curves.values())
    drawn = [m for m in methods if m != "optimal"] + [m for m in methods if m == "optimal"]
    series = tuple(Series(m, METHOD_LABELS[m], ks, curves[m], colour=METHOD_COLOURS[m],
                          dash=METHOD_DASHES[m], width=2.0 if m in ("rdp", "pld") else 1.6)
                   for m in drawn)
    rules = () if mark_k is None else (Rule("mark_k", "x", mark_k, colour="grey", dash="solid"),)
    what = (f"Laplace queries, ε₀ = {epsilon:g} each" if mechanism == "laplace"
            else f"Gaussian queries, σ = {sigma:g} (Δ₂ = 1)")
    extra: dict[str, Any] = {"ks": ks}
    if mark_k is not None:
        j = int(np.searchsorted(ks, mark_k))
        extra["at_mark"] = {m: float(curves[m][j]) for m in methods}
    return FigureData(title=f"Composition of k {what}; total δ = {delta:g}",
                      x_title="number of queries k", y_title="total ε (lower is better)",
                      series=series, rules=rules, log_x=True, log_y=True, x_integer=True,
                      extra=extra)


plot_composition = drawn(composition_data)


# ------------------------------------------------------------------ DP-SGD
_DPSGD = dict(steps_max=STEPS_MAX, noise_multiplier=RUN_SIGMA, sample_rate=RUN_RATE,
              delta=DELTA_POSITIVE, pld_points=integer(0, PLD_POINTS_LIMIT, work=True),
              mark_steps=integer(1, STEPS_MAX_LIMIT).or_none())


@validate(**_DPSGD, pld_steps=PLD_STEPS.or_none())
def dpsgd_epsilon_data(steps_max: int = 15_000, *, noise_multiplier: float = 1.1,
                       sample_rate: float = 256 / 60_000, delta: float = 1e-5,
                       pld_points: int = 8, pld_steps=None,
                       mark_steps: int | None = None) -> FigureData:
    """ε against the number of DP-SGD steps, by RDP (a line) and PLD (points).

    RDP is computed (:func:`dpteach.accounting.dpsgd_epsilons`, milliseconds). PLD
    (up to a second per point) is read from the shipped table (float32: within 2⁻²⁴
    relative of the library's numbers) when σ, q, δ and the number of steps are those of a
    run the DP-SGD planner's sliders offer, and computed otherwise (grid 1e-3).

    Parameters
    ----------
    pld_points : int
        Number of log-spaced PLD evaluations; 0 for RDP only.
    pld_steps : sequence of int, optional
        The numbers of steps at which to show PLD instead (e.g. the planner's runs,
        :func:`planner_pld_steps`).
    mark_steps : int, optional
        Mark this number of steps (e.g. the planned run) with a vertical rule; the RDP
        curve passes through it.

    Returns
    -------
    FigureData
        Series ``rdp`` and ``pld`` (if any), the rule ``mark_steps``;
        ``extra["at_mark"]`` holds ε at ``mark_steps`` by RDP (and by PLD if it is one
        of the PLD steps).
    """
    if pld_steps is not None:
        pts = np.unique(pld_steps.astype(np.int64))
    elif pld_points > 0:
        pts = np.unique(np.round(np.geomspace(1, steps_max, pld_points)).astype(int))
    else:
        pts = np.array([], dtype=np.int64)
    steps = np.unique(np.round(np.geomspace(1, steps_max, 60)).astype(int))
    if mark_steps is not None:
        steps = np.union1d(steps, [mark_steps])
    plot_args = dict(steps_max=steps_max, noise_multiplier=noise_multiplier,
                     sample_rate=sample_rate, delta=delta, pld_points=pld_points)
    sigma, q = noise_multiplier, sample_rate
    rdp = _call(dpsgd_epsilons, plot_args, steps, noise_multiplier=sigma,
                sample_rate=q, delta=delta, accountants=("rdp",))["rdp"]
    pld = _dpsgd_pld(pts, sigma, q, delta, plot_args) if pts.size else None
    # ε is drawn on a linear axis: infinite values are left out, finite ones must fit
    refuse_undrawable("the ε curve", plot_args,
                      *(v[np.isfinite(v)] for v in (rdp, pld) if v is not None))
    series = [Series("rdp", METHOD_LABELS["rdp"], steps, rdp, colour=METHOD_COLOURS["rdp"])]
    if pld is not None:
        # points only: a straight segment between two PLD values is not a PLD value
        # (and would cross the RDP curve)
        series.append(Series("pld", METHOD_LABELS["pld"], pts, pld, kind="points",
                             colour=METHOD_COLOURS["pld"], width=2.8))
    rules: tuple[Rule, ...] = ()
    extra: dict[str, Any] = {}
    if mark_steps is not None:
        rules = (Rule("mark_steps", "x", mark_steps, colour="grey", dash="solid"),)
        at_mark = {"rdp": float(rdp[int(np.searchsorted(steps, mark_steps))])}
        if pld is not None and mark_steps in pts:
            at_mark["pld"] = float(pld[int(np.searchsorted(pts, mark_steps))])
        extra["at_mark"] = at_mark
    return FigureData(title=f"DP-SGD accounting: q = {q:.3g}, σ = {sigma:g}, δ = {delta:g}",
                      x_title="number of training steps T", y_title="ε (lower is better)",
                      series=tuple(series), rules=rules, log_x=True, x_integer=True,
                      extra=extra)


plot_dpsgd_epsilon = drawn(dpsgd_epsilon_data)


@validate(epsilons=AMPLIFIED_EPSILONS)
def amplification_data(epsilons=(0.5, 1.0, 2.0, 5.0)) -> FigureData:
    """Privacy amplification by subsampling: ε' = ln(1 + q(e^ε − 1)) against q (log–log).

    :func:`dpteach.accounting.composition.amplify_by_subsampling` for each ε at 80
    log-spaced sampling rates q in [0.001, 1], and the small-ε approximation q·ε (dotted,
    in the same colour), one line per ε of the mechanism on its input. Series
    ``epsilon-<i>`` and ``approximation-<i>`` for the i-th ε; ``extra["q"]``.
    """
    eps_arr = epsilons
    epsilons = [float(e) for e in eps_arr]
    qs = np.geomspace(1e-3, 1.0, 80)
    amps = [[amplify_by_subsampling(eps, q) for q in qs] for eps in epsilons]
    refuse_undrawable_log("the ε values", dict(epsilons=epsilons), *amps, eps_arr)
    series = []
    for i, (eps, amp) in enumerate(zip(epsilons, amps)):
        colour = CYCLE[i % len(CYCLE)]
        series.append(Series(f"epsilon-{i}", f"ε = {eps:g}", qs, amp, colour=colour))
        series.append(Series(f"approximation-{i}", "", qs, qs * eps, colour=colour,
                             dash="dotted", width=1.0))
    # a legend entry for the dotted lines (drawn in the colour of their ε)
    series.append(Series("approximation", "q·ε (small-ε approximation, dotted)", [], [],
                         colour="grey", dash="dotted", width=1.0))
    return FigureData("Amplification by subsampling: ε' = ln(1 + q(e^ε − 1))",
                      "sampling rate q (log scale)", "ε after subsampling (log scale)",
                      series=tuple(series), log_x=True, log_y=True, extra={"q": qs})


plot_amplification = drawn(amplification_data)
