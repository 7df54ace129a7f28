"""The result tables shipped with dpteach: numbers too slow to compute during a lesson.

Some figures of the course rest on numbers that take from seconds (one privacy-loss
distribution) to a quarter of an hour (a sweep of fits, thousands of seeded audits) to
compute. Each was computed once, by a script of the repository, over exactly the values the
notebooks and the app's sliders offer, and ships in ``dpteach/data`` beside the datasets
(:mod:`dpteach.datasets`). This module reads them, offline; it computes nothing. One function
per table, with the command that remakes it (run from the repository's root):

* :func:`load_composition_table` — the total ε of k Laplace or Gaussian queries by the
  privacy-loss distribution (PLD) and by the optimal composition theorem, over the sliders of
  the app page "Composition & budget". ``composition_tables.npz``, made by
  ``python scripts/precompute_app_tables.py --only composition``.
* :func:`load_planner_table` — the PLD ε of every DP-SGD run of the "DP-SGD planner" page.
  ``dpsgd_planner_pld.npz``, made by ``python scripts/precompute_app_tables.py --only planner``.
* :func:`load_crossover_grid` — MWEM's largest error on k counting queries at each ε
  (notebook 22, the "Many queries" page). ``many_queries_grid.npz``, made by
  ``python scripts/precompute_many_queries.py``.
* :func:`load_mwem_needed` — every method's largest error where MWEM is needed (notebook
  22). ``many_queries_needed.npz``, made by
  ``python scripts/precompute_many_queries.py --only needed``.
* :func:`load_reconstruction_table` — the secret bits a reconstruction attack recovers at
  every setting of the "Reconstruction attack" page. ``reconstruction_page.npz``, made by
  ``python scripts/precompute_attack_tables.py --only reconstruction``.
* :func:`load_fairness_table` — an Adult model's test scores, and its accuracy and fairness
  gaps at every pair of group thresholds (notebook 15, the "Fairness metrics" page).
  ``fairness_adult_thresholds.npz``, made by
  ``python scripts/precompute_app_tables.py --only fairness``.
* :func:`load_lfr_grid` — LFR's trade-off as its parity weight A_z grows, on Adult and
  German credit (notebooks 16 and 17). ``lfr_grid.npz``, made by
  ``python scripts/precompute_lfr_grid.py``.
* :func:`load_gamma_sweep` — LAFTR's trade-off as its adversary's weight γ grows, on Adult
  (notebook 17, the "Fair representations" page). ``laftr_adult_sweep.csv``, made by
  ``python benchmarks/laftr_adult.py --jobs 1``.
* :func:`load_dp_fairness_sweep` — the accuracy of each group of people under private
  learners across ε, on Adult (notebook 18). ``dp_fairness_adult.csv``, made by
  ``python benchmarks/dp_fairness_adult.py``.
* :func:`load_audit_table` — a seeded audit of every mechanism (and planted bug) at every
  claimed ε and number of runs of the "Audit a mechanism" page. ``audit_page.npz``, made by
  ``python scripts/precompute_attack_tables.py --only audit --jobs 2``.

Every table records how it was made (its ``meta``: settings, seeds, library versions, date
and time taken); :func:`build_info` is the part of that record on which a refit's exactness
depends. ``dpteach/data/PROVENANCE.md`` describes each file.
"""

from __future__ import annotations

import functools
import io
import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:                      # pandas is imported by the loaders that need it
    import pandas as pd

from ._validation import choice, instance_of, real, refuse, validate

__all__ = [
    "COMPOSITION_TABLE", "PLANNER_TABLE", "CROSSOVER_TABLE", "RECONSTRUCTION_TABLE",
    "FAIRNESS_TABLE", "LFR_GRID_TABLE", "GAMMA_SWEEP_TABLE", "DP_FAIRNESS_TABLE", "AUDIT_TABLE",
    "APP_PLD_INTERVAL", "load_composition_table", "load_planner_table", "load_crossover_grid",
    "load_mwem_needed", "load_reconstruction_table", "load_fairness_table", "LFRGrid",
    "load_lfr_grid", "load_gamma_sweep", "load_dp_fairness_sweep", "load_audit_table",
    "build_info",
]

