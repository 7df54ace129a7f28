"""Benchmark: privacy accounting (dpteach.accounting) side by side with Google's dp_accounting.

Scenarios (DP-SGD on 60,000 examples, batch 256 → q = 256/60000, 15,000 steps, δ = 1e-5):

1. ε of a 15,000-step Poisson-subsampled Gaussian RDP account (σ = 1.1):
   dpteach ``RDPAccountant`` cold (per-(q, σ) cache cleared) and warm (cached),
   vs ``dp_accounting.rdp.RdpAccountant`` with the SAME orders.
2. ``get_noise_multiplier`` for target ε = 3 (RDP): dpteach vs
   ``dp_accounting.mechanism_calibration.calibrate_dp_mechanism`` with an
   RdpAccountant on the same orders, same relative tolerance on σ (1e-4).
3. PLD: ε of the same 15,000 steps (value_discretization_interval 1e-4) via
   the dpteach wrapper vs dp_accounting directly, and dpteach's
   ``get_noise_multiplier(accountant="pld")``.

4. App page reruns (AppTest) after a slider step, cold and warm (full run only).

Each candidate runs ``REPEATS`` times in this one process, alternating; we
report the median wall time and the ratio dp_accounting / dpteach.

Run: ``.venv/bin/python benchmarks/bench_accounting.py [--quick]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import dp_accounting
from dp_accounting import mechanism_calibration
from dp_accounting.pld import pld_privacy_accountant
from dp_accounting.rdp import rdp_privacy_accountant

from dpteach.accounting.rdp import DEFAULT_ORDERS, RDPAccountant
from dpteach.accounting.pld import PLDAccountant
from dpteach.accounting.calibrate import get_noise_multiplier
from dpteach.accounting.sampled_gaussian import clear_subsampled_gaussian_cache

Q, SIGMA, STEPS, DELTA = 256 / 60_000, 1.1, 15_000, 1e-5
TARGET_EPS = 3.0


def median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def event(sigma: float):
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(Q, dp_accounting.GaussianDpEvent(sigma)), STEPS)


def ours_rdp_eps(cold: bool):
    if cold:
        clear_subsampled_gaussian_cache()
    acc = RDPAccountant()
    acc.step(noise_multiplier=SIGMA, sample_rate=Q, steps=STEPS)
    return acc.get_epsilon(DELTA)


def dpa_rdp_eps():
    acc = rdp_privacy_accountant.RdpAccountant(orders=list(DEFAULT_ORDERS))
    acc.compose(event(SIGMA))
    return acc.get_epsilon(DELTA)


def ours_sigma():
    clear_subsampled_gaussian_cache()
    return get_noise_multiplier(target_epsilon=TARGET_EPS, target_delta=DELTA, sample_rate=Q,
                                steps=STEPS, rtol=1e-4)


def dpa_sigma():
    return mechanism_calibration.calibrate_dp_mechanism(
        lambda: rdp_privacy_accountant.RdpAccountant(orders=list(DEFAULT_ORDERS)), event,
        TARGET_EPS, DELTA, bracket_interval=mechanism_calibration.LowerEndpointAndGuess(0.0, 1.0),
        tol=1e-4)


def ours_pld_eps():
    acc = PLDAccountant(value_discretization_interval=1e-4)
    acc.step(noise_multiplier=SIGMA, sample_rate=Q, steps=STEPS)
    return acc.get_epsilon(DELTA)


def dpa_pld_eps():
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(event(SIGMA))
    return acc.get_epsilon(DELTA)


def ours_pld_sigma():
    return get_noise_multiplier(target_epsilon=TARGET_EPS, target_delta=DELTA, sample_rate=Q,
                                steps=STEPS, accountant="pld", rtol=1e-3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    reps = 3 if args.quick else 15
    slow_reps = 3 if args.quick else 5
    rows = []

    def compare(name, ours, theirs, repeats):
        # alternate the candidates so that machine load hits both alike
        t_o, t_t, out_o, out_t = [], [], None, None
        for _ in range(repeats):
            a, out_o = median_time(ours, 1)
            b, out_t = median_time(theirs, 1) if theirs else (float("nan"), None)
            t_o.append(a)
            t_t.append(b)
        mo, mt = statistics.median(t_o), statistics.median(t_t)
        rows.append((name, mo, mt, mt / mo if theirs else float("nan"), out_o, out_t))

    compare("ε, 15k-step RDP account (cold cache)", lambda: ours_rdp_eps(True), dpa_rdp_eps, reps)
    compare("ε, 15k-step RDP account (warm cache)", lambda: ours_rdp_eps(False), dpa_rdp_eps, reps)
    compare("get_noise_multiplier, RDP, ε=3", ours_sigma, dpa_sigma, slow_reps)
    compare("ε, 15k-step PLD account (1e-4)", ours_pld_eps, dpa_pld_eps, slow_reps)
    compare("get_noise_multiplier, PLD, ε=3, rtol 1e-3", ours_pld_sigma, None, slow_reps if not args.quick else 1)

    print(f"q={Q:.6f}, σ={SIGMA}, steps={STEPS}, δ={DELTA}, {len(DEFAULT_ORDERS)} orders, "
          f"repeats={reps}/{slow_reps}")
    print(f"| scenario | dpteach median (ms) | dp_accounting median (ms) | ratio dp_acc/dpteach "
          f"| dpteach result | dp_accounting result |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, mo, mt, ratio, oo, ot in rows:
        fmt_t = "—" if mt != mt else f"{1e3 * mt:.1f}"
        fmt_r = "—" if ratio != ratio else f"{ratio:.1f}×"
        fmt_ot = "—" if ot is None else f"{ot:.6g}"
        print(f"| {name} | {1e3 * mo:.1f} | {fmt_t} | {fmt_r} | {oo:.6g} | {fmt_ot} |")


if __name__ == "__main__":
    main()
