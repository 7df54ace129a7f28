"""Figures that speak to students: every public plot function, drawn, checked for its words
and its layout.

For EVERY public ``plot_*`` function of ``dpteach.plots`` (found by walking the package, so a
new one fails :func:`test_every_plot_function_has_an_example` until it gets a row in
:data:`EXAMPLES`, valid arguments like a notebook's), its ``*_data`` FigureData and its
matplotlib figure are checked:

* **one path** — the plot function is one statement, ``return to_matplotlib(x_data(...))``;
* **words** — the title, the axis titles, the legend (labels and title), the text marks and
  every tick label, in the FigureData and as drawn, hold no code-like token: an underscore
  inside a word (``sex_income``), a citation key (``KOV15``), ``dpteach``, a call ``()`` or
  TeX markup (``$e^x$``, ``\\varepsilon``: the browser would show it raw);
* **one y axis per panel** — no axes is a twin (no second axis sharing the panel's x);
* **counts on whole numbers** — an axis whose title counts something ("number of …",
  "epoch", "rounds", "runs", …) is flagged integer in the FigureData, and the drawn ticks of
  every integer axis sit on whole numbers with no decimal point;
* **legends cover no data** — the drawn legend's window extent contains no point of a line
  (each segment sampled every few pixels), of a marker, bar, band or heat map, nor a text
  mark; the browser's legends sit outside the plot (``orient`` bottom or right);
* **nothing clipped, readable ticks** — every drawn text lies inside the figure, and no two
  tick labels of an axis overlap;
* **the browser draws it too** — the Vega-Lite specification is valid against the Vega-Lite
  schema shipped with Altair.

:data:`BAD` holds a deliberately bad figure for each check, and
:func:`test_each_check_can_fail` shows that the check catches it.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import math
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection, QuadMesh
from matplotlib.figure import Figure

import dpteach.plots
from dpteach.plots.figure import FigureData, Series, to_matplotlib, to_vega_lite

# --------------------------------------------------------------------------- the checks
#: Tokens a student should not meet in a figure: (pattern, what it is).
CODE_LIKE = (
    (re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]"), "an underscore inside a word (a code name)"),
    (re.compile(r"\b[A-Z]+\d\d\b"), "a citation key"),
    (re.compile(r"dpteach"), "the package's name"),
    (re.compile(r"\(\)"), "a call ()"),
    (re.compile(r"\$[^$]+\$|\\[A-Za-z]+"), "TeX markup (the browser shows it raw)"),
)
#: An axis title that counts something: its ticks must be whole numbers.
COUNTS = re.compile(r"\b(number|numbers|epochs?|rounds|runs)\b|\bcounts? of\b")
#: Pixels of slack for the geometry checks (anti-aliasing, rounding).
SLACK = 1.0


def code_like(text: str) -> list[str]:
    """What is code-like in ``text`` (empty if nothing)."""
    return [f"{what}: {m.group(0)!r} in {text!r}" for pattern, what in CODE_LIKE
            for m in [pattern.search(text)] if m]


def data_words(data: FigureData) -> list[str]:
    """Every word of a FigureData a student reads: titles, legend, text marks, ticks."""
    words = [data.title, data.x_title, data.y_title, data.legend_title]
    words += [label for label, _ in data.legend_entries()]
    words += [t.text for t in data.texts]
    words += [label for ticks in (data.x_ticks, data.y_ticks) if ticks for _, label in ticks]
    if data.heatmap is not None:
        words.append(data.heatmap.label)
    for panel in data.panels:
        words += data_words(panel)
    return [w for w in words if w]


def drawn(fig: Figure) -> Figure:
    """``fig`` drawn by Agg (tick labels and the layout are only settled then)."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig


def _visible_ticks(ax, axis) -> list:
    """The drawn major tick labels of ``axis`` within the view, with their text."""
    low, high = sorted(ax.get_xlim() if axis is ax.xaxis else ax.get_ylim())
    out = []
    for tick in axis.get_major_ticks():
        v = tick.get_loc()
        if tick.label1.get_visible() and tick.label1.get_text() and low <= v <= high:
            out.append((v, tick.label1))
    return out


def drawn_texts(fig: Figure) -> list:
    """Every text artist of the drawn figure with something to read."""
    texts = [fig._suptitle] if fig._suptitle is not None else []
    for ax in fig.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        texts += [label for axis in (ax.xaxis, ax.yaxis) for _, label in _visible_ticks(ax, axis)]
        legend = ax.get_legend()
        if legend is not None:
            texts += [*legend.get_texts(), legend.get_title()]
    return [t for t in texts if t.get_visible() and t.get_text()]


def words_problems(data: FigureData, fig: Figure) -> list[str]:
    problems = [p for w in data_words(data) for p in code_like(w)]
    problems += [f"drawn: {p}" for t in drawn_texts(drawn(fig)) for p in code_like(t.get_text())]
    return problems