#: The files, in ``dpteach/data``.
COMPOSITION_TABLE = "composition_tables.npz"
PLANNER_TABLE = "dpsgd_planner_pld.npz"
CROSSOVER_TABLE = "many_queries_grid.npz"
NEEDED_TABLE = "many_queries_needed.npz"
RECONSTRUCTION_TABLE = "reconstruction_page.npz"
FAIRNESS_TABLE = "fairness_adult_thresholds.npz"
LFR_GRID_TABLE = "lfr_grid.npz"
GAMMA_SWEEP_TABLE = "laftr_adult_sweep.csv"
DP_FAIRNESS_TABLE = "dp_fairness_adult.csv"
AUDIT_TABLE = "audit_page.npz"
#: PLD discretisation (``value_discretization_interval``) of the composition and planner
#: tables, and of the app pages that compute what the tables do not hold.
APP_PLD_INTERVAL = 1e-3

#: the LFR grid's data sets, its A_z (LFR's own range, dpteach.fairness.lfr.MAX_WEIGHT) and a
#: refit to compare with it
GRID_DATASET = choice("adult", "german")
GRID_AZ = real(0.0, 1e6)
REFIT = instance_of(dict, "a dict returned by dpteach.fairness.lfr_grid.lfr_grid_entry")
_FINITE = real(-math.inf, math.inf, low_open=True, high_open=True)     # each number of a refit


# ------------------------------------------------------------------ privacy accounting
def load_composition_table() -> dict | None:
    """The "Composition & budget" page's table: total ε of k queries, by PLD and the optimum.

    Made by ``python scripts/precompute_app_tables.py --only composition``:
    for every value of the page's sliders (:data:`dpteach.plots.accounting.COMPOSITION_KS`
    and the figure's k grid, the ε₀, σ and δ grids there), what
    :func:`dpteach.accounting.compare.composition_epsilons` returns, bit for bit. Read once
    per process.

    Returns
    -------
    dict or None
        Axes ``epsilons`` (ε₀), ``sigmas`` (σ), ``ks`` and ``deltas``; values
        ``laplace_pld``, ``laplace_optimal`` (indexed [ε₀, k, δ]) and ``gaussian_optimal``
        ([σ, k, δ]), float64, read-only; ``meta``: how the table was made. None if the
        table is not shipped, or was made with another PLD discretisation than
        :data:`APP_PLD_INTERVAL` (everything is then computed).
    """
    return _pld_table(COMPOSITION_TABLE)


def load_planner_table() -> dict | None:
    """The "DP-SGD planner" page's table: the PLD ε of every run its sliders offer.

    Made by ``python scripts/precompute_app_tables.py --only planner``: for
    every σ, every run (q, T) of the sliders with T ≤ 10⁶
    (:func:`dpteach.plots.accounting.planner_table_runs`) and every δ, what
    :func:`dpteach.accounting.calibrate.epsilon_for_noise_multiplier` returns with
    ``accountant="pld"``, stored as float32 (relative error ≤ 2⁻²⁴). Read once per process.

    Returns
    -------
    dict or None
        Axes ``sigmas``, runs (``sample_rates``, ``steps``) and ``deltas``; values
        ``epsilon`` (PLD ε indexed [σ, run, δ], float32, NaN where the library refuses to
        build the PLD), read-only; ``meta``: how the table was made. None if the table is
        not shipped, or was made with another PLD discretisation than
        :data:`APP_PLD_INTERVAL`.
    """
    return _pld_table(PLANNER_TABLE)


# ---------------------------------------------------------------------- many queries
@functools.lru_cache(maxsize=1)
def load_crossover_grid() -> dict | None:
    """The grid of MWEM's errors on the crossover workload (notebook 22, "Many queries").

    Made by ``python scripts/precompute_many_queries.py``: for every k of
    :data:`dpteach.plots.many_queries.CROSSOVER_KS` and ε of
    :data:`~dpteach.plots.many_queries.CROSSOVER_EPSILONS`, 5 seeded MWEM runs
    (:func:`dpteach.queries.mwem.compare_independent` on the first k queries of
    :func:`~dpteach.plots.many_queries.crossover_workload`, seeds of
    :func:`~dpteach.plots.many_queries.crossover_rng`). Read once per process.

    Returns
    -------
    dict or None
        ``ks``, ``epsilons``, and ``mwem`` and ``mwem_last`` of shape (len(epsilons),
        len(ks), 5): the largest error (fraction of n) of MWEM's output and of its last
        distribution in each run, read-only; ``meta`` (how it was made: T, passes, seeds,
        n, versions, date). None if the grid is not shipped.
    """
    arrays = _read_npz_or_none(CROSSOVER_TABLE)
    return None if arrays is None else _frozen(arrays)


