"""Legal-but-extreme inputs for ``dpteach.fairness.lfr`` and ``dpteach.fairness.lfr_grid``:
every public function, class and method, in the style of ``tests/pate/test_teachers_edges.py``
(the shipped grid's :class:`~dpteach.tables.LFRGrid`: ``tests/test_tables_edges.py``).

Each case draws values from the strategies of ``tests/_props.py`` (subnormal, tiny and huge
floats, huge integers; feature rows scaled to tiny or huge magnitudes) and calls with a time
bound (``_props.assert_extreme_ok``): the call must answer without NaN — memberships that
are distributions, probabilities in [0, 1], losses ≥ 0 — or refuse with
``ParameterError``/``TypeError``. Weights above 1e6, more than 500 prototypes and features
beyond |x| = 1e8 are refused by design. ``test_every_public_callable_is_in_the_table`` fails
when a public callable of the two modules is missing from ``CASES``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect

import numpy as np
import pytest
from _props import (
    EXTREME_POSITIVE_FLOATS,
    HUGE_INTS,
    TINY_FLOATS,
    EdgeCase,
    lazy_kwargs,
    run_edge_case,
)
from hypothesis import strategies as st

from dpteach.fairness import lfr, lfr_grid

MODULES = {"dpteach.fairness.lfr": lfr, "dpteach.fairness.lfr_grid": lfr_grid}

POS = st.one_of(EXTREME_POSITIVE_FLOATS, st.just(0.0))
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 500]))


# ---------------------------------------------------------------------------- data
@functools.cache
def _data():
    rng = np.random.default_rng(0)
    a = np.repeat([0, 1], 20)
    X = np.c_[a + rng.normal(0, 0.3, 40), rng.normal(0, 1, 40)]
    y = (X[:, 0] + X[:, 1] > 0.5).astype(np.int64)
    return X, y, a


@functools.cache
def _model():
    X, y, a = _data()
    return lfr.LFR(n_prototypes=3, Az=1.0, n_starts=1, max_iter=20, rng=0).fit(
        X, y, sensitive_features=a)


def _scaled(factor):
    X = _data()[0]
    return X / np.max(np.abs(X)) * factor


def scaled_rows():
    return st.one_of(TINY_FLOATS, st.sampled_from([1e6, 1e8, 1e15, 1e300])).map(_scaled)


# ---------------------------------------------------------------------- the checks
def fitted_ok(m, kw):
    M = m.transform(_data()[0], sensitive_features=_data()[2]) if m.alpha_.shape[0] == 2 \
        else m.transform(_data()[0])
    return (np.isfinite(m.objective_) and m.objective_ >= 0 and np.allclose(M.sum(axis=1), 1)
            and ((m.w_ >= 0) & (m.w_ <= 1)).all() and (m.alpha_ >= 0).all())


def distribution(out, kw):
    return bool(np.allclose(out.sum(axis=1), 1.0) and (out >= 0).all())


def labels(out, kw):
    return set(np.unique(out)) <= {0, 1}


def losses_ok(out, kw):
    return min(out.L_x, out.L_y, out.L_z) >= 0 and out.L_z <= 2 + 1e-12


def nonneg(out, kw):
    return out >= 0


# --------------------------------------------------------------------------- cases
Case = functools.partial(EdgeCase, examples=5)
kw = lazy_kwargs


M, G = "dpteach.fairness.lfr", "dpteach.fairness.lfr_grid"


def _fit(**kwargs):
    X, y, a = _data()
    X = kwargs.pop("X", X)
    params = {"n_prototypes": 3, "n_starts": 1, "max_iter": 10, "rng": 0, **kwargs}
    return lfr.LFR(**params).fit(X, y, sensitive_features=a)


def _method(name):
    def call(X):
        return getattr(_model(), name)(X, sensitive_features=_data()[2])
    return call


def _scored(name):
    def call(X):
        return getattr(_model(), name)(X, _data()[1], sensitive_features=_data()[2])
    return call


def _losses(**kwargs):
    X, y, a = _data()
    m = _model()
    base = {"X": X, "y": y, "memberships": m.transform(X, sensitive_features=a),
            "prototypes": m.prototypes_, "w": m.w_, "sensitive_features": a}
    base.update(kwargs)
    n = min(len(base["X"]), len(base["memberships"]))
    base["X"], base["memberships"] = base["X"][:n], base["memberships"][:n]
    return lfr.lfr_losses(**base)


def _objective(**kwargs):
    return lfr.LFRLosses(1.0, 0.5, 0.25).objective(**{"Ax": 1.0, "Ay": 1.0, "Az": 1.0,
                                                       **kwargs})


CASES = [
    Case(f"{M}.LFR", _fit, kw(),
         {"Ax": POS, "Ay": POS, "Az": POS, "n_prototypes": INTS, "n_starts": INTS,
          "max_iter": st.one_of(HUGE_INTS, st.sampled_from([1, 2])), "X": scaled_rows()},
         check=fitted_ok, examples=4),
    *[Case(f"{M}.LFR.{m}", _method(m), kw(X=lambda: _data()[0]), {"X": scaled_rows()},
           check={"transform": distribution, "predict_proba": distribution,
                  "predict": labels}[m]) for m in ("transform", "predict", "predict_proba")],
    Case(f"{M}.LFR.score", _scored("score"), kw(X=lambda: _data()[0]), {"X": scaled_rows()},
         check=lambda out, kw: 0.0 <= out <= 1.0),
    Case(f"{M}.LFR.losses", _scored("losses"), kw(X=lambda: _data()[0]), {"X": scaled_rows()},
         check=losses_ok),
    Case(f"{M}.LFR.fit_transform", lambda **k: _fit(**k).transform(
        _data()[0], sensitive_features=_data()[2]), kw(), {"Az": POS, "X": scaled_rows()},
         check=distribution, examples=3),
    Case(f"{M}.lfr_losses", _losses, kw(),
         {"X": scaled_rows(), "prototypes": st.one_of(TINY_FLOATS, st.sampled_from(
             [1e8, 1e150, 1e300])).map(lambda f: _model().prototypes_ * f)},
         check=losses_ok),
    Case(f"{M}.LFRLosses.objective", _objective, kw(), {"Ax": POS, "Ay": POS, "Az": POS},
         check=nonneg, examples=10),
    Case(f"{G}.lfr_grid_data", lfr_grid.lfr_grid_data, kw(dataset="german"), {},
         fixed=("dataset",)),
    Case(f"{G}.lfr_grid_entry", lfr_grid.lfr_grid_entry, kw(dataset="german", Az=1.0),
         {"Az": st.one_of(HUGE_INTS.map(float), st.sampled_from([5e-324, 1e300, 2e6]))},
         check=lambda out, kw: 0 <= out["y_acc_test"] <= 1, examples=2, fixed=("dataset",)),
    Case(f"{G}.lfr_grid_baseline", lfr_grid.lfr_grid_baseline, kw(dataset="german"), {},
         fixed=("dataset",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.split("fairness.", 1)[1] for c in CASES])
def test_extreme_values(case):
    if not case.args:
        out = case.func(**case.base())                 # no numeric argument: one plain call
        assert out is not None
    run_edge_case(case, seconds=10)


# ------------------------------------------------------------- known exact answers
def test_tiny_features_give_uniform_memberships():
    # with every |x| ≤ 1e-300 the distances to the prototypes differ by < 1e-290: the
    # memberships are the prototypes' softmax of −α·v², the same for every row
    M = _model().transform(_scaled(1e-300), sensitive_features=_data()[2])
    for g in (0, 1):
        rows = M[_data()[2] == g]
        np.testing.assert_allclose(rows, np.broadcast_to(rows[0], rows.shape), atol=1e-12)


def test_huge_weights_are_refused_and_zero_weights_answer():
    X, y, a = _data()
    with pytest.raises(lfr.ParameterError, match="Az"):
        lfr.LFR(Az=1e7).fit(X, y, sensitive_features=a)
    m = _fit(Ax=0.0, Ay=0.0, Az=0.0)          # nothing to minimise: the start is kept
    assert m.objective_ == 0.0


# ------------------------------------------------------------------------ coverage
def _public_callables():
    names = set()
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(obj) and inspect.signature(obj).parameters:
                names.add(f"{modname}.{attr}")
            elif inspect.isclass(obj):
                if not dataclasses.is_dataclass(obj):
                    names.add(f"{modname}.{attr}")
                for meth, fn in vars(obj).items():
                    if meth.startswith("_") or meth == "fit" or not inspect.isfunction(fn):
                        continue
                    if [p for p in inspect.signature(fn).parameters if p != "self"]:
                        names.add(f"{modname}.{attr}.{meth}")
    return names


def test_every_public_callable_is_in_the_table():
    found = _public_callables()
    listed = {c.name for c in CASES}
    assert len(found) >= 12
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)
