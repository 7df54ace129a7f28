"""App page "Audit a mechanism": test a privacy claim from the mechanism's outputs.

Choose a mechanism of dpteach (:data:`MECHANISMS`, the correct cases of
:data:`dpteach.audit.cases.CORRECT` that the shipped table holds), optionally swap in one
of its planted bugs (:data:`~dpteach.audit.cases.PLANTED_BUGS`) or NumPy's floating-point
Laplace sampler seen through Mironov's test (:data:`~dpteach.audit.cases.FLOATING_POINT`),
set the claimed ε and the number of runs per side. The auditor
(:func:`dpteach.audit.runs.audit_mechanism`, through
:meth:`~dpteach.audit.cases.AuditCase.audit`) runs it on two neighbouring inputs D and D′,
chooses a test on half the runs and certifies a 95% lower bound on ε on the other half.
The page shows the two output histograms with the chosen event
(:func:`dpteach.plots.audit.audit_histograms_data`), the bound against the claim and the
pair's true ε, and the bound as the runs grow
(:func:`dpteach.plots.audit.bound_convergence_data`).

Speed: one audit takes from a few ms to about 10-15 s on a 2-core machine (10⁵ runs per side
of the exact discrete Laplace sampler; of the sparse vector's Python loop, about 5 s), so no
slider move runs one. Every audit of the sliders' grid (:data:`CASES` × :data:`CLAIMS` ×
:data:`TRIALS`, seeded by :func:`cell_seed`) is run once by
``scripts/precompute_attack_tables.py`` and shipped in ``dpteach/data/audit_page.npz``: the
audit's numbers and the figure's data, exactly as the plots module made them (values as
float32). A slider move reads one cell (:func:`dpteach.tables.load_audit_table`, loaded
lazily, once per process) and draws it in the browser. A combination the auditor refuses
(too few runs to say anything about the claim) is refused by the library itself, in
microseconds, and shown as a friendly message.

Every correct case of :data:`~dpteach.audit.cases.CORRECT` is on the page, the snapping
mechanism and the secure Gaussian included, except PATE's GNMax and MWEM (:data:`UNTABLED`;
notebook 13 and the tests audit them). A case added to ``CORRECT`` goes into
:data:`UNTABLED` (a test checks that ``MECHANISMS + UNTABLED`` is ``CORRECT``) until
``scripts/precompute_attack_tables.py --only audit`` has been rerun (each case adds 19 claims
× 5 run counts of audits, most of the time in the 10⁵-run cells; MWEM runs one ``mwem()``
call per run, about 0.2 ms, which would add about 20 minutes).
"""

from __future__ import annotations

import dataclasses
import json
import zlib

import numpy as np
import streamlit as st

from dpteach._validation import ParameterError
from dpteach.audit.cases import BUGS, CORRECT, FLOATING_POINT, PLANTED_BUGS, audit_case
from dpteach.plots import PALETTE
from dpteach.plots.audit import bound_convergence_data
from dpteach.plots.figure import FigureData, Rule, Series
from dpteach.tables import load_audit_table
from dpapp.charts import show_chart
from dpapp.frame import tradeoff
from dpapp.messages import friendly_errors
from dpapp.widgets import bound_radio, bound_selectbox, EPSILONS, fmt, log_slider, PRIVACY_CAPTION

#: correct cases of :data:`~dpteach.audit.cases.CORRECT` that the shipped table does not hold
#: (a case added to the library goes here until the table is rerun)
UNTABLED: tuple[str, ...] = ("gnmax", "mwem")
#: the mechanisms the page offers: every correct case the table holds
MECHANISMS = tuple(name for name in CORRECT if name not in UNTABLED)
#: every case the table holds: the mechanisms, their planted bugs, the floating-point leak
CASES = MECHANISMS + BUGS + FLOATING_POINT
#: what the "planted bug" radio offers for each mechanism (the floating-point sampler is
#: NumPy's own, not planted, but it breaks the Laplace mechanism's claim all the same)
BUG_CHOICES = {name: ((PLANTED_BUGS[name],) if name in PLANTED_BUGS else ())
               + (FLOATING_POINT if name == "laplace" else ()) for name in MECHANISMS}
