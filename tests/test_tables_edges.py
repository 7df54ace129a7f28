"""Legal-but-extreme inputs for ``dpteach.tables``, in the style of
``tests/fairness/test_lfr_edges.py``: every public callable is in :data:`CASES`.

The loaders and :func:`~dpteach.tables.build_info` take no argument: each is called once and
must return its table (the loaders that may find no table return None or a non-empty dict).
The methods of :class:`~dpteach.tables.LFRGrid` get A_z values and refit-shaped entries
holding subnormal, tiny, huge and zero numbers (``tests/_props.py``): they must answer (a
row, deviations ≥ 0, ``False``) or refuse with ``ParameterError``/``TypeError``.
``test_every_public_callable_is_in_the_table`` fails when a public callable of the module is
missing from ``CASES``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect

import pytest
from _props import EXTREME_POSITIVE_FLOATS, EdgeCase, lazy_kwargs, run_edge_case
from hypothesis import strategies as st

from dpteach import tables

MODULES = {"dpteach.tables": tables}

POS = st.one_of(EXTREME_POSITIVE_FLOATS, st.just(0.0))
M = "dpteach.tables"
Case = functools.partial(EdgeCase, examples=5)
kw = lazy_kwargs


@functools.cache
def _grid():
    return tables.load_lfr_grid()


def _grid_entry(Az):
    return _grid().entry("german", Az)


def _grid_deviation(entry):
    return _grid().deviation("german", entry)


def _grid_matches(entry):
    return _grid().matches("german", entry)


def _full_entry(value):
    """A refit-shaped dict for A_z = 0 whose every number is ``value``."""
    row = _grid().entry("german", 0.0)
    return {**{k: value for k in row.index}, "Az": 0.0}


def _table_or_none(out, kw):
    return out is None or isinstance(out, dict) and bool(out)


def _table(out, kw):
    return isinstance(out, dict) and bool(out)


def _frame(out, kw):
    return len(out) > 0


CASES = [
    # shipped, or None (the figures then compute)
    *[Case(f"{M}.{f.__name__}", f, kw(), {}, check=_table_or_none)
      for f in (tables.load_composition_table, tables.load_planner_table,
                tables.load_crossover_grid, tables.load_fairness_table)],
    # the pages cannot do without them: shipped or an error naming the script
    *[Case(f"{M}.{f.__name__}", f, kw(), {}, check=_table)
      for f in (tables.load_reconstruction_table, tables.load_audit_table)],
    Case(f"{M}.load_lfr_grid", tables.load_lfr_grid, kw(), {},
         check=lambda out, kw: set(out.results) == {"adult", "german"}),
    Case(f"{M}.load_gamma_sweep", tables.load_gamma_sweep, kw(), {},
         check=lambda out, kw: _frame(out, kw) and bool(out.attrs["meta"])),
    Case(f"{M}.load_dp_fairness_sweep", tables.load_dp_fairness_sweep, kw(), {}, check=_frame),
    Case(f"{M}.build_info", tables.build_info, kw(), {},
         check=lambda out, kw: all(isinstance(v, (str, list)) for v in out.values())),
    Case(f"{M}.LFRGrid.entry", _grid_entry, kw(Az=0.0), {"Az": POS}, examples=10,
         fixed=("dataset",)),
    Case(f"{M}.LFRGrid.deviation", _grid_deviation, kw(entry=lambda: _full_entry(0.5)),
         {"entry": POS.map(_full_entry)},
         check=lambda out, kw: all(v >= 0 for v in out.values()), examples=10,
         fixed=("dataset",)),
    Case(f"{M}.LFRGrid.matches", _grid_matches, kw(entry=lambda: _full_entry(0.5)),
         {"entry": POS.map(_full_entry)}, check=lambda out, kw: out is False, examples=10,
         fixed=("dataset",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.split("tables.", 1)[1] for c in CASES])
def test_extreme_values(case):
    if not case.args:
        out = case.func(**case.base())                 # no argument: one plain call
        assert out is not None or case.check is _table_or_none
        if case.check is not None:
            assert case.check(out, {}), case.name
    run_edge_case(case, seconds=10)


# ------------------------------------------------------------------------ coverage
def _public_callables():
    names = set()
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(inspect.unwrap(obj)):         # lru_cache'd loaders too
                names.add(f"{modname}.{attr}")
            elif inspect.isclass(obj):
                if not dataclasses.is_dataclass(obj):
                    names.add(f"{modname}.{attr}")
                for meth, fn in vars(obj).items():
                    if meth.startswith("_") or not inspect.isfunction(fn):
                        continue
                    if [p for p in inspect.signature(fn).parameters if p != "self"]:
                        names.add(f"{modname}.{attr}.{meth}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables()
    listed = {c.name for c in CASES}
    assert len(found) == 13
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)