def twin_problems(fig: Figure) -> list[str]:
    """Axes sharing an x axis with another (``twinx``) or sitting on the same spot."""
    problems = []
    for ax in fig.axes:
        if len(ax.get_shared_x_axes().get_siblings(ax)) > 1:
            problems.append(f"axes {ax.get_title()!r} shares its x axis with another (a twin)")
    spots = [tuple(np.round(ax.get_position().bounds, 6)) for ax in fig.axes]
    if len(set(spots)) < len(spots):
        problems.append("two axes on the same spot: a second y axis")
    return problems


def _panels(data: FigureData) -> tuple:
    return data.panels or (data,)


def integer_problems(data: FigureData, fig: Figure) -> list[str]:
    """Count axes flagged integer, and integer axes drawn with whole-number ticks only."""
    drawn(fig)
    problems = []
    for panel, ax in zip(_panels(data), fig.axes):
        for name, title, ticks, integer, axis in (
                ("x", panel.x_title, panel.x_ticks, panel.x_integer, ax.xaxis),
                ("y", panel.y_title, panel.y_ticks, panel.y_integer, ax.yaxis)):
            if ticks is None and COUNTS.search(title) and not integer:
                problems.append(f"{name} axis {title!r} counts but is not flagged integer")
            if not integer:
                continue
            for v, label in _visible_ticks(ax, axis):
                if abs(v - round(v)) > 1e-9 * max(1.0, abs(v)) or "." in label.get_text():
                    problems.append(f"{name} axis {title!r} of counts has the tick "
                                    f"{label.get_text()!r} at {v!r}")
    return problems


def _segments(points: np.ndarray, step: float = 3.0) -> np.ndarray:
    """Points every ``step`` pixels along a polyline (display coordinates), gaps kept."""
    out = [points]
    for a, b in zip(points[:-1], points[1:]):
        if np.all(np.isfinite(a)) and np.all(np.isfinite(b)):
            n = int(np.hypot(*(b - a)) // step)
            if n > 1:
                t = np.linspace(0, 1, n + 1)[1:-1, None]
                out.append(a + t * (b - a))
    return np.concatenate(out)


def _data_points(ax) -> np.ndarray:
    """Display coordinates of everything plotted on ``ax`` (inside its box)."""
    pts = [np.empty((0, 2))]
    for line in ax.lines:
        xy = ax.transData.transform(np.asarray(line.get_xydata(), dtype=float))
        pts.append(_segments(xy) if line.get_linestyle() not in ("None", "") else xy)
    for coll in ax.collections:
        if isinstance(coll, PolyCollection):                        # bands
            for path in coll.get_paths():
                pts.append(_segments(coll.get_transform().transform(path.vertices)))
        elif not isinstance(coll, QuadMesh):
            pts.append(coll.get_offset_transform().transform(coll.get_offsets()))
    for patch in ax.patches:                                         # bars, spans
        box = patch.get_window_extent()
        gx, gy = np.meshgrid(np.linspace(box.x0, box.x1, 8), np.linspace(box.y0, box.y1, 8))
        pts.append(np.column_stack([gx.ravel(), gy.ravel()]))
    xy = np.concatenate(pts)
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    box = ax.get_window_extent()
    keep = ((xy[:, 0] >= box.x0 - SLACK) & (xy[:, 0] <= box.x1 + SLACK)
            & (xy[:, 1] >= box.y0 - SLACK) & (xy[:, 1] <= box.y1 + SLACK))
    return xy[keep]


def legend_problems(fig: Figure, spec: dict | None = None) -> list[str]:
    """A drawn legend over a plotted point, bar, band, heat map or text mark; a browser
    legend inside the plot."""
    drawn(fig)
    problems = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent().padded(-SLACK)
        pts = _data_points(ax)
        inside = ((pts[:, 0] > box.x0) & (pts[:, 0] < box.x1)
                  & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1))
        if inside.any():
            problems.append(f"the legend of {ax.get_title()!r} covers {inside.sum()} plotted "
                            f"points, e.g. at {pts[inside][0].round(1).tolist()} (pixels)")
        for coll in ax.collections:
            if isinstance(coll, QuadMesh) and coll.get_window_extent().overlaps(box):
                problems.append(f"the legend of {ax.get_title()!r} covers the heat map")
        for text in ax.texts:
            if text.get_window_extent().overlaps(box):
                problems.append(f"the legend of {ax.get_title()!r} covers {text.get_text()!r}")
    for layer in _layers(spec or {}):
        for channel in layer.get("encoding", {}).values():
            legend = channel.get("legend") if isinstance(channel, dict) else None
            if legend and legend.get("orient") not in ("bottom", "right"):
                problems.append(f"a browser legend inside the plot: {legend}")
    return problems