@functools.lru_cache(maxsize=1)
def load_mwem_needed() -> dict:
    """Notebook 22's setting where MWEM is needed: every method's largest error, run by run.

    Made by ``python scripts/precompute_many_queries.py --only needed`` on
    :func:`dpteach.plots.many_queries.needed_workload` (Adult, 40,320 cells, 240
    conjunctions), for every ε of :data:`~dpteach.plots.many_queries.NEEDED_EPSILONS`.

    Returns
    -------
    dict
        ``epsilons``; ``histogram``, ``laplace``, ``laplace_l1``, ``gaussian``, ``mwem``,
        ``mwem_last`` of shape (len(epsilons), runs): the largest error (fraction of n) of
        each run, read-only; ``uniform`` (the data-free answer's); ``meta`` (how it was made).
    """
    return _frozen(_read_npz_or_raise(NEEDED_TABLE,
                                      "scripts/precompute_many_queries.py --only needed"))


# --------------------------------------------------------------------------- attacks
@functools.lru_cache(maxsize=1)
def load_reconstruction_table() -> dict:
    """The "Reconstruction attack" page's table: bits recovered at every setting.

    Made by ``python scripts/precompute_attack_tables.py --only reconstruction``:
    :func:`dpteach.attacks.reconstruction.reconstruction_attack` at every n, k,
    noise level and decoder of the page, seeded by
    :func:`dpapp.reconstruction_attack.attack_rng`. Read once per process.

    Returns
    -------
    dict
        ``ns``, ``ks``, ``relative_noise``, ``epsilons``, ``dp_kinds``, ``decoders`` (the
        grid, as tuples); ``bounded`` int16 [n, k, c, decoder] and ``dp`` int16 [n, k, DP
        kind, ε, decoder]: the number of bits recovered (−1 where the library refuses the
        decoder), read-only; ``meta``.

    Raises
    ------
    FileNotFoundError
        If the table is not shipped (the message names the command that makes it).
    """
    arrays = _read_npz_or_raise(RECONSTRUCTION_TABLE,
                                "scripts/precompute_attack_tables.py --only reconstruction")
    table = {"ns": tuple(int(v) for v in arrays["ns"]), "ks": tuple(int(v) for v in arrays["ks"]),
             "relative_noise": tuple(float(v) for v in arrays["relative_noise"]),
             "epsilons": tuple(float(v) for v in arrays["epsilons"]),
             "dp_kinds": tuple(str(v) for v in arrays["dp_kinds"]),
             "decoders": tuple(str(v) for v in arrays["decoders"]),
             "bounded": arrays["bounded"], "dp": arrays["dp"],
             "meta": json.loads(str(arrays["meta"]))}
    for name in ("bounded", "dp"):
        table[name].flags.writeable = False
    return table


# -------------------------------------------------------------------------- fairness
@functools.lru_cache(maxsize=1)
def load_fairness_table() -> dict | None:
    """The "Fairness metrics" table: an Adult model's scores and its gaps at every threshold pair.

    Made by ``python scripts/precompute_app_tables.py --only fairness`` (about a minute): the
    test-split scores of ``LogisticRegression(**dpteach.plots.fairness.ADULT_MODEL)`` fitted on
    the Adult training split, and the accuracy and every gap of
    :data:`dpteach.plots.fairness.GRID_NAMES` (each a call of :mod:`dpteach.fairness.metrics`)
    at every pair of :data:`~dpteach.plots.fairness.THRESHOLDS`. Read once per process.

    Returns
    -------
    dict or None
        ``score`` (the model's P(income > $50K) for each of the 15,060 test people,
        stored as float32 and returned as float64), ``y`` (1 = income > $50K) and ``sex``
        (1 = female), int64; ``thresholds``; ``grid`` of shape (7, 101, 101): the arrays of
        ``GRID_NAMES`` indexed [name, women's threshold, men's threshold], stored as
        float32 (relative error ≤ 2⁻²⁴); ``group_rates`` of shape (2, 3, 101): selection
        rate, TPR and FPR of women and men at each threshold; all read-only; ``meta``: how
        the table was made. None if the table is not shipped.
    """
    arrays = _read_npz_or_none(FAIRNESS_TABLE)
    if arrays is None:
        return None
    # float32 scores, grid and rates: float64 holds their values exactly
    return _frozen(arrays, score=np.float64, y=np.int64, sex=np.int64, grid=np.float64,
                   group_rates=np.float64)