#: the claimed-ε slider (log scale) and the runs-per-side slider
CLAIMS = EPSILONS
TRIALS = (1_000, 3_000, 10_000, 30_000, 100_000)
DEFAULT_MECHANISM, DEFAULT_CLAIM, DEFAULT_TRIALS = "laplace", 1.0, 10_000
#: the audits' confidence and the histogram's bins
CONFIDENCE = 0.95
BINS = 40
#: seed of the table's audits (see :func:`cell_seed`)
SEED = 20241113
CHART_HEIGHT = 380
NO_BUG = "none: the correct mechanism"
#: The lesson's prepared views (widget key → value), offered above the page.
HALF_SCALE = "Laplace with half the scale (planted bug)"
FLOATING = "Laplace mechanism with NumPy's floating-point sampler"
PRESETS = {
    "Correct Laplace": {"audit_mechanism": "laplace", "audit_bug_laplace": NO_BUG,
                        "audit_claim": 1.0, "audit_runs": 10_000},
    "Bug: half the noise": {"audit_mechanism": "laplace", "audit_bug_laplace": HALF_SCALE,
                            "audit_claim": 1.0, "audit_runs": 10_000},
    "The bug, 1,000 runs": {"audit_mechanism": "laplace", "audit_bug_laplace": HALF_SCALE,
                            "audit_claim": 1.0, "audit_runs": 1_000},
    "Floating-point Laplace": {"audit_mechanism": "laplace", "audit_bug_laplace": FLOATING,
                               "audit_claim": 1.0, "audit_runs": 100_000},
}


def cell_seed(name: str, claim: float, n_trials: int) -> np.random.SeedSequence:
    """The seed of the table's audit of ``name`` claiming ``claim`` with ``n_trials`` runs.

    ``SeedSequence((SEED, crc32(name), round(claim·10⁶), n_trials))``: each cell has its own
    stream, which does not change when the grid grows.
    """
    return np.random.SeedSequence((SEED, zlib.crc32(name.encode()), int(round(claim * 1e6)),
                                   int(n_trials)))


#: the numbers of an :class:`~dpteach.audit.runs.AuditResult` the table keeps
RESULT_FIELDS = ("claimed_epsilon", "delta", "confidence", "test", "bound", "n_trials",
                 "n_select", "n_eval", "event", "threshold", "above", "numerator", "count",
                 "count_prime", "p_lo", "p_prime_hi", "epsilon_lower_bound", "mu_lower_bound",
                 "max_certifiable")


def result_numbers(result) -> dict:
    """The :data:`RESULT_FIELDS` of an AuditResult as plain Python numbers and text."""
    out = {}
    for name in RESULT_FIELDS:
        v = getattr(result, name)
        if isinstance(v, (bool, np.bool_)):
            v = bool(v)
        elif isinstance(v, (int, np.integer)):
            v = int(v)
        elif isinstance(v, (float, np.floating)):
            v = float(v)
        out[name] = v
    return out


# ---------------------------------------------------------------- figures as arrays
def figure_record(data: FigureData, pool: dict) -> dict:
    """``data`` as JSON-able text, its arrays as ``[offset, length]`` into a float32 pool.

    ``pool`` maps each distinct array's bytes (float32) to its ``[offset, length]`` in the
    concatenation of the pool's arrays (in insertion order); :func:`figure_from_record`
    undoes it.
    """
    def ref(values):
        if values is None:
            return None
        arr = np.ascontiguousarray(values, dtype="<f4")
        key = arr.tobytes()
        if key not in pool:
            pool[key] = [sum(length for _, length in pool.values()), int(arr.size)]
        return pool[key]

    series = [{"key": s.key, "label": s.label, "kind": s.kind, "colour": s.colour,
               "dash": s.dash, "width": float(s.width), "opacity": float(s.opacity),
               "x": ref(s.x), "y": ref(s.y), "y2": ref(s.y2)} for s in data.series]
    return {"title": data.title, "x_title": data.x_title, "y_title": data.y_title,
            "series": series, "rules": [dataclasses.asdict(r) for r in data.rules],
            "log_x": data.log_x, "log_y": data.log_y,
            "x_domain": None if data.x_domain is None else [float(v) for v in data.x_domain],
            "y_domain": None if data.y_domain is None else [float(v) for v in data.y_domain],
            "legend": data.legend, "extra": data.extra}