def _layers(spec: dict) -> list[dict]:
    """Every single-mark layer of a Vega-Lite specification (panels and nested layers
    flattened)."""
    if "mark" in spec:
        return [spec]
    return [leaf for part in (*spec.get("layer", []), *spec.get("vconcat", []))
            for leaf in _layers(part)]


def layout_problems(fig: Figure) -> list[str]:
    """Texts outside the figure (clipped), tick labels on top of each other."""
    drawn(fig)
    problems = []
    frame = fig.bbox.padded(SLACK)
    for text in drawn_texts(fig):
        box = text.get_window_extent()
        if not (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0
                and box.y1 <= frame.y1):
            problems.append(f"{text.get_text()!r} is clipped: {box.bounds} outside "
                            f"{fig.bbox.bounds}")
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = [label for _, label in _visible_ticks(ax, axis)]
            for a, b in zip(labels, labels[1:]):
                if _overlap(a, b):
                    problems.append(f"tick labels {a.get_text()!r} and {b.get_text()!r} "
                                    "overlap")
    return problems


def _overlap(a, b) -> bool:
    """Whether two neighbouring tick labels touch. Flat ones: their boxes overlap. Turned ones
    (parallel slanted strips, whose upright boxes always overlap): the distance between the
    strips, the anchors' spacing times the sine of the angle, is under the text's height."""
    angle = math.radians(a.get_rotation())
    if angle % math.pi == 0:
        return a.get_window_extent().padded(-SLACK).overlaps(b.get_window_extent().padded(-SLACK))
    (xa, ya), (xb, yb) = (t.get_transform().transform(t.get_position()) for t in (a, b))
    gap = abs((xb - xa) * math.sin(angle) - (yb - ya) * math.cos(angle))
    height = a.get_fontsize() * a.figure.dpi / 72
    return gap < 0.9 * height


@functools.cache
def _vega_lite_validator():
    import jsonschema

    import altair

    path = next((Path(altair.__file__).parent / "vegalite").glob("v*/schema/vega-lite-schema.json"))
    return jsonschema.Draft7Validator(json.loads(path.read_text()))


def vega_lite_problems(spec: dict) -> list[str]:
    json.dumps(spec, allow_nan=False)
    return [f"not valid Vega-Lite: {e.message[:200]} at {list(e.absolute_path)}"
            for e in list(_vega_lite_validator().iter_errors(spec))[:3]]


# ------------------------------------------------------------ valid arguments per function
@functools.cache
def fixture(name: str):
    """Arguments that cost something to build (a fitted model, an audit), built once."""
    rng = np.random.default_rng(0)
    if name == "votes":
        return np.array([200, 30, 20, 0, 0, 0, 0, 0, 0, 0])
    if name == "run":
        return np.array([[250, 0], [230, 20], [150, 100], [125, 125], [240, 10], [200, 50]])
    if name == "moons":
        from dpteach.datasets import make_two_moons
        return make_two_moons(200, noise=0.25, rng=0)
    if name == "dpsgd":
        from dpteach.learning.dpsgd import DPSGDClassifier
        X, y = fixture("moons")
        return DPSGDClassifier(noise_multiplier=1.0, max_grad_norm=1.0, batch_size=32, epochs=3,
                               hidden=(8,), rng=0).fit(X, y)
    if name == "sgd":
        from dpteach.learning.dpsgd import DPSGDClassifier
        X, y = fixture("moons")
        return DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, batch_size=32,
                               epochs=3, hidden=(8,), rng=0).fit(X, y)
    if name == "roc":
        from dpteach.attacks.membership import roc_from_scores
        members = rng.random(400) < 0.5
        return roc_from_scores(rng.standard_normal(400) + members, members, name="loss attack")
    if name == "toy":
        from dpteach.datasets import make_toy_data
        return make_toy_data(80, rng=0)
    if name == "curve":
        from dpteach.learning import erm_experiments
        X, y = fixture("toy")
        return erm_experiments.accuracy_vs_epsilon(X, y, X, y, [0.5, 2.0], 0.1, data_norm=4.0,
                                                   rng=0, n_trials=2)
    if name == "sensitivity":
        from dpteach.learning import erm_experiments
        X, y = fixture("toy")
        return erm_experiments.minimizer_sensitivity(X, y, 0.1, data_norm=4.0, n_random=4,
                                                     n_adversarial=2, rng=0)
    if name == "toy_fits":
        from dpteach.learning.erm_experiments import toy_fits
        return toy_fits(epsilon=1.0, lam=0.01, n_fits=3)
    if name == "audit":
        from dpteach.audit import cases
        return cases.audit_case("laplace", 1.0).audit(2_000, rng=0)
    if name == "one_run":
        from dpteach.audit import one_run
        members = rng.random(300) < 0.5
        return one_run.one_run_audit(members + rng.normal(0, 1, 300), members, k_plus=30,
                                     k_minus=30)
    if name == "gamma":
        from dpteach.plots.laftr import sweep_gammas
        return sweep_gammas("eo")[1]
    if name == "class_sizes":
        import pandas as pd

        from dpteach.attacks.linkage import class_sizes
        return class_sizes(pd.DataFrame({"zip": [1, 2, 2, 3, 3, 3] + [4] * 30}), "zip")
    raise KeyError(name)


