"""Figures of adversarially fair representations (LAFTR): the γ sweep on Adult, read, not fitted.

LAFTR ([MCPZ18]_) trains an encoder f: X → Z, a classifier g: Z → Ŷ, a decoder and an
adversary h that tries to recover the sensitive attribute A (``sex``) from Z, in the min-max
game L = α·L_class + β·L_dec − γ·L_adv; the larger γ, the harder the encoder hides A. Which
gap it closes depends on what the adversary sees: Z alone for demographic parity (``"dp"``),
Z and Y for equalized odds (``"eo"``), Z on the Y = 0 rows for equal opportunity
(``"eopp"``, the paper's convention, on Y = 0). :func:`dpteach.tables.load_gamma_sweep`
holds the fits of ``benchmarks/laftr_adult.py``: every objective × several γ × several seeds
on the Adult training split, scored on the test split, and the unfair MLP (the same network,
no adversary). Every number is a column of the shipped sweep (each gap computed there by
:mod:`dpteach.fairness.metrics`); nothing here trains. The gaps keep their papers' names
(:data:`GAPS`): ΔDP = |ΔP(Ŷ=1)|, ΔEO = |ΔTPR| + |ΔFPR| (the LAFTR sum, twice fairlearn's
``agg="mean"``) and ΔEOpp = |ΔFPR| on Y = 0 (LAFTR's), with Hardt et al.'s |ΔTPR| alongside.

``sweep`` (every function) is a DataFrame with the columns and ranges of
:func:`dpteach.tables.load_gamma_sweep`'s, including the unfair MLP's rows under objective
:data:`BASELINE`; None, the default, is the shipped sweep. ``gamma`` is one of
:func:`sweep_gammas` ``(objective)``.

References
----------
.. [MCPZ18] D. Madras, E. Creager, T. Pitassi, R. Zemel. "Learning adversarially fair and
   transferable representations." ICML 2018 (arXiv:1802.06309): the adversarial objectives
   for demographic parity, equalized odds and equal opportunity, the γ trade-off, and the
   gaps ΔDP, ΔEO (sum of |ΔTPR| and |ΔFPR|) and ΔEOpp (on Y = 0).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._validation import Domain, choice, real, refuse, validate
from ._style import PALETTE
from .figure import FigureData, Rule, Series, drawn

__all__ = [
    "OBJECTIVES", "VARIANTS", "BASELINE", "GAPS", "TARGET_GAP", "GROUPS", "RATES",
    "MAX_SWEEP_ROWS", "MAX_FIT_SECONDS", "sweep_gammas", "gamma_summary", "model_summary",
    "frontier_data", "plot_frontier",
    "group_rates_data", "plot_group_rates",
]

#: The LAFTR objectives of the sweep (the ``objective`` column), in the paper's order.
OBJECTIVES = ("dp", "eo", "eopp")
#: Objective → the name the paper and the slides give the model.
VARIANTS = {"dp": "LAFTR-DP", "eo": "LAFTR-EO", "eopp": "LAFTR-EOpp"}
#: The ``objective`` of the unfair MLP's rows (same network, no adversary).
BASELINE = "unfair"
#: Gap column → (short name, the formula with its convention named).
GAPS = {
    "dp_gap": ("ΔDP", "ΔDP = |ΔP(Ŷ=1)| between women and men (demographic parity)"),
    "eo_gap": ("ΔEO", "ΔEO = |ΔTPR| + |ΔFPR| (equalized odds, sum; Madras et al.)"),
    "eopp_gap": ("ΔEOpp", "ΔEOpp = |ΔFPR|, on Y = 0 (equal opportunity; Madras et al.)"),
    "eopp_gap_y1": ("|ΔTPR|", "|ΔTPR|, on Y = 1 (equal opportunity; Hardt et al.)"),
}
#: Objective → the gap its adversary targets.
TARGET_GAP = {"dp": "dp_gap", "eo": "eo_gap", "eopp": "eopp_gap"}
#: Group suffix of the per-group columns → name (A = 1 is female in ``adult_arrays``).
GROUPS = {"female": "women", "male": "men"}
#: Rate prefix of the per-group columns (``<rate>_<group>``) → axis label.
RATES = {
    "selection_rate": "selection rate P(Ŷ=1)",
    "tpr": "TPR P(Ŷ=1 | Y=1)",
    "fpr": "FPR P(Ŷ=1 | Y=0)",
}
#: Most rows of a sweep this module reads (a real sweep has a few hundred).
MAX_SWEEP_ROWS = 100_000
#: Largest ``fit_seconds`` a sweep may hold (a year).
MAX_FIT_SECONDS = 3.2e7
_SCORES = ("accuracy", *GAPS)
_RATE_COLUMNS = tuple(f"{r}_{g}" for r in RATES for g in GROUPS)
_REQUIRED = ("objective", "gamma", "seed", *_SCORES, *_RATE_COLUMNS)
#: optional columns: the fresh adversary's balanced accuracy at predicting A from the held-out
#: rows' Z (and from their X, when the sweep has it), and the time of one fit
_OPTIONAL = ("adversary_balanced_accuracy", "adversary_balanced_accuracy_x", "fit_seconds")
#: bar colours: (group, model) → a palette colour; the unfair MLP's bars are the lighter
#: partner of the group's colour (colours, not transparency, so the legend shows them)
_COLOURS = {("women", "model"): PALETTE["vermillion"], ("women", "baseline"): PALETTE["orange"],
            ("men", "model"): PALETTE["blue"], ("men", "baseline"): PALETTE["sky"]}


# --------------------------------------------------------------------------- the sweep
#: a sweep of LAFTR fits: None for the shipped one, or a DataFrame of its columns and ranges
SWEEP = Domain("None (the shipped sweep) or a pandas DataFrame of LAFTR fits with the shipped "
               "sweep's columns and ranges", lambda name, value: _checked(value), edges=(None,),
               bad=["sweep.csv", 3, [1, 2]])
OBJECTIVE = choice(*OBJECTIVES)
#: a fitted γ (one of the sweep's, checked against it)
GAMMA = real(0.0, 1e6, example=1.0)
GAP = choice(*GAPS).or_none()


@validate(objective=OBJECTIVE, sweep=SWEEP)
def sweep_gammas(objective: str, *, sweep=None) -> tuple[float, ...]:
    """The γ values fitted for ``objective``, ascending (the app's slider positions)."""
    _, rows = _rows(sweep, objective)
    return tuple(float(g) for g in np.unique(rows["gamma"].to_numpy(dtype=float)))


@validate(objective=OBJECTIVE, sweep=SWEEP)
def gamma_summary(objective: str, *, sweep=None):
    """Mean, standard deviation and number of seeds of every score, per γ of ``objective``.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``gamma`` (ascending): ``n_seeds``, and for ``accuracy``, each gap of
        :data:`GAPS`, each per-group rate and the optional columns the sweep has, the mean
        over seeds (``<column>``) and its sample standard deviation (``<column>_sd``; 0
        with one seed).
    """
    import pandas as pd

    _, rows = _rows(sweep, objective)
    cols, values = _scores(rows)
    gammas = rows["gamma"].to_numpy(dtype=float)
    stats = {float(g): _column_stats(cols, values[gammas == g]) for g in np.unique(gammas)}
    table = pd.DataFrame.from_dict(stats, orient="index")
    table.index.name = "gamma"
    table["n_seeds"] = table["n_seeds"].astype(int)
    return table


@validate(objective=OBJECTIVE, gamma=GAMMA, sweep=SWEEP)
def model_summary(objective: str, gamma: float, *, sweep=None) -> dict:
    """The numbers of one model of the sweep and of the unfair MLP (mean ± sd over seeds).

    Returns
    -------
    dict
        ``"objective"``, ``"variant"`` (:data:`VARIANTS`), ``"gamma"``, ``"target"`` (the
        gap column it targets, :data:`TARGET_GAP`), ``"model"`` and ``"baseline"``: dicts
        with ``n_seeds`` and, for every score column, its mean (``<column>``) and sample
        standard deviation over seeds (``<column>_sd``).
    """
    objective, rows = _rows(sweep, objective)
    g = _gamma(sweep, objective, gamma)
    return {"objective": objective, "variant": VARIANTS[objective], "gamma": g,
            "target": TARGET_GAP[objective],
            "model": _stats(rows[rows["gamma"] == g]),
            "baseline": _stats(sweep[sweep["objective"] == BASELINE])}


# ------------------------------------------------------------------------ the frontier
def _pareto(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the points no other point beats on both counts (smaller x, larger y),
    in increasing x."""
    order = np.lexsort((-y, x))
    best, keep = -math.inf, []
    for i in order:
        if y[i] > best:
            keep.append(i)
            best = y[i]
    return np.array(keep, dtype=int)


@validate(objective=OBJECTIVE, gamma=GAMMA.or_none(), gap=GAP, sweep=SWEEP)
def frontier_data(objective: str, gamma: float | None = None, *, gap: str | None = None,
                  sweep=None) -> FigureData:
    """Accuracy against a gap over the γ sweep of one LAFTR objective ([MCPZ18]_).

    One point per fit (every γ, every seed); the mean over seeds of each γ; the frontier
    through the means no other mean beats on both counts (none fairer *and* more accurate;
    a larger γ usually moves a model left and down); the selected γ highlighted with ± one
    standard deviation over seeds of both numbers; the unfair MLP (mean over its seeds) as
    a point and its accuracy as a dotted line. The x axis is ``gap`` (a key of
    :data:`GAPS`; default: the one ``objective`` targets).

    Series ``fits``, ``means``, ``frontier``, ``baseline`` and, with ``gamma``,
    ``selected``, ``selected-sd-x`` and ``selected-sd-y``; rule ``baseline-accuracy``.
    ``extra``: ``summary`` (:func:`gamma_summary`), ``gap``, ``frontier_gammas`` (left to
    right), ``fit_labels`` (γ and seed of each fit), ``selected`` (the row of ``gamma`` as a
    dict, or None) and ``baseline`` (the unfair MLP's numbers).
    """
    objective, rows = _rows(sweep, objective)
    gap = TARGET_GAP[objective] if gap is None else gap
    g = None if gamma is None else _gamma(sweep, objective, gamma)
    summary = gamma_summary.__wrapped__(objective, sweep=sweep)
    base = _stats(sweep[sweep["objective"] == BASELINE])
    short, long = GAPS[gap]
    variant = VARIANTS[objective]
    n_seeds = summary["n_seeds"]
    seeds = (f"{int(n_seeds.min())}" if n_seeds.min() == n_seeds.max()
             else f"{int(n_seeds.min())}–{int(n_seeds.max())}")
    mx, my = summary[gap].to_numpy(dtype=float), summary["accuracy"].to_numpy(dtype=float)
    front = _pareto(mx, my)
    gammas = summary.index.to_numpy(dtype=float)
    series = [
        Series("fits", f"one fit (each γ, each of {seeds} seeds)",
               rows[gap].to_numpy(dtype=float), rows["accuracy"].to_numpy(dtype=float),
               kind="points", colour=PALETTE["sky"], width=1.2, opacity=0.6,
               tooltip=(("γ", rows["gamma"].to_numpy(dtype=float)),
                        ("seed", rows["seed"].astype(str).to_numpy()))),
        Series("means", f"{variant}: mean over seeds, one point per γ "
               f"({gammas.min():g} to {gammas.max():g})", mx, my, kind="points",
               colour=PALETTE["blue"], width=2.2,
               tooltip=(("γ", gammas), ("seeds", summary["n_seeds"].to_numpy(dtype=float)))),
        Series("frontier", "frontier: no other γ both fairer and more accurate",
               mx[front], my[front], colour=PALETTE["blue"], width=2.0),
        Series("baseline", f"unfair MLP: accuracy {base['accuracy']:.3f}, {short} "
               f"{base[gap]:.3f}", [base[gap]], [base["accuracy"]], kind="points",
               colour=PALETTE["black"], width=4.0),
    ]
    xs = [rows[gap].to_numpy(dtype=float), [base[gap]]]
    ys = [rows["accuracy"].to_numpy(dtype=float), [base["accuracy"]]]
    title = f"{variant} on Adult: accuracy against {short} over γ"
    selected = None
    if g is not None:
        selected = summary.loc[g].to_dict()
        sx, sy = selected[gap], selected["accuracy"]
        dx, dy = selected[f"{gap}_sd"], selected["accuracy_sd"]
        series += [
            Series("selected", f"γ = {g:g}: accuracy {_pm(sy, dy)}, {short} {_pm(sx, dx)}",
                   [sx], [sy], kind="points", colour=PALETTE["vermillion"], width=6.0),
            Series("selected-sd-x", "", [sx - dx, sx + dx], [sy, sy],
                   colour=PALETTE["vermillion"], width=2.0),
            Series("selected-sd-y", "", [sx, sx], [sy - dy, sy + dy],
                   colour=PALETTE["vermillion"], width=2.0),
        ]
        xs.append([sx - dx, sx + dx])
        ys.append([sy - dy, sy + dy])
        title += (f"\nγ = {g:g}: accuracy {sy:.3f}, {short} {sx:.3f} "
                  f"(mean of {int(selected['n_seeds'])} seeds)")
    x_all, y_all = np.concatenate(xs), np.concatenate(ys)
    x_high = float(x_all.max()) * 1.08 + 0.01
    y_low = math.floor((float(y_all.min()) - 0.005) * 100) / 100
    y_high = math.ceil((float(y_all.max()) + 0.005) * 100) / 100
    return FigureData(
        title, f"{long} (0 = equal)", "accuracy (test split)",
        series=tuple(series),
        rules=(Rule("baseline-accuracy", "y", base["accuracy"], colour=PALETTE["black"],
                    dash="dotted"),),
        x_domain=(0.0, x_high), y_domain=(max(0.0, y_low), min(1.0, y_high)),
        extra={"summary": summary, "gap": gap, "frontier_gammas": tuple(gammas[front]),
               "fit_labels": (rows["gamma"].to_numpy(dtype=float),
                              rows["seed"].to_numpy()),
               "selected": selected, "baseline": base})


plot_frontier = drawn(frontier_data)


# -------------------------------------------------------------------- per-group rates
_BAR = 0.2                                 # width of one bar (4 per rate, 1 unit apart)
_OFFSETS = {("women", "baseline"): -1.5, ("women", "model"): -0.5,
            ("men", "baseline"): 0.5, ("men", "model"): 1.5}


@validate(objective=OBJECTIVE, gamma=GAMMA, sweep=SWEEP)
def group_rates_data(objective: str, gamma: float, *, sweep=None) -> FigureData:
    """Selection rate, TPR and FPR of women and men: one LAFTR model against the unfair MLP.

    Per rate (:data:`RATES`, at x = 0, 1, 2), four bars: each group's rate under the unfair
    MLP (the lighter colour) and under the selected model (mean over seeds), with each
    seed's rate as a dot. Demographic parity asks equal selection rates, equalized odds
    equal TPRs and FPRs, LAFTR's equal opportunity equal FPRs ([MCPZ18]_); the title gives
    the model's gaps.

    Bars ``baseline-women``, ``model-women``, ``baseline-men``, ``model-men`` and points
    ``seeds-women``, ``seeds-men``. ``extra``: ``categories`` (the rates' labels) and
    ``summary`` (:func:`model_summary`).
    """
    summary = model_summary.__wrapped__(objective, gamma, sweep=sweep)
    objective, g = summary["objective"], summary["gamma"]
    rows = sweep[(sweep["objective"] == objective) & (sweep["gamma"] == g)]
    model, base = summary["model"], summary["baseline"]
    variant = VARIANTS[objective]
    x = np.arange(len(RATES), dtype=float)
    series, tops = [], [0.0]
    for suffix, group in GROUPS.items():
        cols = [f"{r}_{suffix}" for r in RATES]
        for who, numbers in (("baseline", base), ("model", model)):
            heights = np.array([numbers[c] for c in cols])
            label = (f"{group}, unfair MLP" if who == "baseline"
                     else f"{group}, {variant} γ = {g:g}")
            series.append(Series(f"{who}-{group}", label, x + _OFFSETS[group, who] * _BAR,
                                 heights, kind="bars", colour=_COLOURS[group, who], width=_BAR))
            tops.append(float(heights.max()))
        per_seed = rows[cols].to_numpy(dtype=float)             # (seeds, rates)
        seeds_x = np.repeat(x[None, :], len(rows), axis=0) + _OFFSETS[group, "model"] * _BAR
        series.append(Series(f"seeds-{group}", "one seed" if group == "men" else "",
                             seeds_x.ravel(), per_seed.ravel(), kind="points",
                             colour=PALETTE["black"], width=1.0, opacity=0.8))
        tops.append(float(per_seed.max()))
    gaps = ", ".join(f"{GAPS[c][0]} {model[c]:.3f}" for c in ("dp_gap", "eo_gap", "eopp_gap"))
    high = min(1.0, math.ceil((max(tops) + 0.05) * 10) / 10)
    return FigureData(
        f"Per-group rates: {variant}, γ = {g:g} (mean of {model['n_seeds']} seeds)\n{gaps}",
        "rate (bars: mean over seeds; lighter: the unfair MLP)", "share of the group",
        series=tuple(series), x_domain=(-0.5, len(RATES) - 0.5), y_domain=(0.0, high),
        x_ticks=tuple(enumerate(RATES.values())),
        extra={"categories": tuple(RATES.values()), "summary": summary})


plot_group_rates = drawn(group_rates_data)


# ----------------------------------------------------------------------- helpers
@functools.lru_cache(maxsize=1)
def _shipped():
    from ..tables import load_gamma_sweep

    return _checked(load_gamma_sweep())


def _checked(sweep):
    """``sweep`` checked: a DataFrame with the columns and ranges of the shipped sweep
    (None: the shipped sweep)."""
    import pandas as pd

    if sweep is None:
        return _shipped()
    if not isinstance(sweep, pd.DataFrame):
        raise SWEEP.refuse("sweep", sweep)
    missing = [c for c in _REQUIRED if c not in sweep.columns]
    if missing:
        raise refuse("sweep's columns", list(sweep.columns), f"{list(_REQUIRED)}, lacks {missing}")
    if sweep.columns.duplicated().any():
        raise refuse("sweep's columns", list(sweep.columns), "distinct names")
    n = len(sweep)
    if not 1 <= n <= MAX_SWEEP_ROWS:
        raise refuse("len(sweep)", n, f"1 to {MAX_SWEEP_ROWS:,} rows")
    numeric = [c for c in ("gamma", *_SCORES, *_RATE_COLUMNS, *_OPTIONAL) if c in sweep.columns]
    try:
        values = sweep[numeric].to_numpy(dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise refuse("sweep's columns", list(sweep.columns), f"real numbers in {numeric}") from exc
    cols = dict(zip(numeric, values.T))
    bad = [c for c in numeric if c not in _OPTIONAL and not np.all(np.isfinite(cols[c]))]
    top = {"eo_gap": 2.0, "gamma": math.inf, "fit_seconds": MAX_FIT_SECONDS}
    bad += [c for c in numeric if np.any((cols[c] < 0) | (cols[c] > top.get(c, 1.0)))]
    if bad:
        raise refuse("sweep's columns", sorted(set(bad)), f"finite (optional: or NaN), γ ≥ 0, "
                     f"rates in [0, 1] (ΔEO ≤ 2), fit_seconds ≤ {MAX_FIT_SECONDS:g}")
    objectives = set(sweep["objective"].tolist())
    if BASELINE not in objectives or not objectives <= {*OBJECTIVES, BASELINE}:
        raise refuse("sweep's objectives", sorted(map(str, objectives)),
                     f"with {BASELINE!r}, all in {(*OBJECTIVES, BASELINE)}")
    # a view without ``attrs`` (the shipped sweep's metadata): pandas deep-copies them into
    # every column it hands out, which made each figure 5x slower
    sweep = sweep.copy(deep=False)
    sweep.attrs = {}
    return sweep


def _rows(sweep, objective: str):
    rows = sweep[sweep["objective"] == objective]
    if rows.empty:
        raise refuse("objective", objective, f"fitted in sweep: {set(sweep['objective'])}")
    return objective, rows


def _scores(rows) -> tuple[list, np.ndarray]:
    """The score columns the rows have, and their values (rows × columns, float)."""
    cols = [c for c in (*_SCORES, *_RATE_COLUMNS, *_OPTIONAL) if c in rows.columns]
    return cols, rows[cols].to_numpy(dtype=float)


def _column_stats(cols: list, values: np.ndarray) -> dict:
    """``n_seeds`` (rows), and per column the mean and the sample standard deviation of its
    finite values (sd 0 for one value; both NaN for none)."""
    finite = np.isfinite(values)
    count = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(finite, values, 0.0).sum(axis=0) / count
        dev = np.where(finite, values - mean, 0.0)
        sd = np.sqrt((dev * dev).sum(axis=0) / (count - 1))
    mean = np.where(count > 0, mean, math.nan)
    sd = np.where(count > 1, sd, np.where(count == 1, 0.0, math.nan))
    out = {"n_seeds": int(values.shape[0])}
    for c, m, d in zip(cols, mean.tolist(), sd.tolist()):
        out[c] = m
        out[f"{c}_sd"] = d
    return out


def _stats(rows) -> dict:
    """:func:`_column_stats` of the rows."""
    return _column_stats(*_scores(rows))


def _gamma(sweep, objective: str, gamma) -> float:
    """``gamma`` checked: one of the γ values of ``objective`` (to a relative 1e-9; 0 exactly)."""
    options = sweep_gammas.__wrapped__(objective, sweep=sweep)
    for o in options:
        if math.isclose(o, gamma, rel_tol=1e-9, abs_tol=0.0):
            return o
    raise refuse("gamma", gamma, f"one of the fitted values {list(options)} of {objective!r}")


def _pm(mean: float, sd: float) -> str:
    return f"{mean:.3f} ± {sd:.3f}"