def pool_values(pool: dict) -> np.ndarray:
    """The pool's arrays, concatenated (the ``values`` that records point into)."""
    if not pool:
        return np.zeros(0, dtype="<f4")
    return np.concatenate([np.frombuffer(key, dtype="<f4") for key in pool])


def figure_from_record(record: dict, values: np.ndarray) -> FigureData:
    """The :class:`FigureData` of a :func:`figure_record` (arrays as float64)."""
    def arr(ref):
        return None if ref is None else values[ref[0]:ref[0] + ref[1]].astype(float)

    series = tuple(Series(s["key"], s["label"], arr(s["x"]), arr(s["y"]), kind=s["kind"],
                          y2=arr(s["y2"]), colour=s["colour"], dash=s["dash"],
                          width=s["width"], opacity=s["opacity"]) for s in record["series"])
    rules = tuple(Rule(**r) for r in record["rules"])
    dom = {k: None if record[k] is None else tuple(record[k]) for k in ("x_domain", "y_domain")}
    return FigureData(record["title"], record["x_title"], record["y_title"], series, rules,
                      log_x=record["log_x"], log_y=record["log_y"], legend=record["legend"],
                      extra=dict(record["extra"]), **dom)


# ---------------------------------------------------------------------- the table
def _cell(table: dict, flat: int) -> dict | None:
    """The JSON entry of grid cell ``flat`` (None: refused)."""
    lo, hi = (int(v) for v in table["cell_offsets"][flat:flat + 2])
    return json.loads(table["cells"][lo:hi].decode("utf-8")) if hi > lo else None


def _index(table: dict, name: str, claim: float, n_trials: int) -> tuple[int, int, int]:
    try:
        return (table["cases"].index(name), table["claims"].index(claim),
                table["trials"].index(n_trials))
    except ValueError:
        raise ParameterError(f"the page's table holds the cases {table['cases']}, the claims "
                             f"{table['claims']} and the run counts {table['trials']}; got "
                             f"name={name!r}, claim={claim!r}, n_trials={n_trials!r}") from None


def case_info(name: str, claim: float) -> dict:
    """Title, description, true ε, δ, test and bound of the case (from the table)."""
    table = load_audit_table()
    c, i, _ = _index(table, name, claim, table["trials"][0])
    title, description, true_eps, delta, test, bound = table["info"][name][i]
    return {"title": title, "description": description, "true_epsilon": float(true_eps),
            "delta": float(delta), "test": test, "bound": bound}


def audit_cell(name: str, claim: float, n_trials: int) -> tuple[dict, FigureData]:
    """The tabled audit: its numbers (the fields of an
    :class:`~dpteach.audit.runs.AuditResult`) and its histogram figure.

    Raises the auditor's own :class:`ParameterError` where it refuses (too few runs): the
    library is asked again, and refuses before running anything.
    """
    table = load_audit_table()
    c, i, j = _index(table, name, claim, n_trials)
    cell = _cell(table, (c * len(table["claims"]) + i) * len(table["trials"]) + j)
    if cell is None:
        audit_case(name, claim).audit(n_trials, confidence=CONFIDENCE, rng=0)
        raise ParameterError(f"the table has no audit of {name!r} at claimed_epsilon={claim!r} "
                             f"with n_trials={n_trials:,}")   # stale table: rerun the script
    return dict(cell["result"]), figure_from_record(cell["figure"], table["values"])


def convergence_figure(name: str, claim: float, n_trials: int) -> FigureData | None:
    """The tabled bounds of ``name`` at ``claim`` against the runs per side
    (:func:`bound_convergence_data`; one independent audit per run count), the current run
    count marked; None when the auditor refuses every run count."""
    table = load_audit_table()
    c, i, _ = _index(table, name, claim, n_trials)
    bounds = table["bounds"][c, i]
    ok = ~np.isnan(bounds)
    if not ok.any():
        return None
    info = case_info(name, claim)
    data = bound_convergence_data(np.array(table["trials"])[ok], bounds[ok],
                                  claimed_epsilon=claim, true_epsilon=info["true_epsilon"],
                                  delta=info["delta"], confidence=CONFIDENCE)
    mark = Rule("current", "x", float(n_trials), f"{n_trials:,} runs (this audit)",
                PALETTE["green"], "solid")
    return dataclasses.replace(data, rules=data.rules + (mark,))