def _grid():
    clf, (X, y) = fixture("dpsgd"), fixture("moons")
    from dpteach.plots.dpsgd import decision_grid
    x0, x1, p = decision_grid(clf, X, 20)
    return dict(x0=x0, x1=x1, p=p, X=X, y=y, title="P(class 1) after training (ε = 2.5)")


def _laplace_rdp_curve():
    """Notebook 06's curve: 100 Laplace answers with ε₀ = 0.1, at the default orders."""
    from dpteach.accounting.rdp import DEFAULT_ORDERS, laplace_rdp
    return dict(orders=DEFAULT_ORDERS, rdp=100 * laplace_rdp(DEFAULT_ORDERS, scale=10.0),
                delta=1e-5)


LONG_NAMES = ["age", "sex", "race", "zip code", "income", "education", "hours per week",
              "married", "occupation", "country"]
#: "module.plot_x" → a function returning valid keyword arguments (as a notebook passes them).
EXAMPLES = {
    "accounting.plot_composition": lambda: dict(k_max=1000, epsilon=0.1, delta=1e-5,
                                                mark_k=100),
    "accounting.plot_dpsgd_epsilon": lambda: dict(steps_max=15_000, pld_points=3,
                                                  mark_steps=2_000),
    "accounting.plot_amplification": lambda: dict(epsilons=(0.5, 1.0, 2.0, 5.0)),
    "budget.plot_composition_tradeoff": lambda: dict(k=100, epsilon=0.1, delta=1e-5),
    "budget.plot_dpsgd_tradeoff": lambda: dict(n=60_000, epochs=64, batch=256,
                                               noise_multiplier=1.1),
    "budget.plot_rdp_orders": lambda: _laplace_rdp_curve(),
    "anonymity.plot_uniqueness_curve": lambda: dict(
        curves={"Adult": [0.0, 0.01, 0.2, 0.8, 0.97], "uniform": [0.0, 0.02, 0.3, 0.9, 1.0]},
        attributes=["sex", "race", "age", "zip", "birth_date"]),
    "anonymity.plot_class_sizes": lambda: dict(sizes=fixture("class_sizes"), k=5,
                                               name="ZIP code, birth date, sex"),
    "attacks.plot_neighbour_differences": lambda: dict(
        query=__import__("dpteach.attacks.differencing", fromlist=["x"]).count_at_least(4),
        db=[1, 0, 1, 1, 0, 0, 1, 0, 0, 0]),
    "attacks.plot_noisy_difference": lambda: dict(epsilon=0.8, scenario="two_queries"),
    "attacks.plot_attack_success": lambda: dict(highlight=1.0),
    "attacks.plot_averaging_attack": lambda: dict(epsilon=0.5, k_max=300,
                                                  simulated={1: 0.56, 10: 0.8, 100: 0.99}),
    "audit.plot_audit_histograms": lambda: dict(result=fixture("audit")),
    "audit.plot_bound_convergence": lambda: dict(trials=[10, 100, 1000], bounds=[0.0, 0.3, 0.8],
                                                 claimed_epsilon=1.0, true_epsilon=1.0),
    "audit.plot_canary_scores": lambda: dict(audit=fixture("one_run"), claimed_epsilon=2.0),
    "audit.plot_one_run_bound": lambda: dict(m=1000, r=100, delta=1e-4, claimed_epsilon=1.0),
    "calibration.plot_neighbouring_densities": lambda: dict(sensitivity=1.0, epsilon=1.0,
                                                            delta=1e-5, mechanism="both"),
    "calibration.plot_privacy_loss": lambda: dict(sensitivity=1.0, epsilon=1.0, delta=1e-5,
                                                  mechanism="gaussian"),
    "calibration.plot_sigma_comparison": lambda: dict(sensitivity=1.0, delta=1e-5),
    "calibration.plot_error_vs_epsilon": lambda: dict(sensitivity=1.0, delta=1e-5),
    "calibration.plot_dimension_crossover": lambda: dict(epsilon=1.0, delta=1e-5),
    "dp_fairness.plot_group_accuracy": lambda: dict(
        epsilons=[0.1, 1.0, 10.0], mean=[[0.80, 0.82, 0.84], [0.3, 0.5, 0.6]],
        groups=["men >50K", "women >50K"], sd=[[0.01, 0.01, 0.0], [0.05, 0.04, 0.01]],
        nonprivate=[0.85, 0.62], selected=1.0, title="DP-SGD, by sex and income"),
    "dpsgd.plot_mia_roc": lambda: dict(results=[fixture("roc")], epsilon=[2.0, 8.0],
                                       delta=1e-5),
    "dpsgd.plot_privacy_utility": lambda: dict(epsilons=[0.5, 1.0, 4.0],
                                               accuracies=[0.6, 0.8, 0.9], baseline=0.95),
    "dpsgd.plot_grad_norm_histogram": lambda: dict(
        norms=np.abs(np.random.default_rng(1).normal(1, 1, 300)), max_grad_norm=1.0),
    "dpsgd.plot_training_history": lambda: dict(
        histories={"σ = 1": fixture("dpsgd").history_, "non-private": fixture("sgd").history_}),
    "dpsgd.plot_decision_boundary": lambda: dict(clf=fixture("dpsgd"), X=fixture("moons")[0],
                                                 y=fixture("moons")[1], grid_size=20),
    "dpsgd.plot_probability_grid": _grid,
    "erm.plot_decision_boundaries": lambda: dict(
        X=fixture("toy")[0], y=fixture("toy")[1], nonprivate=([1.0, 0.5], 0.1),
        private=[([0.8, 0.7], 0.0)], label="fit on the neighbour D′"),
    "erm.plot_toy_boundaries": lambda: dict(fits=fixture("toy_fits")),
    "erm.plot_accuracy_curve": lambda: dict(curve=fixture("curve"), baseline=0.5),
    "erm.plot_sensitivity": lambda: dict(result=fixture("sensitivity")),
    "erm.plot_excess_risk": lambda: dict(
        epsilons=[0.5, 1.0, 2.0], measured={"output": np.full((3, 4), 0.1),
                                            "objective": np.full((3, 4), 0.01)},
        bounds={"output": [2.0, 1.0, 0.5], "objective": [0.2, 0.1, 0.05]}),
    "erm.plot_noise_norm": lambda: dict(norms=np.linspace(0.5, 3.0, 50), d=2, beta=1.0),
    "erm.plot_lambda_scan": lambda: dict(
        lams=[1e-4, 1e-3, 1e-2], accuracy={"objective": [0.8, 0.82, 0.8],
                                           "output": [0.3, 0.7, 0.78], "none": [0.85, 0.84, 0.8]},
        epsilon=1.0, baseline=0.75),
    "fairness.plot_group_roc": lambda: dict(female_threshold=0.3, male_threshold=0.5),
    "fairness.plot_threshold_tradeoff": lambda: dict(female_threshold=0.3, male_threshold=0.5,
                                                     gap="equalized_odds_worst"),
    "fairness_defs.plot_calibration_by_group": lambda: dict(
        y_true=[0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0],
        y_prob=[0.1, 0.2, 0.5, 0.6, 0.9, 0.95, 0.05, 0.3, 0.4, 0.5, 0.8, 0.7],
        sensitive_features=[0] * 6 + [1] * 6, n_bins=3, group_names={0: "men", 1: "women"}),
    "fairness_defs.plot_lfr_tradeoff": lambda: dict(
        Az=[0.0, 1.0, 10.0], y_acc=[0.8, 0.78, 0.7], y_discrim=[0.2, 0.1, 0.01],
        baseline=(0.81, 0.19), selected=1.0, data_name="German credit"),
    "fairness_defs.plot_awareness": lambda: dict(
        loss=[0.15, 0.14], gap=[0.1, 0.11], bound=[0.2, 1.0],
        labels=["tied together", "separated"], scale=0.1),
    "laftr.plot_frontier": lambda: dict(objective="eo", gamma=fixture("gamma")),
    "laftr.plot_group_rates": lambda: dict(objective="eo", gamma=fixture("gamma")),
    "many_queries.plot_crossover": lambda: dict(k=1000, epsilon=1.0),
    "many_queries.plot_crossover_epsilon": lambda: dict(k=1000, epsilon=1.0),
    "many_queries.plot_mwem_rounds": lambda: dict(
        rounds=[1, 10, 30], errors=[[0.40, 0.40], [0.05, 0.07], [0.10, 0.14]], epsilon=0.5,
        reference=0.2),
    "many_queries.plot_needed": lambda: dict(),
    "many_queries.plot_boosting_rounds": lambda: dict(
        median_errors=[0.3, 0.2, 0.1], round_errors=[0.3, 0.25, 0.15], reference=0.05),
    "many_queries.plot_pmw_errors": lambda: dict(
        errors=[0.01, 0.2, 0.03, 0.0, 0.15], updated=[False, True, False, False, True],
        threshold=0.05),
    "pate.plot_vote_histogram": lambda: dict(votes=fixture("votes"), threshold=200.0),
    "pate.plot_answer_distribution": lambda: dict(votes=fixture("votes"), threshold=200.0,
                                                  sigma1=150.0, sigma2=40.0),
    "pate.plot_pate_privacy": lambda: dict(votes=fixture("votes"), threshold=200.0,
                                           sigma1=150.0, sigma2=40.0, mark_k=100),
    "pate_runs.plot_teacher_agreement": lambda: dict(
        votes=fixture("run"), correct=[True, True, False, False, True, True], threshold=300.0,
        bins=5),
    "pate_runs.plot_query_costs": lambda: dict(
        votes=fixture("run"), sigma2=40.0, order=13.5,
        answered=[True, False, True, False, True, False], bins=10),
    "pate_runs.plot_accuracy_vs_epsilon": lambda: dict(
        curves={"PATE": ([0.5, 1.0, 2.0], [0.80, 0.82, 0.83]),
                "DP-SGD": ([0.5, 1.0, 2.0], [0.70, 0.75, 0.80])}, baseline=0.841),
    "randomized_response.plot_rr_estimator": lambda: dict(true_rate=0.3, n=100, gamma=0.25,
                                                          n_trials=500, rng=0),
    "randomized_response.plot_rr_std_error": lambda: dict(rate=0.3),
    "randomized_response.plot_rr_probabilities": lambda: dict(gamma=0.25),
    "randomized_response.plot_local_vs_central": lambda: dict(epsilon=1.0),
    "reconstruction.plot_recovery_vs_noise": lambda: dict(
        relative_noise=[0.0, 0.25, 0.5, 1.0],
        fractions={"least squares": [1.0, 1.0, 0.9, 0.7], "LP (l∞)": [1.0, 1.0, 0.98, 0.8]},
        n=100, highlight=(0.5, 0.9)),
    "reconstruction.plot_recovery_vs_epsilon": lambda: dict(
        epsilons=[0.1, 1.0, 10.0], fractions={"least squares": [0.5, 0.52, 0.7]}, delta=1e-6,
        highlight=(3.0, 0.6)),
    "reconstruction.plot_tracing_power": lambda: dict(
        x=[10.0, 100.0, 1000.0], powers={"normal approximation": [0.06, 0.2, 0.9]}, fpr=0.05,
        ceiling=math.e * 0.05),
    "definition.plot_event_probabilities": lambda: dict(epsilon=1.0, low=2.0, high=5.0),
    "definition.plot_posterior_bound": lambda: dict(epsilon=1.0, prior=0.3),
    "definition.plot_dp_test_region": lambda: dict(
        epsilon=1.0, delta=0.01, fpr=[0.0, 0.1, 0.5, 1.0], tpr=[0.0, 0.2, 0.7, 1.0]),
    "practice.plot_release_comparison": lambda: dict(
        categories=LONG_NAMES[:4], true_counts=[120.0, 80.0, 40.0, 10.0],
        releases={"Laplace": [121.5, 78.2, 41.0, 9.1], "discrete Laplace": [119.0, 81.3, 38.8, 11.7]},
        epsilon=1.0, x_title="education"),
    "selection.plot_selection_probabilities": lambda: dict(
        probabilities=np.full(27, 1 / 27), labels=[str(a) for a in range(18, 45)], truth=3,
        title="Sparse vector's answer", xlabel="reported 90th percentile"),
    "selection.plot_exponential_mechanism": lambda: dict(scores=[3.0, 1.0, 0.0, 2.5],
                                                         sensitivity=1.0, epsilon=0.7,
                                                         labels="abcd"),
    "selection.plot_private_median": lambda: dict(data=[20.0, 21.0, 21.0, 22.0, 40.0],
                                                  candidates=np.arange(18.0, 45.0), epsilon=0.5),
    "selection.plot_private_mode": lambda: dict(
        data=["nurse", "clerk", "clerk"], candidates=["nurse", "clerk", "driver"], epsilon=1.0),
    "selection.plot_noisy_max_comparison": lambda: dict(
        scores=[10.0, 9.0, 5.0, 7.0, 3.0, 2.0, 1.0, 8.0, 9.0, 4.0], sensitivity=1.0,
        epsilon=1.0, labels=LONG_NAMES),
    "selection.plot_svt_vs_composition": lambda: dict(epsilon=0.5, k_max=500, max_above=2),
    "selection.plot_event_privacy_loss": lambda: dict(
        event_probabilities={"Laplace": (0.2, 0.25), "broken": (0.0, 0.22),
                             "snapping": (0.3, 0.2)}, epsilon=1.0),
    "selection.plot_block_estimates": lambda: dict(
        estimates=np.random.default_rng(0).normal(38, 3, 60), lower=17.0, upper=90.0,
        released=38.4, truth=38.6),
    "stable_selection.plot_block_votes": lambda: dict(
        answers=[("age", "education")] * 9 + [("age", "hours per week")] * 3, epsilon=1.0,
        delta=1e-3, n_records=1_200),
    "stable_selection.plot_stable_selection": lambda: dict(
        votes_by_size={300: [["age"] * 5 + ["sex"] * 4 + ["education"] * 3] * 2,
                       3_000: [["age"] * 10 + ["sex"] * 2, ["age"] * 11 + ["education"]]},
        size=300, epsilon=1.0, delta=1e-3),
    "selection.plot_ptr_distance": lambda: dict(
        data=np.random.default_rng(0).integers(17, 90, 200), lower=17, upper=90, epsilon=1.0,
        delta=1e-6, bounds=np.linspace(0, 5, 51)),
}


