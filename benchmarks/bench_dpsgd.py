"""Benchmark: the cost of one DP-SGD step, side by side.

Candidates (one process, interleaved round-robin, medians over repetitions):

1. dpteach, non-private SGD step (noise_multiplier=0, no clipping) and
   dpteach DP-SGD step (σ = 1, C = 1, ghost norms + clipped sum as one matrix
   product, Box–Muller Gaussian noise, RDP accountant step) — the same code path;
2. Opacus (CPU) on the same model and batch: the default hook-based
   per-sample gradients (materialised), Opacus ghost clipping, and plain
   PyTorch SGD for reference. Skipped with a message if torch/opacus are not
   importable (``--install-opacus`` tries ``pip install torch==2.13.0 opacus``
   into the running interpreter first; they are never project requirements).

Setting: MLP 784-128-10 (ReLU, softmax cross-entropy), float32, the shipped
MNIST 5k subset, Poisson sampling with q = 256/5000 (expected batch 256).
Every step includes Poisson sampling, the batch gather, forward, backward and
the parameter update. Measured single-threaded (numpy/BLAS via threadpoolctl,
``torch.set_num_threads(1)``) and again with 2 threads.

Also measured: per-example gradient norms materialised vs "ghost" (numpy), the
Gaussian noise of one step (NumPy's ziggurat vs the Box–Muller draw DP-SGD uses),
and the DP-SGD playground app page: AppTest rerun time after a slider change.

Run:  .venv/bin/python benchmarks/bench_dpsgd.py [--reps 300] [--install-opacus] [--skip-app]
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))          # the app (dpapp/) lives beside the library

from dpteach.accounting.rdp import RDPAccountant  # noqa: E402
from dpteach.datasets import load_mnist_5k  # noqa: E402
from dpteach.learning.dpsgd import _normal, dp_sgd_gradient, poisson_sample  # noqa: E402
from dpteach.learning.network import Network  # noqa: E402

BATCH, HIDDEN, SIGMA, CLIP, LR = 256, 128, 1.0, 1.0, 0.1


def _median_ms(ts):
    return 1e3 * statistics.median(ts)


def _iqr_ms(ts):
    q = np.percentile(ts, [25, 75]) * 1e3
    return f"{q[0]:.2f}–{q[1]:.2f}"


def run_interleaved(candidates: dict, reps: int, warmup: int = 20) -> dict:
    """Time each candidate ``reps`` times, round-robin in a shuffled order each round."""
    for f in candidates.values():
        for _ in range(warmup):
            f()
    times = {k: [] for k in candidates}
    order = list(candidates)
    rng = np.random.default_rng(0)
    for _ in range(reps):
        rng.shuffle(order)
        for k in order:
            t0 = time.perf_counter()
            candidates[k]()
            times[k].append(time.perf_counter() - t0)
    return times


# ----------------------------------------------------------------- dpteach
def dpteach_steps(X, y, seed=0):
    n = X.shape[0]
    q = BATCH / n
    out = {}
    for name, sigma, clip in (("dpteach non-private SGD", 0.0, None),
                              ("dpteach DP-SGD", SIGMA, CLIP)):
        model = Network((784, HIDDEN, 10), dtype="float32", rng=seed)
        gen = np.random.default_rng(seed + 1)
        acc = RDPAccountant() if sigma > 0 else None

        def step(model=model, gen=gen, acc=acc, sigma=sigma, clip=clip):
            idx = poisson_sample(n, q, gen)
            g = dp_sgd_gradient(model, X[idx], y[idx], noise_multiplier=sigma,
                                max_grad_norm=clip, expected_batch_size=q * n, rng=gen)
            model.apply_update(g.grads, LR)
            if acc is not None:
                acc.step(noise_multiplier=sigma, sample_rate=q, steps=1)

        out[name] = step
    return out


# ------------------------------------------------------------------ Opacus
def import_opacus(install: bool):
    try:
        import opacus  # noqa: F401
        import torch  # noqa: F401
        return True, ""
    except ImportError as exc:
        if not install:
            return False, (f"Opacus comparison SKIPPED: cannot import torch/opacus ({exc}). "
                           "Re-run with --install-opacus (pip install torch==2.13.0 opacus into "
                           "this interpreter; they are not project requirements).")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "torch==2.13.0", "opacus"]
    print("installing:", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return False, f"Opacus comparison SKIPPED: pip install failed:\n{proc.stderr[-2000:]}"
    importlib.invalidate_caches()
    try:
        import opacus  # noqa: F401,F811
        import torch  # noqa: F401,F811
        return True, ""
    except ImportError as exc:
        return False, f"Opacus comparison SKIPPED after install: {exc}"


def opacus_steps(X, y, seed=0):
    import warnings

    import torch
    from opacus import GradSampleModule
    from opacus.accountants import RDPAccountant as OpacusRDP
    from opacus.optimizers import DPOptimizer

    warnings.filterwarnings("ignore")
    n = X.shape[0]
    q = BATCH / n
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y.astype(np.int64))

    def make_model():
        torch.manual_seed(seed)
        return torch.nn.Sequential(torch.nn.Linear(784, HIDDEN), torch.nn.ReLU(),
                                   torch.nn.Linear(HIDDEN, 10))

    out = {}
    # plain PyTorch SGD (reference: what a non-private torch step costs)
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    crit = torch.nn.CrossEntropyLoss()
    gen = np.random.default_rng(seed + 1)

    def torch_step(model=model, opt=opt, gen=gen):
        idx = torch.from_numpy(np.flatnonzero(gen.random(n) < q))
        opt.zero_grad(set_to_none=True)
        crit(model(Xt[idx]), yt[idx]).backward()
        opt.step()

    out["torch non-private SGD"] = torch_step

    # Opacus default: hooks materialise per-sample gradients, then clip, noise, average
    gsm = GradSampleModule(make_model())
    dpopt = DPOptimizer(torch.optim.SGD(gsm.parameters(), lr=LR), noise_multiplier=SIGMA,
                        max_grad_norm=CLIP, expected_batch_size=BATCH, loss_reduction="mean")
    acc = OpacusRDP()
    dpopt.attach_step_hook(acc.get_optimizer_hook_fn(sample_rate=q))
    gen2 = np.random.default_rng(seed + 1)

    def opacus_step(gsm=gsm, dpopt=dpopt, gen=gen2):
        idx = torch.from_numpy(np.flatnonzero(gen.random(n) < q))
        dpopt.zero_grad(set_to_none=True)
        crit(gsm(Xt[idx]), yt[idx]).backward()
        dpopt.step()

    out["Opacus DP-SGD (hooks, default)"] = opacus_step

    # Opacus ghost clipping (two backward passes, no per-sample gradients stored)
    try:
        from opacus.grad_sample import GradSampleModuleFastGradientClipping
        from opacus.optimizers import DPOptimizerFastGradientClipping
        from opacus.utils.fast_gradient_clipping_utils import DPLossFastGradientClipping

        gm = GradSampleModuleFastGradientClipping(make_model(), max_grad_norm=CLIP,
                                                  use_ghost_clipping=True, loss_reduction="mean")
        gopt = DPOptimizerFastGradientClipping(torch.optim.SGD(gm.parameters(), lr=LR),
                                               noise_multiplier=SIGMA, max_grad_norm=CLIP,
                                               expected_batch_size=BATCH, loss_reduction="mean")
        gacc = OpacusRDP()
        gopt.attach_step_hook(gacc.get_optimizer_hook_fn(sample_rate=q))
        gcrit = DPLossFastGradientClipping(gm, gopt, torch.nn.CrossEntropyLoss(), "mean")
        gen3 = np.random.default_rng(seed + 1)

        def ghost_step(gm=gm, gopt=gopt, gen=gen3):
            idx = torch.from_numpy(np.flatnonzero(gen.random(n) < q))
            gopt.zero_grad(set_to_none=True)
            gcrit(gm(Xt[idx]), yt[idx]).backward()
            gopt.step()

        ghost_step()
        out["Opacus DP-SGD (ghost clipping)"] = ghost_step
    except Exception as exc:  # API differences between Opacus versions
        print(f"(Opacus ghost clipping skipped: {type(exc).__name__}: {exc})")
    return out


# ------------------------------------------------------------- other parts
def norms_materialised_vs_ghost(X, y, reps):
    model = Network((784, HIDDEN, 10), dtype="float32", rng=0)
    idx = np.arange(BATCH)
    trace = model.trace(X[idx], y[idx])

    def materialised():
        per = Network.per_example_gradients_from(trace)
        return np.sqrt(sum((g.reshape(BATCH, -1) ** 2).sum(axis=1) for g in per))

    def ghost():
        return Network.per_example_grad_norms_from(trace)

    np.testing.assert_allclose(materialised(), ghost(), rtol=1e-4)
    return run_interleaved({"materialised per-example gradients": materialised,
                            "ghost norms (‖a‖²‖δ‖²)": ghost}, reps, warmup=3)


def noise_samplers(reps):
    """The Gaussian noise of one DP step (101,770 float32 coordinates), two samplers."""
    size = 784 * HIDDEN + HIDDEN + HIDDEN * 10 + 10
    gen = np.random.default_rng(0)
    return run_interleaved({
        "NumPy ziggurat standard_normal(float32)":
            lambda: gen.standard_normal(size, dtype=np.float32),
        "Box–Muller (dpteach, float32 sines)": lambda: _normal(size, 1.0, np.float32, gen),
    }, reps, warmup=5)


def app_rerun_times(n_changes: int = 30):
    os.environ.setdefault("DPTEACH_APP_PREFETCH", "0")
    from streamlit.testing.v1 import AppTest

    script = ("from dpapp import dpsgd_playground\n"
              "dpsgd_playground.render()\n")
    at = AppTest.from_string(script, default_timeout=60)
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    from dpapp import dpsgd_playground as page

    rng = np.random.default_rng(0)
    state = {"dps_sigma": 2.0, "dps_clip": 1.0, "dps_batch": 32, "dps_epochs": 15}
    options = {"dps_sigma": [s for s in page.SIGMAS if s > 0],
               "dps_clip": [c for c in page.CLIPS if c != page.NO_CLIP],
               "dps_batch": list(page.BATCHES), "dps_epochs": list(range(1, 31))}
    kinds = {"dps_sigma": "select_slider", "dps_clip": "select_slider",
             "dps_batch": "select_slider", "dps_epochs": "slider"}
    seen = {tuple(state.values())}
    seen |= {(s, 1.0, 16, 30) for s in page.SIGMAS} | {(2.0, 1.0, 16, 15), (2.0, 1.0, 16, 30)}
    changes = []
    while len(changes) < n_changes:     # one slider moves to a value never computed before
        key = list(state)[rng.integers(4)]
        value = options[key][rng.integers(len(options[key]))]
        new = {**state, key: value}
        if tuple(new.values()) in seen:
            continue
        seen.add(tuple(new.values()))
        state = new
        changes.append((kinds[key], key, value))
    times = []
    # worst case first: the most steps the sliders allow (batch 16, 30 epochs = 390 steps)
    at.select_slider(key="dps_batch").set_value(16)
    at.slider(key="dps_epochs").set_value(30)
    at.run()
    worst = []
    for sigma in (0.3, 0.5, 0.7, 1.0, 1.5, 3.0, 5.0, 7.0, 10.0):
        at.select_slider(key="dps_sigma").set_value(sigma)
        t0 = time.perf_counter()
        at.run()
        worst.append(time.perf_counter() - t0)
    at.select_slider(key="dps_batch").set_value(32)
    at.slider(key="dps_epochs").set_value(15)
    at.select_slider(key="dps_sigma").set_value(2.0)
    at.run()
    for kind, key, value in changes:
        getattr(at, kind)(key=key).set_value(float(value) if key in ("dps_sigma", "dps_clip")
                                            else int(value))
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    return first, times, worst


def print_table(title, times, ref=None):
    print(f"\n{title}")
    header = f"{'candidate':40s} {'median ms':>10s} {'IQR ms':>14s}"
    print(header + (f" {'ratio':>8s}" if ref else ""))
    for k, ts in times.items():
        line = f"{k:40s} {_median_ms(ts):10.3f} {_iqr_ms(ts):>14s}"
        if ref:
            line += f" {_median_ms(ts) / _median_ms(times[ref]):8.2f}"
        print(line)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--install-opacus", action="store_true")
    ap.add_argument("--skip-app", action="store_true")
    args = ap.parse_args(argv)

    X, y = load_mnist_5k(scale=True)
    perm = np.random.default_rng(0).permutation(len(X))
    X, y = np.ascontiguousarray(X[perm]), y[perm]
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, cores {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    have_opacus, msg = import_opacus(args.install_opacus)
    if have_opacus:
        import opacus
        import torch
        print(f"torch {torch.__version__}, opacus {opacus.__version__}")
    else:
        print(msg)

    for threads in (1, 2):
        cands = dpteach_steps(X, y)
        if have_opacus:
            import torch
            torch.set_num_threads(threads)
            cands.update(opacus_steps(X, y))
        with threadpool_limits(limits=threads):
            times = run_interleaved(cands, args.reps)
        print_table(f"One step, MLP 784-{HIDDEN}-10, expected batch {BATCH}, {threads} thread(s), "
                    f"{args.reps} reps (ratio to the dpteach DP-SGD step)", times,
                    ref="dpteach DP-SGD")
        dp = _median_ms(times["dpteach DP-SGD"])
        print(f"  dpteach DP / non-private step: "
              f"{dp / _median_ms(times['dpteach non-private SGD']):.2f}x (target <= 1.5x)")
        if have_opacus:
            for k in ("Opacus DP-SGD (hooks, default)", "Opacus DP-SGD (ghost clipping)"):
                if k in times:
                    print(f"  {k} / dpteach DP step: {_median_ms(times[k]) / dp:.1f}x "
                          f"(target >= 10x)")

    with threadpool_limits(limits=1):
        t = norms_materialised_vs_ghost(X, y, max(30, args.reps // 5))
    print_table(f"Per-example gradient norms of a batch of {BATCH} (1 thread)", t,
                ref="ghost norms (‖a‖²‖δ‖²)")
    print(f"  materialised gradients hold {BATCH} x {784 * HIDDEN + HIDDEN + HIDDEN * 10 + 10:,} "
          f"floats = {BATCH * (784 * HIDDEN + HIDDEN + HIDDEN * 10 + 10) * 4 / 2**20:.0f} MiB")

    with threadpool_limits(limits=1):
        t = noise_samplers(max(100, args.reps))
    print_table(f"Gaussian noise of one step, {784 * HIDDEN + HIDDEN + HIDDEN * 10 + 10:,} "
                "float32 coordinates (1 thread)", t, ref="Box–Muller (dpteach, float32 sines)")

    if not args.skip_app:
        first, ts, worst = app_rerun_times()
        print(f"\nDP-SGD playground (AppTest, {len(ts)} slider changes, each to a setting not "
              f"computed before, so training runs every time): first render "
              f"{first * 1e3:.0f} ms; rerun after a change: median {_median_ms(ts):.0f} ms, "
              f"IQR {_iqr_ms(ts)} ms, max {max(ts) * 1e3:.0f} ms (target median <= 150 ms)")
        print(f"  worst case (batch 16, 30 epochs = 390 steps, σ slider, {len(worst)} changes): "
              f"median {_median_ms(worst):.0f} ms, max {max(worst) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
