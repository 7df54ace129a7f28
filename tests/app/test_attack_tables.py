"""The tables shipped for the pages "Audit a mechanism" and "Reconstruction attack"
(``dpteach/data/audit_page.npz``, ``reconstruction_page.npz``, made by
``scripts/precompute_attack_tables.py``): they cover every slider position of the pages,
say how they were made, hold what the library computes, and the pages read them instead of
computing.

Tolerances. Each entry is a seeded run of the library (the seed rule is the pages'
:func:`~dpapp.audit_mechanism.cell_seed` and
:func:`~dpapp.reconstruction_attack.attack_rng`), so a recomputation draws the
same outputs and must give the same counts, events and bits recovered exactly. The audit's
probabilities and bound go through SciPy's beta quantiles and logarithms: stored as float64
from the same computation, they must agree to 1e-12 relative (room for a different SciPy
build, not for a different draw, which would move them by far more). The histogram figure's
arrays are stored as float32, so each must equal the library's float64 value rounded to
float32 (relative error ≤ 2⁻²⁴ ≈ 6e-8, below the 6 significant digits the browser gets).
The bits recovered depend on floating point only through the rounding of each decoded
coordinate at ½; a coordinate within rounding error of ½ has negligible probability.
"""

from __future__ import annotations

import math
from importlib import resources

import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpapp import audit_mechanism as AP
from dpapp import reconstruction_attack as RP
from dpteach.attacks.reconstruction import (
    DECODERS,
    MAX_LP_ENTRIES,
    MAX_LP_N,
    dp_recovery_bound,
    reconstruction_attack,
)
from dpteach.audit.bounds import max_certifiable_epsilon
from dpteach.audit.cases import BUGS, CORRECT, FLOATING_POINT, audit_case
from dpteach.plots.audit import audit_histograms_data

pytestmark = pytest.mark.filterwarnings("ignore:No runtime found")


@pytest.fixture(scope="module")
def audit() -> dict:
    return AP.load_table()


@pytest.fixture(scope="module")
def rec() -> dict:
    return RP.load_table()


def _size(name: str) -> int:
    return resources.files("dpteach").joinpath("data", name).stat().st_size


def test_tables_are_small_and_say_how_they_were_made(audit, rec):
    assert _size(AP.AUDIT_TABLE) <= 400_000 and _size(RP.RECONSTRUCTION_TABLE) <= 50_000
    for table, seed in ((audit, AP.SEED), (rec, RP.SEED)):
        meta = table["meta"]
        assert meta["made_by"] == "scripts/precompute_attack_tables.py"
        assert meta["seed"] == seed and meta["seed_rule"] and meta["created_utc"]
        assert meta["dpteach"] and meta["numpy"] and meta["scipy"]
    assert audit["meta"]["confidence"] == AP.CONFIDENCE and audit["meta"]["bins"] == AP.BINS
    assert rec["meta"]["dp_settings"] == {k: {"accounting": a, "delta": d}
                                          for k, (a, d) in RP.DP_SETTINGS.items()}


# ------------------------------------------------------------------------ audit
def test_audit_table_covers_the_page(audit):
    assert audit["cases"] == AP.CASES == AP.MECHANISMS + BUGS + FLOATING_POINT
    # the page offers every correct case the table holds; the others are named (UNTABLED:
    # added to the library after the table was made, audited by tests/audit/test_runs.py)
    assert AP.MECHANISMS + AP.UNTABLED == CORRECT and AP.DEFAULT_MECHANISM in AP.MECHANISMS
    assert audit["claims"] == AP.CLAIMS and audit["trials"] == AP.TRIALS
    assert AP.DEFAULT_CLAIM in AP.CLAIMS and AP.DEFAULT_TRIALS in AP.TRIALS
    assert set(AP.BUG_CHOICES) == set(AP.MECHANISMS)
    assert {b for bugs in AP.BUG_CHOICES.values() for b in bugs} == set(BUGS + FLOATING_POINT)
    n_cells = len(AP.CASES) * len(AP.CLAIMS) * len(AP.TRIALS)
    assert audit["cell_offsets"].shape == (n_cells + 1,) and audit["bounds"].shape == (
        len(AP.CASES), len(AP.CLAIMS), len(AP.TRIALS))
    assert 0 < np.isnan(audit["bounds"]).sum() < n_cells / 3


def test_audit_info_is_the_cases(audit):
    for name in AP.CASES:
        for claim in AP.CLAIMS:
            case = audit_case(name, claim)
            info = AP.case_info(name, claim)
            # the shipped true ε was computed on another machine: its last bits may differ
            # (libm's exp/log are not correctly rounded), so it agrees to 1e-12 relative
            assert info.pop("true_epsilon") == pytest.approx(float(case.true_epsilon),
                                                              rel=1e-12, abs=0.0), (name, claim)
            assert info == {
                "title": case.title, "description": case.description,
                "delta": float(case.delta), "test": case.test, "bound": case.bound}, (name, claim)