def public_plot_functions() -> dict:
    """"module.plot_x" → function, for every public plot function of dpteach.plots."""
    found = {}
    for info in pkgutil.iter_modules(dpteach.plots.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"dpteach.plots.{info.name}")
        for name, obj in vars(module).items():
            if (name.startswith("plot_") and inspect.isfunction(obj)
                    and obj.__module__ == module.__name__):
                found[f"{info.name}.{name}"] = obj
    return found


PLOTS = public_plot_functions()


def _data_function(key: str):
    module, name = key.split(".")
    return getattr(importlib.import_module(f"dpteach.plots.{module}"),
                   name.removeprefix("plot_") + "_data")


@functools.cache
def built(key: str):
    """(FigureData, its matplotlib figure drawn by the plot function, Vega-Lite spec)."""
    kwargs = EXAMPLES[key]()
    data = _data_function(key)(**kwargs)
    fig = PLOTS[key](**kwargs)
    return data, fig, to_vega_lite(data)


@pytest.fixture(autouse=True, scope="module")
def _close_figures():
    yield
    built.cache_clear()
    import matplotlib.pyplot as plt
    plt.close("all")


# -------------------------------------------------------------------------------- tests
def test_every_plot_function_has_an_example():
    assert len(PLOTS) >= 60                               # the walk found the chapters
    assert sorted(PLOTS) == sorted(EXAMPLES), (
        f"without an example: {sorted(set(PLOTS) - set(EXAMPLES))}; "
        f"not a plot function: {sorted(set(EXAMPLES) - set(PLOTS))}")


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_plot_function_is_its_data_drawn_by_matplotlib(key):
    # one figure path: plot_x(...) = to_matplotlib(x_data(...)), the same words and lines
    data, fig, _ = built(key)
    assert isinstance(data, FigureData) and isinstance(fig, Figure)
    again = to_matplotlib(data)

    def words(f):                 # a narrow figure wraps a long title at another word
        return [" ".join(ax.get_title().split()) for ax in f.axes]

    assert words(fig) == words(again)
    assert [ln.get_gid() for ax in fig.axes for ln in ax.lines] == \
        [ln.get_gid() for ax in again.axes for ln in ax.lines]