# ------------------------------------------------------------------------- the page
@st.cache_data(show_spinner=False, max_entries=512)
def audit_view(name: str, claim: float, n_trials: int) -> tuple[dict, dict, FigureData]:
    """Case info, the audit's numbers and its histogram figure (:func:`audit_cell`)."""
    result, figure = audit_cell(name, claim, n_trials)
    return case_info(name, claim), result, figure


@st.cache_data(show_spinner=False, max_entries=512)
def convergence_view(name: str, claim: float, n_trials: int) -> FigureData | None:
    """:func:`convergence_figure`, cached per slider position."""
    return convergence_figure(name, claim, n_trials)


def _title(name: str) -> str:
    return case_info(name, DEFAULT_CLAIM)["title"]


def _controls() -> tuple[str, float, int]:
    c_mech, c_claim, c_runs = st.columns(3)
    with c_mech:
        mechanism = bound_selectbox("Mechanism", MECHANISMS,
                                    index=MECHANISMS.index(DEFAULT_MECHANISM),
                                    key="audit_mechanism", format_func=_title,
                                    help="Each runs on two neighbouring inputs D and D′ chosen "
                                         "to make the difference as visible as possible.")
        bugs = BUG_CHOICES[mechanism]
        if bugs:
            labels = [NO_BUG] + [_title(b) for b in bugs]
            chosen = bound_radio("Planted bug", labels, key=f"audit_bug_{mechanism}",
                                 help="Deliberately wrong versions of the mechanism that still "
                                      "claim its ε: can the audit catch them?")
            name = mechanism if chosen == NO_BUG else bugs[labels.index(chosen) - 1]
        else:
            st.caption("No planted bug for this mechanism.")
            name = mechanism
    with c_claim:
        claim = log_slider("Claimed ε", CLAIMS, DEFAULT_CLAIM, key="audit_claim",
                           caption=PRIVACY_CAPTION,
                           help="The mechanism is calibrated for this ε and claims it. The "
                                "audit tries to show that its true ε is larger.")
    with c_runs:
        n_trials = int(log_slider("Runs per side", TRIALS, DEFAULT_TRIALS, key="audit_runs",
                                  format_func=lambda t: f"{t:,}",
                                  caption="← fewer runs | more runs →",
                                  help="How often the mechanism runs on D and on D′. Half the "
                                       "runs choose the test, the other half certify the "
                                       "bound."))
    return name, claim, n_trials


def _explain(info: dict, res: dict, claim: float) -> str:
    side, other = ("D", "D′") if res["numerator"] == "d" else ("D′", "D")
    if res["bound"] == "gdp":
        how = (f"For Gaussian noise the two bounds give one on the GDP parameter, "
               f"μ ≥ Φ⁻¹({fmt(res['p_lo'], 3)}) − Φ⁻¹({fmt(res['p_prime_hi'], 3)}) = "
               f"{fmt(res['mu_lower_bound'], 3)}, and so ε ≥ {fmt(res['epsilon_lower_bound'], 3)} "
               f"at δ = {info['delta']:g} (Dong, Roth & Su 2022).")
    else:
        how = (f"A mechanism that is ε-DP has P[S | {side}] ≤ e^ε · P[S | {other}]"
               + (" + δ" if res["delta"] else "") + ", so ε ≥ ln("
               f"{fmt(res['p_lo'], 3)} / {fmt(res['p_prime_hi'], 3)}) = "
               f"{fmt(res['epsilon_lower_bound'], 3)}.")
    verdict = (f"**The claim ε = {claim:g} is refuted**: with {res['confidence']:.0%} "
               f"confidence this mechanism is *not* {claim:g}-DP."
               if res["epsilon_lower_bound"] > claim else
               f"**The claim ε = {claim:g} is not refuted.** That is not a proof: an audit can "
               f"only show a claim false. This test, with these runs, found no evidence "
               f"against it.")
    return (f"The auditor ran the mechanism {res['n_trials']:,} times on D and {res['n_trials']:,} "
            f"times on D′. On the first {res['n_select']:,} runs of each it chose the event "
            f"**S = \"{res['event']}\"**, more likely on {side}. On the other "
            f"{res['n_eval']:,} runs S happened {res['count']:,} times on {side} and "
            f"{res['count_prime']:,} times on {other}. Clopper–Pearson intervals, each "
            f"wrong with probability at most {(1 - res['confidence']) / 2:.1%}, give "
            f"P[S | {side}] ≥ {fmt(res['p_lo'], 3)} and P[S | {other}] ≤ "
            f"{fmt(res['p_prime_hi'], 3)}. {how} {verdict}")


