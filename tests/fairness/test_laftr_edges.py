"""Legal-but-extreme inputs for ``dpteach.fairness.mmd``, ``dpteach.fairness.laftr``,
``dpteach.fairness.representation`` and ``dpteach.fairness.representation_eval``: every public
function, class and method, in the style of ``tests/fairness/test_lfr_edges.py``.

Each case draws values from the strategies of ``tests/_props.py`` (subnormal, tiny and huge
floats, huge integers; feature rows scaled to tiny or huge magnitudes) and calls with a time
bound (``_props.assert_extreme_ok``): the call must answer without NaN — finite
representations, probabilities in [0, 1], MMD² in its range, accuracies in [0, 1] — or refuse
with ``ParameterError``/``TypeError``. Refused by design: features beyond |x| = 1e6 (the
networks) or 1e100 (the kernel), loss weights above 1e6, kernel bandwidths outside
[1e-100, 1e100], learning rates above 1. ``test_every_public_callable_is_in_the_table`` fails
when a public callable of the four modules is missing from ``CASES``.
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

from dpteach.fairness import laftr, mmd, representation, representation_eval

MODULES = {"dpteach.fairness.mmd": mmd, "dpteach.fairness.laftr": laftr,
           "dpteach.fairness.representation": representation,
           "dpteach.fairness.representation_eval": representation_eval}

POS = st.one_of(EXTREME_POSITIVE_FLOATS, st.just(0.0))
INTS = st.one_of(HUGE_INTS, st.sampled_from([1, 2, 300]))
SMALL = {"epochs": 2, "batch_size": 16, "rng": 0}


# ---------------------------------------------------------------------------- data
@functools.cache
def _data():
    rng = np.random.default_rng(0)
    a = np.repeat([0, 1], 20)
    X = np.c_[a + rng.normal(0, 0.3, 40), rng.normal(0, 1, 40)]
    y = (X[:, 0] + X[:, 1] > 0.5).astype(np.int64)
    y[[0, 1, 20, 21]] = [0, 1, 0, 1]                    # every (A, Y) cell present
    return X, y, a


@functools.cache
def _laftr():
    X, y, a = _data()
    return laftr.LAFTR(objective="eo", gamma=1.0, **SMALL).fit(X, y, sensitive_features=a)


def _scaled(factor):
    X = _data()[0]
    return X / np.max(np.abs(X)) * factor


def scaled_rows():
    return st.one_of(TINY_FLOATS, st.sampled_from([1e3, 1e6, 1e8, 1e150, 1e300])).map(_scaled)


# ---------------------------------------------------------------------- the checks
def finite(out, kw):
    return bool(np.all(np.isfinite(out)))


def fitted_ok(m, kw):
    Z = m.transform(_data()[0])
    return bool(np.all(np.isfinite(Z)) and np.all(np.isfinite(m.history_.to_numpy(float))))


def distribution(out, kw):
    return bool(np.allclose(out.sum(axis=1), 1.0) and ((out >= 0) & (out <= 1)).all())


def labels(out, kw):
    return set(np.unique(out)) <= {0, 1}


def unit(out, kw):
    return 0.0 <= out <= 1.0


def score_ok(out, kw):
    return all(0.0 <= v <= 1.0 for v in (out.balanced_accuracy, out.accuracy,
                                         out.majority_rate))


def transfer_ok(out, kw):
    return 0.0 <= out.accuracy <= 1.0 and 0.0 <= out.dp_gap <= 1.0 and out.eo_gap <= 2.0


def mmd_range(out, kw):
    return -2.0 <= out <= 2.0


def grad_ok(out, kw):
    return -2.0 <= out[0] <= 2.0 and bool(np.all(np.isfinite(out[1])))


def perm_ok(out, kw):
    return -2.0 <= out[0] <= 2.0 and 0.0 < out[1] <= 1.0


# --------------------------------------------------------------------------- cases
Case = functools.partial(EdgeCase, examples=4)
kw = lazy_kwargs
M, L, R = "dpteach.fairness.mmd", "dpteach.fairness.laftr", "dpteach.fairness.representation"
E = "dpteach.fairness.representation_eval"


def _fit_laftr(**kwargs):
    X, y, a = _data()
    X = kwargs.pop("X", X)
    return laftr.LAFTR(**{**SMALL, **kwargs}).fit(X, y, sensitive_features=a)


def _fit_mmd(**kwargs):
    X, y, a = _data()
    X = kwargs.pop("X", X)
    return mmd.MMDRepresentation(**{**SMALL, **kwargs}).fit(X, y, sensitive_features=a)


def _method(name):
    def call(X):
        return getattr(_laftr(), name)(X)
    return call


def _score(X):
    return _laftr().score(X, _data()[1])


def _adv_loss(X):
    return _laftr().adv_loss(X, _data()[1], sensitive_features=_data()[2])


def _transfer(**kwargs):
    X, y, a = _data()
    base = {"X_train": X, "y_train": y, "X_test": X, "y_test": y, "sensitive_features_test": a,
            "C": 1.0}
    base.update(kwargs)
    return laftr.fair_transfer(_laftr(), base.pop("X_train"), base.pop("y_train"),
                               base.pop("X_test"), base.pop("y_test"), **base)


def _two(**kwargs):
    base = {"X": _data()[0][:20], "Y": _data()[0][20:], "bandwidth": 1.0}
    base.update(kwargs)
    return base


def _split(func):
    def call(**kwargs):
        X = kwargs.pop("X")
        return func(X[:20], X[20:], **kwargs)
    call.__name__ = func.__name__
    return call


def _hidden(hidden):
    return representation.check_hidden("hidden", (hidden,))


CASES = [
    # ------------------------------------------------------------- representation
    Case(f"{R}.check_features", representation.check_features, kw(name="X"),
         {"X": scaled_rows()}, check=finite, fixed=("name",)),
    Case(f"{R}.check_binary_labels", representation.check_binary_labels,
         kw(name="y", y=lambda: _data()[1], n=40), {"n": INTS}, fixed=("name", "y")),
    Case(f"{R}.encode_groups", representation.encode_groups,
         kw(name="g", values=lambda: _data()[2], n=40), {"n": INTS}, fixed=("name", "values")),
    Case(f"{R}.check_loss_weight", representation.check_loss_weight, kw(name="w"),
         {"value": POS}, check=lambda out, kw: 0.0 <= out <= 1e6, examples=10,
         fixed=("name",)),
    Case(f"{R}.check_hidden", _hidden, kw(), {"hidden": INTS}, examples=8),
    Case(f"{R}.RepresentationClassifier", lambda **k: _fit_laftr(**k), kw(),
         {"X": scaled_rows(), "learning_rate": st.one_of(TINY_FLOATS, st.just(1.0))},
         check=fitted_ok),
    *[Case(f"{R}.RepresentationClassifier.{m}", _method(m), kw(X=lambda: _data()[0]),
           {"X": scaled_rows()},
           check={"transform": finite, "decision_function": finite,
                  "predict_proba": distribution, "predict": labels}[m])
      for m in ("transform", "decision_function", "predict_proba", "predict")],
    Case(f"{R}.RepresentationClassifier.score", _score, kw(X=lambda: _data()[0]),
         {"X": scaled_rows()}, check=unit),
    # ---------------------------------------------------------- representation_eval
    Case(f"{E}.adversary_accuracy", representation_eval.adversary_accuracy,
         kw(Z=lambda: _data()[0], sensitive_features=lambda: _data()[2], epochs=2, rng=0),
         {"Z": scaled_rows(), "test_size": st.one_of(TINY_FLOATS, st.just(0.999)),
          "epochs": st.one_of(HUGE_INTS, st.just(300)), "batch_size": INTS,
          "learning_rate": st.one_of(TINY_FLOATS, st.just(1.0))}, check=score_ok),
    Case(f"{E}.fair_transfer", _transfer, kw(),
         {"X_train": scaled_rows(), "X_test": scaled_rows(), "C": POS}, check=transfer_ok),
    # ---------------------------------------------------------------------- laftr
    Case(f"{L}.LAFTR", _fit_laftr, kw(objective="eo"),
         {"alpha": POS, "beta": POS, "gamma": POS, "epochs": INTS, "batch_size": INTS,
          "adversary_steps": st.one_of(HUGE_INTS, st.sampled_from([0, 100])),
          "latent_dim": st.one_of(HUGE_INTS, st.sampled_from([1, 64])),
          "adversary_learning_rate": st.one_of(TINY_FLOATS, st.just(1.0)),
          "adam_beta1": st.one_of(TINY_FLOATS, st.just(0.0), st.just(1 - 1e-16)),
          "X": scaled_rows()}, check=fitted_ok, fixed=("objective",)),
    Case(f"{L}.LAFTR.adv_loss", _adv_loss, kw(X=lambda: _data()[0]), {"X": scaled_rows()},
         check=lambda out, kw: 0.0 <= out <= 4.0),
    Case(f"{L}.gamma_sweep_row", laftr.gamma_sweep_row, kw(objective="dp", gamma=1.0, seed=0),
         {"gamma": st.sampled_from([1.0000001e6, 1e300, 1.7976931348623157e308]),
          "seed": st.sampled_from([2**53 + 1, 2**64, 10**400])}, examples=3,
         fixed=("objective",)),
    # ------------------------------------------------------------------------ mmd
    Case(f"{M}.gaussian_kernel", mmd.gaussian_kernel, kw(X=lambda: _data()[0][:20],
                                                         Y=lambda: _data()[0][20:]),
         {"X": scaled_rows(), "Y": scaled_rows(), "bandwidth": POS},
         check=lambda out, kw: bool(((out >= 0) & (out <= 1)).all())),
    Case(f"{M}.mmd2", _split(mmd.mmd2), kw(X=lambda: _data()[0]),
         {"X": scaled_rows(), "bandwidth": POS}, check=mmd_range),
    Case(f"{M}.mmd2_and_grad", mmd.mmd2_and_grad,
         kw(Z=lambda: _data()[0], groups=lambda: _data()[2]),
         {"Z": scaled_rows(), "bandwidth": POS}, check=grad_ok),
    Case(f"{M}.mmd_permutation_test", _split(mmd.mmd_permutation_test),
         kw(X=lambda: _data()[0], n_permutations=20, rng=0),
         {"X": scaled_rows(), "bandwidth": POS, "n_permutations": INTS}, check=perm_ok),
    Case(f"{M}.MMDRepresentation", _fit_mmd, kw(),
         {"alpha": POS, "beta": POS, "lam": POS, "epochs": INTS,
          "batch_size": st.one_of(HUGE_INTS, st.sampled_from([2, 300])),
          "bandwidth": POS, "X": scaled_rows()}, check=fitted_ok),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name.split("fairness.", 1)[1] for c in CASES])
def test_extreme_values(case):
    run_edge_case(case, seconds=10)


# ------------------------------------------------------------- known exact answers
def test_tiny_features_give_one_representation():
    # every |x| ≤ 1e-300: the first layer's output is its bias to within 1e-299, so every
    # row has (to that precision) the same code and the same prediction
    Z = _laftr().transform(_scaled(1e-300))
    np.testing.assert_allclose(Z, np.broadcast_to(Z[0], Z.shape), atol=1e-250)
    p = _laftr().predict_proba(_scaled(1e-300))
    assert np.ptp(p[:, 1]) < 1e-12


def test_zero_weights_answer():
    m = _fit_laftr(alpha=0.0, beta=0.0, gamma=0.0)
    assert (m.history_["objective"] == 0.0).all()
    value, grad = mmd.mmd2_and_grad(np.zeros((4, 2)), [0, 0, 1, 1], bandwidth=1e-100)
    assert value == 0.0 and not grad.any()


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
    assert len(found) >= 20
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)