@dataclass(frozen=True)
class LFRGrid:
    """The shipped A_z sweep of LFR (see :func:`load_lfr_grid`).

    Attributes
    ----------
    meta : dict
        How it was made: settings, A_z values, data sets and splits, library versions,
        date and run time.
    results : dict of str to pandas.DataFrame
        Per data set, one row per A_z (sorted), the columns of
        :func:`dpteach.fairness.lfr_grid.lfr_grid_entry`.
    baseline : pandas.DataFrame
        One row per data set (index), the columns of
        :func:`dpteach.fairness.lfr_grid.lfr_grid_baseline`.
    """

    meta: dict
    results: dict
    baseline: object

    @validate(dataset=GRID_DATASET, Az=GRID_AZ)
    def entry(self, dataset: str, Az: float) -> pd.Series:
        """The row (a pandas Series) of ``dataset`` whose A_z equals ``Az`` (to 1e-9)."""
        table = self.results[dataset]
        hit = np.flatnonzero(np.isclose(table["Az"].to_numpy(), Az, rtol=1e-9, atol=1e-12))
        if hit.size == 0:
            raise refuse("Az", Az, f"one of the grid's values {table['Az'].tolist()}")
        return table.iloc[int(hit[0])]

    def same_build(self) -> bool:
        """Whether this machine's :func:`build_info` agrees with the build the grid was made
        with, on every item the grid recorded."""
        recorded = self.meta.get("build")
        here = build_info()
        return (isinstance(recorded, dict) and bool(recorded)
                and all(here.get(key) == value for key, value in recorded.items()))

    @validate(dataset=GRID_DATASET, entry=REFIT)
    def matches(self, dataset: str, entry: dict) -> bool:
        """Whether a refit (:func:`dpteach.fairness.lfr_grid.lfr_grid_entry`) agrees with the
        shipped row of its A_z, to :data:`dpteach.fairness.lfr_grid.GRID_TOLERANCE`: every
        number to a relative 1e-9 on the same build (:meth:`same_build`), else the training
        objective and training yAcc and yDiscrim."""
        from .fairness.lfr_grid import GRID_TOLERANCE

        dev = self.deviation(dataset, entry)
        row = self.entry(dataset, entry["Az"])
        if self.same_build():
            return all(d <= GRID_TOLERANCE["same_build"] * max(1.0, abs(float(row[k])))
                       for k, d in dev.items())
        return (dev["objective"] <= GRID_TOLERANCE["objective"]
                and max(dev["y_acc_train"], dev["y_discrim_train"])
                <= GRID_TOLERANCE["train_scores"])

    @validate(dataset=GRID_DATASET, entry=REFIT)
    def deviation(self, dataset: str, entry: dict) -> dict:
        """``|shipped − refitted|`` for each number of a
        :func:`~dpteach.fairness.lfr_grid.lfr_grid_entry` result (``fit_seconds`` and
        ``n_iter`` left out), against the row with the same A_z."""
        keys = [k for k in self.results[dataset].columns if k not in ("fit_seconds", "n_iter")]
        missing = [k for k in keys if k not in entry]
        if missing:
            raise refuse("entry", entry, f"a full lfr_grid_entry dict (lacks {missing[:3]})")
        row = self.entry(dataset, entry["Az"])
        return {key: abs(float(row[key]) - _FINITE(f"entry[{key!r}]", entry[key]))
                for key in keys if key != "Az"}


