"""Legal-but-extreme inputs for ``dpteach.attacks.floating_point``.

For each numeric parameter the table ``CASES`` draws values from the strategies of
``tests/_props.py`` (subnormal, tiny and huge floats, Python integers beyond the float
range) and calls the function with a time bound (``_props.run_edge_case``): it must answer
without NaN, and where the answer is known the ``check`` asserts it, or refuse with
``ParameterError``/``TypeError``. Known answers at the edges: the floating-point tests are
sound (``wrong == 0``) whatever the values. (The exact samplers, snapping and the secure
mechanisms it once drove too declare their teaching domains: ``tests/test_domains.py``.)

``test_every_public_callable_is_in_the_table`` and ``test_every_numeric_parameter_is_varied``
fail when a public function or numeric parameter of these modules is missing.
"""

from __future__ import annotations

import dataclasses
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

from dpteach.attacks import floating_point

MODULES = {"dpteach.attacks.floating_point": floating_point}

FLOAT_MAX = 1.7976931348623157e308
POS = st.one_of(EXTREME_POSITIVE_FLOATS, HUGE_INTS)
SIGNED = st.one_of(EXTREME_POSITIVE_FLOATS, EXTREME_POSITIVE_FLOATS.map(lambda v: -v),
                   st.just(0.0))
REAL_ARRAYS = st.one_of(st.lists(SIGNED, min_size=1, max_size=5),
                        st.sampled_from([[FLOAT_MAX, -FLOAT_MAX], [5e-324, 0.0], [10**400]]))
UNITS = st.one_of(TINY_FLOATS, TINY_FLOATS.map(lambda t: 1 - t),
                  st.lists(st.floats(min_value=5e-324, max_value=1 - 2**-53), min_size=1,
                           max_size=5))


def kw(**kwargs):
    return lazy_kwargs(**kwargs)


# ---------------------------------------------------------------------- the checks
def bools(out, kw):
    return np.asarray(out).dtype == bool


def sound_attack(out, kw):
    return (out.wrong == 0 and 0.0 <= out.success_rate <= 1.0
            and 0 <= out.ruled_out <= out.n_trials and 0.5 <= out.dp_bound <= 1.0)


# ------------------------------------------------------------------------ the table
FP = "dpteach.attacks.floating_point"
ATTACK = dict(sampler="numpy", value=0.0, value_prime=1.0, scale=1.0, n_trials=20, rng=0)

CASES = [
    EdgeCase(f"{FP}.textbook_laplace_noise", floating_point.textbook_laplace_noise,
             kw(u=[0.25, 0.75], scale=1.0), {"u": UNITS, "scale": POS}),
    EdgeCase(f"{FP}.impossible_under", floating_point.impossible_under,
             kw(outputs=[0.5, 1.5], value_prime=1.0, scale=1.0),
             {"outputs": REAL_ARRAYS, "value_prime": SIGNED, "scale": POS}, check=bools),
    EdgeCase(f"{FP}.precision_test", floating_point.precision_test,
             kw(outputs=[0.5, 1.5], value_prime=1.0),
             {"outputs": REAL_ARRAYS, "value_prime": SIGNED}, check=bools),
    EdgeCase(f"{FP}.floating_point_attack", floating_point.floating_point_attack, kw(**ATTACK),
             {"value": SIGNED, "value_prime": SIGNED, "scale": POS,
              "n_trials": st.one_of(HUGE_INTS, st.sampled_from([1, 2, 10**4, 10**4 + 1])),
              "rng": HUGE_INTS},
             check=sound_attack, fixed=("sampler", "test"), examples=5),
    EdgeCase(f"{FP}.floating_point_attack", floating_point.floating_point_attack,
             kw(**{**ATTACK, "sampler": "snapping", "test": "precision"}),
             {"value": SIGNED, "scale": POS, "bound": POS}, check=sound_attack, examples=5),
    EdgeCase(f"{FP}.floating_point_attack", floating_point.floating_point_attack,
             kw(**{**ATTACK, "sampler": "discrete"}),
             {"value_prime": SIGNED, "scale": POS, "granularity": POS}, check=sound_attack,
             examples=5),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.name.rsplit('.', 1)[1]}-{'-'.join(c.args)}"
                                             for c in CASES])
def test_extreme_values(case):
    run_edge_case(case, warning_filter="error")


# ------------------------------------------------------------- known exact answers
def test_overflowing_outputs_are_refused_or_infinite_never_nan():
    with pytest.raises(ValueError, match="would overflow the float range|scale|sensitivity"):
        floating_point.floating_point_attack("numpy", FLOAT_MAX, 0.0, scale=1e306)


def test_returned_numbers_have_python_types():
    assert type(floating_point.impossible_under(0.5, 1.0, 1.0)) is bool
    assert type(floating_point.precision_test(0.5, 1.0)) is bool


# ------------------------------------------------------------------------ coverage
NON_NUMERIC = {"rng", "sampler", "test", "method"}


def _public_callables():
    names = {}
    for modname, module in MODULES.items():
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != modname:
                continue
            if inspect.isfunction(obj) and inspect.signature(obj).parameters:
                names[f"{modname}.{attr}"] = obj
            elif inspect.isclass(obj) and not dataclasses.is_dataclass(obj):
                names[f"{modname}.{attr}"] = obj
    return names


def test_every_public_callable_is_in_the_table():
    found = set(_public_callables())
    listed = {c.name for c in CASES}
    assert len(found) >= 4
    assert not sorted(found - listed), sorted(found - listed)
    assert not sorted(listed - found), sorted(listed - found)


def test_every_numeric_parameter_is_varied():
    varied = {}
    for case in CASES:
        varied.setdefault(case.name, set()).update(case.args)
    for name, func in _public_callables().items():
        left = set(inspect.signature(func).parameters) - varied[name] - NON_NUMERIC
        assert not left, (name, sorted(left))