def path_problems(func) -> list[str]:
    """Unless ``func`` is one statement, ``return to_matplotlib(x_data(...), ...)`` with
    x_data the data function of the same name: what else it does."""
    import ast
    import textwrap

    from dpteach.plots.figure import drawn

    want = func.__name__.removeprefix("plot_") + "_data"
    inner = inspect.unwrap(func)
    if inner.__code__ is drawn(lambda: None).__wrapped__.__code__:     # plot_x = drawn(x_data)
        core = inspect.getclosurevars(inner).nonlocals["core"]
        return [] if core.__name__ == want else [f"{func.__name__} draws {core.__name__}"]
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]                                            # the docstring
    ok = (len(body) == 1 and isinstance(body[0], ast.Return)
          and isinstance(call := body[0].value, ast.Call)
          and isinstance(call.func, ast.Name) and call.func.id == "to_matplotlib"
          and call.args and isinstance(inner := call.args[0], ast.Call)
          and isinstance(inner.func, ast.Name) and inner.func.id == want)
    return [] if ok else [f"{func.__name__} is not return to_matplotlib({want}(...)): "
                          f"{ast.unparse(tree.body[0])[:300]}"]


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_one_figure_path(key):
    # plot_x(...) = to_matplotlib(x_data(...)): no plot function draws anything itself
    assert not path_problems(PLOTS[key])


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_words_name_things_not_code(key):
    data, fig, _ = built(key)
    assert not words_problems(data, fig)


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_one_y_axis_per_panel(key):
    data, fig, _ = built(key)
    assert not twin_problems(fig)


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_counts_have_whole_number_ticks(key):
    data, fig, _ = built(key)
    assert not integer_problems(data, fig)


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_legends_cover_no_data(key):
    data, fig, spec = built(key)
    assert not legend_problems(fig, spec)


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_nothing_clipped_and_ticks_readable(key):
    data, fig, _ = built(key)
    assert not layout_problems(fig)