def load_lfr_grid() -> LFRGrid:
    """The shipped A_z sweep of LFR on Adult and German credit (notebooks 16 and 17).

    Made by ``python scripts/precompute_lfr_grid.py``: for each data set of
    :func:`dpteach.fairness.lfr_grid.lfr_grid_data`, each A_z of
    :data:`~dpteach.fairness.lfr_grid.GRID_AZ` and the fixed
    :data:`~dpteach.fairness.lfr_grid.GRID_SETTINGS`, the numbers of
    :func:`~dpteach.fairness.lfr_grid.lfr_grid_entry`, and the logistic-regression baseline of
    :func:`~dpteach.fairness.lfr_grid.lfr_grid_baseline`. Read afresh at each call.
    """
    import pandas as pd

    with _data_file(LFR_GRID_TABLE).open("rb") as fh, np.load(fh, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(str(arrays.pop("meta")))
    results: dict[str, dict] = {}
    base: dict[str, dict] = {}
    for key, values in arrays.items():
        parts = key.split("/")
        if parts[0] == "baseline":
            base.setdefault(parts[1], {})[parts[2]] = float(values)
        else:
            results.setdefault(parts[0], {})[parts[1]] = values
    results = {name: pd.DataFrame(cols).sort_values("Az", ignore_index=True)
               for name, cols in results.items()}
    return LFRGrid(meta, results, pd.DataFrame.from_dict(base, orient="index"))


def load_gamma_sweep() -> pd.DataFrame:
    """The shipped γ sweep of LAFTR on Adult (notebook 17, the "Fair representations" page).

    Made by ``python benchmarks/laftr_adult.py --jobs 1``: for every
    objective in :data:`dpteach.fairness.laftr.OBJECTIVES`, every γ in
    :data:`~dpteach.fairness.laftr.SWEEP_GAMMAS` and every seed in
    :data:`~dpteach.fairness.laftr.SWEEP_SEEDS`, one
    :func:`~dpteach.fairness.laftr.gamma_sweep_row` (plus the rows of the unfair baseline,
    ``objective="unfair"``, γ = 0). Read once per process; each call returns a fresh copy.

    Returns
    -------
    pandas.DataFrame
        One row per fit, the columns :data:`dpteach.fairness.laftr.SWEEP_COLUMNS`.
        ``.attrs["meta"]`` holds how the file was made (the settings, γ values, seeds, data,
        library versions, date and run time), read from its ``#`` header lines.
    """
    import copy

    df, meta = _read_gamma_sweep()
    out = df.copy()
    out.attrs["meta"] = copy.deepcopy(meta)
    return out


def load_dp_fairness_sweep() -> pd.DataFrame:
    """The shipped sweep of private learners on Adult, group by group (notebook 18).

    Made by ``python benchmarks/dp_fairness_adult.py``:
    :func:`dpteach.fairness.dp_impact.dp_fairness_sweep` with
    :data:`~dpteach.fairness.dp_impact.SWEEP_EPSILONS` (and ∞),
    :data:`~dpteach.fairness.dp_impact.SWEEP_METHODS` and
    :data:`~dpteach.fairness.dp_impact.SWEEP_SEEDS` on
    :func:`~dpteach.fairness.dp_impact.adult_group_data`. Read afresh at each call.

    Returns
    -------
    pandas.DataFrame
        One row per fit, columns as in :func:`dpteach.fairness.dp_impact.fit_and_score`.
    """
    import pandas as pd

    with _data_file(DP_FAIRNESS_TABLE).open("rb") as fh:
        return pd.read_csv(fh)


# ----------------------------------------------------------------------------- audit
@functools.lru_cache(maxsize=1)
def load_audit_table() -> dict:
    """The "Audit a mechanism" page's table: one seeded audit per case, claim and run count.

    Made by ``python scripts/precompute_attack_tables.py --only audit --jobs 2``:
    ``audit_case(name, ε).audit(n, confidence=0.95, rng)``
    (:func:`dpteach.audit.cases.audit_case`) for every case, claimed ε and number of runs
    per side of the page, seeded by :func:`dpapp.audit_mechanism.cell_seed`, with the data of
    its histogram figure (:func:`dpteach.plots.audit.audit_histograms_data`). Read once per
    process.

    Returns
    -------
    dict
        ``cases``, ``claims``, ``trials`` (the grid, as tuples); ``bounds`` float64 [case,
        claim, trials] (NaN where the auditor refuses); ``cells`` and ``cell_offsets`` (one
        UTF-8 JSON text per grid cell, case-major: the audit's numbers and its histogram
        figure, empty when refused); ``info`` {case: [title, description, true ε, δ, test,
        bound] per claim}; ``values`` (the figures' float32 arrays); ``meta``.

    Raises
    ------
    FileNotFoundError
        If the table is not shipped (the message names the command that makes it).
    """
    arrays = _read_npz_or_raise(AUDIT_TABLE, "scripts/precompute_attack_tables.py --only audit")
    table = {"cases": tuple(str(c) for c in arrays["cases"]),
             "claims": tuple(float(e) for e in arrays["claims"]),
             "trials": tuple(int(t) for t in arrays["trials"]),
             "bounds": arrays["bounds"], "values": arrays["values"],
             "cells": arrays["cells"].tobytes(), "cell_offsets": arrays["cell_offsets"],
             "info": json.loads(arrays["info"].tobytes().decode("utf-8")),
             "meta": json.loads(str(arrays["meta"]))}
    for name in ("bounds", "values", "cell_offsets"):
        table[name].flags.writeable = False
    return table


# -------------------------------------------------------------------------- provenance
def build_info() -> dict:
    """The library versions and BLAS kernels a table's numbers depend on.

    NumPy, SciPy and scikit-learn, the architecture of each BLAS library loaded
    (threadpoolctl) and Python's version. The scripts of :func:`load_lfr_grid` and
    :func:`load_gamma_sweep` record it with their table (``meta["build"]``): on the same build
    a refit repeats the same arithmetic and must agree exactly; elsewhere an optimiser may
    take another path from rounding differences alone.
    """
    import importlib.metadata
    import platform

    import scipy.linalg  # noqa: F401 - loads SciPy's BLAS, so it is listed whatever ran before
    from threadpoolctl import threadpool_info
    arch = sorted({str(lib.get("architecture")) for lib in threadpool_info()
                   if lib.get("user_api") == "blas"})
    return {"numpy": importlib.metadata.version("numpy"),
            "scipy": importlib.metadata.version("scipy"),
            "scikit_learn": importlib.metadata.version("scikit-learn"),
            "blas_architectures": arch,
            "python": platform.python_version()}


# ---------------------------------------------------------------------------- reading
def _data_file(name: str):
    """The shipped file ``dpteach/data/<name>``."""
    return resources.files("dpteach").joinpath("data", name)


def _read_npz(name: str) -> dict:
    with _data_file(name).open("rb") as fh:
        npz = np.load(fh, allow_pickle=False)
        return {k: npz[k] for k in npz.files}


def _read_npz_or_none(name: str) -> dict | None:
    """The arrays of a table the library can do without (it then computes); None if absent."""
    try:
        return _read_npz(name)
    except (FileNotFoundError, OSError, ValueError):
        return None


def _read_npz_or_raise(name: str, script: str) -> dict:
    """The arrays of a table a page cannot do without; a missing file names its script."""
    try:
        return _read_npz(name)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"dpteach/data/{name} is missing: run {script}") from exc