def render() -> None:
    st.title("Audit a mechanism")
    st.markdown(
        "A proof says *this mechanism is ε-DP*; an **audit** tests the claim. Run the "
        "mechanism many times on two neighbouring inputs D and D′, pick an output event S "
        "whose frequency differs most, and turn the two frequencies into a lower bound on ε "
        "that holds with 95% confidence. If the bound exceeds the claim, the claim is false. "
        "Plant a bug and watch the audit catch it; shrink the runs and watch it go blind."
    )
    name, claim, n_trials = _controls()
    info = res = hist = None
    with friendly_errors("The audit"):
        info, res, hist = audit_view(name, claim, n_trials)
    if res is not None:
        m1, m2, m3, m4 = st.columns(4, border=True)
        m1.metric(f"{res['confidence']:.0%} lower bound on ε", fmt(res["epsilon_lower_bound"], 3),
                  help="Certified on the evaluation half of the runs: a correct mechanism's "
                       "bound exceeds its ε with probability at most 5%.")
        m2.metric("Claimed ε", f"{claim:g}" + (f" (δ = {info['delta']:g})" if info["delta"]
                                                 else ""))
        m3.metric("Verdict", "refuted" if res["epsilon_lower_bound"] > claim else "not refuted",
                  help="Refuted: the bound exceeds the claim. Not refuted: no evidence found "
                       "(never a proof of privacy).")
        m4.metric("True ε of this pair", "∞" if info["true_epsilon"] == float("inf")
                  else fmt(info["true_epsilon"], 3),
                  help="Computed exactly from the two output distributions: what a perfect "
                       "audit with endless runs could approach.")
        tradeoff(f"{n_trials:,} runs on each side certify ε ≥ "
                 f"{fmt(res['epsilon_lower_bound'], 3)} against the claimed ε = {claim:g}. More "
                 f"runs give a tighter lower bound; no number of runs proves a claim right, an "
                 f"audit can only catch it wrong.")
        st.markdown(f"**{info['title']}**: {info['description']}. Chosen test: "
                    f"**{res['test']}**, event S = \"{res['event']}\".")
        if name in FLOATING_POINT:
            st.caption(
                "The output shown is 1 when the released double could not have come from "
                "the input 1 (Mironov's exact test): a post-processing of the release, so "
                "it cannot raise ε, yet it tells the inputs apart. The fix is exact noise on "
                f"a grid: choose the mechanism \"{_title('laplace_secure')}\".")
    left, right = st.columns(2)
    with left:
        if hist is not None:
            show_chart(hist, f"Histograms of the outputs on D and D′ with the chosen event "
                             f"{res['event']}", height=CHART_HEIGHT)
    with right:
        conv = convergence_view(name, claim, n_trials)
        if conv is None:
            st.caption("No number of runs on this slider can say anything about this claim.")
        else:
            show_chart(conv, f"The audit's lower bound against the runs per side, claim "
                             f"ε = {claim:g}", height=CHART_HEIGHT)
    if res is not None:
        st.markdown(_explain(info, res, claim))
    st.caption(
        "Each setting is one seeded audit, precomputed by scripts/precompute_attack_tables.py; "
        "the points of the right chart are independent audits. No audit can certify more "
        "than its runs allow (the dotted curve, where it fits the chart): a large claim needs "
        "many runs to refute.")
    st.caption("Z. Ding et al., *Detecting violations of differential privacy*, CCS 2018; "
               "M. Jagielski, J. Ullman, A. Oprea, *Auditing differentially private machine "
               "learning*, NeurIPS 2020; I. Mironov, *On significance of the least significant "
               "bits for differential privacy*, CCS 2012; J. Dong, A. Roth, W. Su, *Gaussian "
               "differential privacy*, JRSS-B 2022.")