@pytest.mark.parametrize("key", sorted(PLOTS))
def test_the_browser_chart_is_valid_vega_lite(key):
    _, _, spec = built(key)
    assert not vega_lite_problems(spec)


# ------------------------------------------------------------------- each check can fail
def _line_data(**kw) -> FigureData:
    x = np.linspace(0.0, 1.0, 50)
    return FigureData(kw.pop("title", "t"), kw.pop("x_title", "x"), "y",
                      series=(Series("s", kw.pop("label", "a line"), x, x),), **kw)


def _twin() -> tuple:
    fig = to_matplotlib(_line_data())
    fig.axes[0].twinx().plot([0, 1], [5, 3])
    return None, fig


def _fractional_counts() -> tuple:
    data = _line_data(x_title="number of queries", x_integer=True)
    fig = to_matplotlib(data)
    fig.axes[0].xaxis.set_major_locator(__import__("matplotlib.ticker").ticker.MultipleLocator(0.25))
    fig.axes[0].xaxis.set_major_formatter("{x:.2f}")
    return data, fig


def _legend_over_the_line() -> tuple:
    fig = to_matplotlib(_line_data())
    ax = fig.axes[0]
    ax.legend(ax.lines, ["a line"], loc="center")    # the line y = x runs through the centre
    return None, fig