def _undo_byte_planes(arrays: dict, meta: dict) -> None:
    """Rebuild, in place, the value arrays stored as byte planes.

    Row i of a byte-plane array holds byte i of every value (zip compresses that ~25 %
    better); ``meta["byte_planes"]`` gives each array's dtype and shape.
    """
    for name, spec in meta.get("byte_planes", {}).items():
        planes = arrays[name]
        arrays[name] = (np.ascontiguousarray(planes.T).reshape(-1).view(spec["dtype"])
                        .reshape(spec["shape"]))


def _frozen(arrays: dict, **dtypes) -> dict:
    """A table's arrays (rebuilt from byte planes where stored so, cast to ``dtypes``) made
    read-only, and its ``meta`` read from JSON."""
    meta = json.loads(str(arrays.pop("meta")))
    _undo_byte_planes(arrays, meta)
    for name, dtype in dtypes.items():
        arrays[name] = arrays[name].astype(dtype)
    for arr in arrays.values():
        arr.flags.writeable = False
    arrays["meta"] = meta
    return arrays


@functools.lru_cache(maxsize=None)
def _pld_table(name: str) -> dict | None:
    """The composition or planner table, read-only; None if absent or of another PLD interval."""
    arrays = _read_npz_or_none(name)
    if arrays is None or (json.loads(str(arrays["meta"])).get("value_discretization_interval")
                          != APP_PLD_INTERVAL):
        return None
    return _frozen(arrays)


@functools.cache
def _read_gamma_sweep():
    """(table, meta) of the LAFTR sweep; meta from the file's ``# key: JSON`` header lines."""
    import pandas as pd

    text = _data_file(GAMMA_SWEEP_TABLE).read_text()
    meta = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(":")
        meta[key.strip()] = json.loads(value)
    df = pd.read_csv(io.StringIO(text), comment="#")
    return df, meta


# Implementation notes: docs/library/audit.md.