def test_refused_cells_are_exactly_the_auditors_refusals(audit):
    # the auditor refuses n runs per side when n - n//2 evaluation runs cannot certify more
    # than the claim (audit_runs._refuse_too_few); the page asks the library again there
    for c, name in enumerate(AP.CASES):
        for i, claim in enumerate(AP.CLAIMS):
            delta = AP.case_info(name, claim)["delta"]
            for j, n in enumerate(AP.TRIALS):
                most = max_certifiable_epsilon(n - n // 2, delta=delta, confidence=AP.CONFIDENCE)
                refused = math.isnan(audit["bounds"][c, i, j])
                assert refused == (most <= claim), (name, claim, n)
                flat = (c * len(AP.CLAIMS) + i) * len(AP.TRIALS) + j
                empty = audit["cell_offsets"][flat + 1] == audit["cell_offsets"][flat]
                assert empty == refused
    for name, claim, n in (("laplace", 10.0, 1000), ("gaussian", 7.0, 3000),
                           ("report_noisy_max", 10.0, 100_000)):
        with pytest.raises(ParameterError, match="too few"):
            AP.audit_cell(name, claim, n)


def _check_audit_entry(name: str, claim: float, n: int) -> None:
    rng = np.random.default_rng(AP.cell_seed(name, claim, n))
    result = audit_case(name, claim).audit(n, confidence=AP.CONFIDENCE, rng=rng)
    shipped, figure = AP.audit_cell(name, claim, n)
    lib = AP.result_numbers(result)
    for field, value in lib.items():
        if isinstance(value, float) and not isinstance(value, bool):
            assert shipped[field] == pytest.approx(value, rel=1e-12, abs=0), (name, field)
        else:
            assert shipped[field] == value, (name, claim, n, field)
    ref = audit_histograms_data(result, AP.BINS)
    assert figure.title == ref.title and figure.rules == ref.rules
    assert (figure.x_title, figure.y_title, figure.extra) == (ref.x_title, ref.y_title, ref.extra)
    assert [s.key for s in figure.series] == [s.key for s in ref.series]
    for got, want in zip(figure.series, ref.series):
        assert (got.label, got.kind, got.colour, got.width) == (want.label, want.kind,
                                                                want.colour, want.width)
        for a, b in ((got.x, want.x), (got.y, want.y)):
            assert np.array_equal(a, b.astype(np.float32).astype(float)), (name, got.key)


def test_audit_entries_match_the_library(audit):
    # every case at a few fixed cells, then random cheap cells (≤ 3,000 runs; the exact
    # discrete Laplace sampler and the sparse vector's loop cost ~0.1 s per 1,000 runs)
    for name in AP.CASES:
        _check_audit_entry(name, 1.0, 1_000)
    _check_audit_entry("laplace", 3.0, 100_000)
    _check_audit_entry("rr_wrong_epsilon", 0.5, 30_000)
    rng = np.random.default_rng(20241114)
    cells = [(c, i, j) for c in range(len(AP.CASES)) for i in range(len(AP.CLAIMS))
             for j in range(len(AP.TRIALS)) if AP.TRIALS[j] <= 3_000
             and not math.isnan(audit["bounds"][c, i, j])]
    for t in rng.choice(len(cells), size=8, replace=False):
        c, i, j = cells[t]
        _check_audit_entry(AP.CASES[c], AP.CLAIMS[i], AP.TRIALS[j])


def test_the_audits_are_honest_in_both_directions(audit):
    # correct mechanisms: each 95% bound exceeds the pair's true ε (≤ the claim) with
    # probability ≤ 5%; over the N audited cells the count of exceedances is at most
    # Binomial(N, 0.05): mean 0.05 N, sd √(0.0475 N) (N ≈ 600: 30 ± 5.3), so 10% of N
    # is more than 5 sd away
    b = audit["bounds"]
    correct = [AP.CASES.index(c) for c in AP.MECHANISMS]
    vals = b[correct]
    ok = ~np.isnan(vals)
    claims = np.broadcast_to(np.array(AP.CLAIMS)[None, :, None], vals.shape)
    assert (vals[ok] > claims[ok]).sum() <= 0.10 * ok.sum()
    # every bug is caught at ε = 1 with 10⁵ runs
    i, j = AP.CLAIMS.index(1.0), AP.TRIALS.index(100_000)
    for name in BUGS + FLOATING_POINT:
        assert b[AP.CASES.index(name), i, j] > 1.0, name


def test_the_page_reads_the_audit_table(monkeypatch, audit):
    def refuse(*args, **kwargs):
        raise AssertionError("an audit was run on a slider position")

    monkeypatch.setattr(AP, "audit_case", refuse)
    rng = np.random.default_rng(3)
    for _ in range(30):
        c, i, j = (int(rng.integers(len(g))) for g in (AP.CASES, AP.CLAIMS, AP.TRIALS))
        if math.isnan(audit["bounds"][c, i, j]):
            continue
        result, figure = AP.audit_cell(AP.CASES[c], AP.CLAIMS[i], AP.TRIALS[j])
        assert result["epsilon_lower_bound"] == audit["bounds"][c, i, j]
        assert figure.series
        assert AP.convergence_figure(AP.CASES[c], AP.CLAIMS[i], AP.TRIALS[j]) is not None


# ---------------------------------------------------------------- reconstruction
def test_reconstruction_table_covers_the_page(rec):
    assert rec["ns"] == RP.NS and rec["ks"] == RP.KS
    assert rec["relative_noise"] == RP.RELATIVE_NOISE and rec["epsilons"] == RP.TOTAL_EPSILONS
    assert rec["dp_kinds"] == tuple(RP.DP_SETTINGS) and rec["decoders"] == DECODERS
    assert rec["bounded"].shape == (len(RP.NS), len(RP.KS), len(RP.RELATIVE_NOISE),
                                    len(DECODERS))
    assert rec["dp"].shape == (len(RP.NS), len(RP.KS), len(RP.DP_SETTINGS),
                               len(RP.TOTAL_EPSILONS), len(DECODERS))
    assert (RP.DEFAULT_N in RP.NS and RP.DEFAULT_K in RP.KS and RP.DEFAULT_C in RP.RELATIVE_NOISE
            and RP.DEFAULT_EPSILON in RP.TOTAL_EPSILONS)


def test_refused_entries_are_exactly_the_librarys_refusals(rec):
    for i, n in enumerate(RP.NS):
        for j, k in enumerate(RP.KS):
            for m, decoder in enumerate(DECODERS):
                refused = decoder != "least_squares" and (n > MAX_LP_N or n * k > MAX_LP_ENTRIES)
                for values in (rec["bounded"][i, j, :, m], rec["dp"][i, j, :, :, m]):
                    assert ((values < 0).all() if refused else
                            ((values >= 0) & (values <= n)).all()), (n, k, decoder)
                if refused:
                    with pytest.raises(ParameterError, match="n·k"):
                        RP.fraction_at(n, k, "bounded", 0.3, decoder)


def _check_reconstruction_entry(n, k, noise, level, decoder) -> None:
    res = reconstruction_attack(**RP.attack_kwargs(n, k, noise, level, decoder),
                                rng=RP.attack_rng(n, k))
    assert RP.fraction_at(n, k, noise, level, decoder) == res.fraction, (n, k, noise, level,
                                                                         decoder)


def test_reconstruction_entries_match_the_library():
    _check_reconstruction_entry(100, 400, "bounded", 0.3, "least_squares")
    _check_reconstruction_entry(50, 200, "bounded", 1.0, "lp_linf")
    _check_reconstruction_entry(50, 100, "dp_laplace", 1000.0, "lp_l1")
    _check_reconstruction_entry(400, 1600, "dp_gaussian", 200.0, "least_squares")
    rng = np.random.default_rng(20241115)
    for _ in range(12):
        n, k = int(rng.choice(RP.NS)), int(rng.choice(RP.KS))
        noise = str(rng.choice(RP.NOISES))
        levels = RP.RELATIVE_NOISE if noise == "bounded" else RP.TOTAL_EPSILONS
        level = float(rng.choice(levels))
        # the LPs only where they take well under a second (n·k ≤ 40,000)
        decoder = str(rng.choice(DECODERS)) if n * k <= 40_000 else "least_squares"
        _check_reconstruction_entry(n, k, noise, level, decoder)


def test_the_fundamental_law_holds_in_the_table(rec):
    b, d = rec["bounded"], rec["dp"]
    n = np.array(RP.NS)[:, None]
    # errors ≤ 0.1·√n with k ≥ 4n queries: least squares recovers ≥ 95% of the bits
    for i, nn in enumerate(RP.NS):
        for j, k in enumerate(RP.KS):
            if k >= 4 * nn:
                for c in range(RP.RELATIVE_NOISE.index(0.1) + 1):
                    assert b[i, j, c, 0] >= 0.95 * nn, (nn, k)
    # DP answers at total ε ≤ 0.5: the mean fraction over every (n, k, decoder) stays near
    # the ceiling (e^ε + δ)/(1 + e^ε) ≤ 0.623 (each bit is guessed right with at most that
    # probability; averaging ~100 runs of n ≥ 50 bits leaves a standard error < 0.01)
    for e in range(RP.TOTAL_EPSILONS.index(0.5) + 1):
        eps = RP.TOTAL_EPSILONS[e]
        vals = d[:, :, :, e, :]
        frac = vals / n[:, :, None, None]
        ok = vals >= 0
        assert frac[ok].mean() <= dp_recovery_bound(eps, 1e-6) + 0.03, eps
    assert n.size == len(RP.NS)


def test_the_page_reads_the_reconstruction_table(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("an attack was run on a slider position")

    monkeypatch.setattr(RP, "reconstruction_attack", refuse)
    rng = np.random.default_rng(4)
    for _ in range(30):
        n, k = int(rng.choice(RP.NS)), int(rng.choice(RP.KS))
        noise = str(rng.choice(RP.NOISES))
        level = float(rng.choice(RP.RELATIVE_NOISE if noise == "bounded"
                                 else RP.TOTAL_EPSILONS))
        RP.noise_figure(n, k, noise, level, "least_squares")
        RP.queries_figure(n, k, noise, level, "least_squares")
        assert 0 <= RP.fraction_at(n, k, noise, level, "least_squares") <= 1