def _clipped_title() -> tuple:
    fig = to_matplotlib(_line_data())
    fig.axes[0].set_title("a title far too long " * 8)     # not wrapped by to_matplotlib
    return None, fig


def _crowded_ticks() -> tuple:
    fig = to_matplotlib(_line_data())
    fig.axes[0].set_xticks(np.linspace(0, 1, 30), [f"candidate number {i}" for i in range(30)])
    return None, fig


BAD = {
    "code name": (lambda: (_line_data(title="dpsgd, by sex_income"), None), words_problems),
    "citation key": (lambda: (_line_data(label="optimal (KOV15)"), None), words_problems),
    "function call": (lambda: (_line_data(x_title="sd = rr_std_error()"), None),
                      words_problems),
    "TeX": (lambda: (_line_data(label=r"bound $e^{\varepsilon}$"), None), words_problems),
    "twin axes": (_twin, twin_problems),
    "counts unflagged": (lambda: (_line_data(x_title="number of queries"), None),
                         integer_problems),
    "fractional counts": (_fractional_counts, integer_problems),
    "legend over data": (_legend_over_the_line, legend_problems),
    "browser legend inside": (lambda: (None, None), legend_problems),
    "clipped title": (_clipped_title, layout_problems),
    "overlapping ticks": (_crowded_ticks, layout_problems),
    "invalid Vega-Lite": (lambda: (None, None), vega_lite_problems),
    "drawing in the plot function": (lambda: (None, None), path_problems),
}


def plot_drawn_directly(epsilon, ax=None):          # what the one path forbids
    fig = to_matplotlib(_line_data(), ax=ax)
    fig.axes[0].axhline(epsilon)
    return fig


def plot_line(ax=None):                              # and what it asks
    return to_matplotlib(line_data(), ax=ax)


def line_data():
    return _line_data()


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_check_can_fail(name):
    make, check = BAD[name]
    data, fig = make()
    if fig is None and data is not None:
        fig = to_matplotlib(data)
    if check is words_problems:
        problems = check(data, fig)
    elif check is integer_problems:
        problems = check(data, fig)
    elif name == "browser legend inside":
        spec = to_vega_lite(_line_data())
        spec["layer"][0]["encoding"]["color"]["legend"]["orient"] = "top-left"
        problems = legend_problems(to_matplotlib(_line_data()), spec)
    elif check is vega_lite_problems:
        spec = to_vega_lite(_line_data())
        spec["layer"][0]["mark"]["type"] = "curve"
        problems = check(spec)
    elif check is path_problems:
        assert check(plot_drawn_directly), "the check path_problems missed a plot that draws"
        assert not check(plot_line)
        return
    else:
        problems = check(fig)
    assert problems, f"the check {check.__name__} missed a {name}"
    # ... and the same check passes the figure done right
    good = _line_data(x_integer=True, x_title="number of queries") \
        if check is integer_problems else _line_data()
    good_fig = to_matplotlib(good)
    if check in (words_problems, integer_problems):
        assert not check(good, good_fig)
    elif check is vega_lite_problems:
        assert not check(to_vega_lite(good))
    else:
        assert not check(good_fig)
