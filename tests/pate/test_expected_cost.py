"""The expected convention of PATE is an expected cost (a forecast), never an ε.

[PSMRTE18]'s tables charge every Confident-GNMax query its GNMax cost weighted by the true
Pr[answered]: a forecast of what running the queries costs, computed from the votes. The
library returns it as :class:`~dpteach.pate.analysis.PATEExpectedCost` (no ``epsilon``); a
:class:`~dpteach.pate.analysis.PATEPrivacy` (an ε bound) is only ever in the answered or the
all-queries convention. Checked on the library's results (every public function and
estimator attribute of ``dpteach.pate`` that carries privacy) and on the words of notebook 12
and the PATE page.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

import dpteach.pate
from dpteach._validation import ParameterError
from dpteach.datasets import make_toy_data
from dpteach.pate import analysis as P
from dpteach.pate.student import PATEStudent
from dpteach.pate.teachers import train_teachers

ROOT = Path(__file__).resolve().parents[2]
FIVE = np.array([[250, 0, 0], [220, 20, 10], [150, 60, 40], [100, 90, 60], [180, 70, 0]])
RUN = dict(threshold=200.0, sigma1=150.0, sigma2=40.0, delta=1e-5)
BOUND_CONVENTIONS = {"answered", "all"}


def _public_callables():
    """name → object for every public function and class of the modules of dpteach.pate."""
    out = {}
    for info in pkgutil.iter_modules(dpteach.pate.__path__):
        module = importlib.import_module(f"dpteach.pate.{info.name}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if callable(obj):
                out[f"{info.name}.{name}"] = obj
    return out


def _returns(obj) -> str:
    target = obj.fit if inspect.isclass(obj) and hasattr(obj, "fit") else obj
    return str(inspect.signature(inspect.unwrap(target)).return_annotation)


@pytest.fixture(scope="module")
def students():
    X, y = make_toy_data(1200, rng=0)
    votes = train_teachers(X[:900], y[:900], 20, rng=0).votes(X[900:])
    kinds = {"confident_gnmax": dict(threshold=15.0, sigma1=3.0, sigma2=2.0),
             "gnmax": dict(sigma2=2.0), "lnmax": dict(scale=1.0)}
    return {k: PATEStudent(aggregator=k, rng=0, **kw).fit(X[900:], votes)
            for k, kw in kinds.items()}


# --------------------------------------------------------------------- library results
def test_the_privacy_results_of_dpteach_pate_are_the_ones_checked_here():
    # a new public function returning privacy must be added to the checks below
    carrying = {k for k, obj in _public_callables().items()
                if re.search(r"PATEPrivacy|PATEExpectedCost", _returns(obj))}
    assert carrying == {"analysis.pate_epsilon", "analysis.lnmax_epsilon",
                        "analysis.pate_expected_cost"}


def test_expected_cost_is_a_forecast_with_no_epsilon():
    fields = {f.name for f in dataclasses.fields(P.PATEExpectedCost)}
    assert fields == {"expected_cost", "order", "delta", "expected_answered", "data_dependent",
                      "rdp", "orders"}
    for dd in (True, False):
        cost = P.pate_expected_cost(FIVE, data_dependent=dd, **RUN)
        assert type(cost) is P.PATEExpectedCost and not isinstance(cost, P.PATEPrivacy)
        assert not hasattr(cost, "epsilon") and not hasattr(cost, "convention")
        assert not hasattr(cost, "publishable")
    assert "not a guarantee" in P.PATEExpectedCost.__doc__
    assert "forecast" in P.pate_expected_cost.__doc__


def test_every_epsilon_the_library_returns_is_a_bound_convention():
    answered = np.array([True, True, False, False, True])
    results = [P.pate_epsilon(FIVE, answered=answered, data_dependent=dd, **RUN)
               for dd in (True, False)]
    results += [P.pate_epsilon(FIVE, sigma2=40.0, delta=1e-5, answered=mask, data_dependent=dd)
                for dd in (True, False) for mask in (None, answered)]
    results += [P.lnmax_epsilon(FIVE, scale=20.0, delta=1e-5, answered=mask)
                for mask in (None, answered)]
    for r in results:
        assert type(r) is P.PATEPrivacy and r.convention in BOUND_CONVENTIONS, r


def test_confident_gnmax_without_answered_is_refused_and_names_the_forecast():
    with pytest.raises(ParameterError, match=r"answered.*pate_expected_cost"):
        P.pate_epsilon(FIVE, **RUN)
    with pytest.raises(ParameterError, match=r"answered.*pate_expected_cost"):
        P.confident_gnmax_rdp([2.0, 20.0], FIVE, 200.0, 150.0, 40.0)
    with pytest.raises(ParameterError, match=r"\bconvention\b"):
        P.PATEPrivacy(1.0, 2.0, 1e-5, 3.0, "expected", True, [0.1], [2.0])


def test_the_students_attributes(students):
    for kind, s in students.items():
        # by class name: the check holds however often the module was imported
        privacy = {k: v for k, v in vars(s).items() if type(v).__name__ == "PATEPrivacy"}
        costs = {k: v for k, v in vars(s).items() if type(v).__name__ == "PATEExpectedCost"}
        assert set(privacy) == {"privacy_", "privacy_data_independent_"}, kind
        assert all(p.convention in BOUND_CONVENTIONS for p in privacy.values()), kind
        assert not any("expected" in k for k in privacy), kind
        assert not any(k.startswith("privacy_expected") for k in vars(s)), kind
        assert s.epsilon_ == s.privacy_.epsilon
        if kind == "confident_gnmax":
            assert set(costs) == {"expected_cost_", "expected_cost_data_independent_"}
            assert costs["expected_cost_"].data_dependent
            assert not costs["expected_cost_data_independent_"].data_dependent
        else:                            # every query is answered: nothing to forecast
            assert not costs, kind


# -------------------------------------------------------------------------------- words
#: how the expected convention used to be labelled as an ε
OLD_LABELS = re.compile(r"ε\s*(dd|di|data-dependent|data-independent)?,?\s*expected\b"
                        r"|expected convention"
                        r"|privacy_expected"
                        r"|ε (of one query|after k queries) \(data-(in)?dependent\)"
                        r"|\"total ε \(log scale\)\"")


def _notebook_source(name: str) -> str:
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"])


@pytest.mark.parametrize("path", ["notebooks/12_pate_votes_and_privacy.ipynb",
                                  "notebooks/13_pate_publishing_and_students.ipynb",
                                  "dpapp/pate_votes.py",
                                  "dpteach/plots/pate.py"])
def test_the_words_call_the_forecast_an_expected_cost(path):
    text = (_notebook_source(Path(path).name) if path.endswith(".ipynb")
            else (ROOT / path).read_text(encoding="utf-8"))
    old = sorted({m.group(0) for m in OLD_LABELS.finditer(text)})
    assert not old, f"{path} labels the expected convention as an ε: {old}"
    assert "expected cost" in text or "expected ε-cost" in text, path
