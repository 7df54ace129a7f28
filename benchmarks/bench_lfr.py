"""LFR: dpteach's ``LFR`` against fairlearn's ``PrototypeRepresentationLearner`` (and AIF360's).

Three measurements, printed as Markdown tables (copied into ``benchmarks/README.md``):

1. **Side by side with fairlearn** on the same rows of Adult (a seeded sample of ``--n``
   training rows, A = sex, features of :func:`dpteach.datasets.adult_arrays` without sex):
   K = 10 prototypes, A_x = 0.01, A_y = 1, A_z = 1 — fairlearn's ``fairness_weight`` is
   K · A_z = 10 because its parity term is the *mean* over prototypes where ours is the sum;
   its reconstruction and prediction terms are means like ours. fairlearn runs its defaults
   (one start, ``max_iter=1000``, ``tol=1e-6``, finite-difference gradients); dpteach runs its
   defaults (three starts of three L-BFGS-B stages of at most 100 iterations, so at most 900
   iterations, analytic gradients), with ``alpha="shared"`` (one vector of distance weights,
   like fairlearn) and ``alpha="per_group"`` (the paper's). The models differ in one more way
   that no setting removes: fairlearn's memberships use the *unsquared* weighted distance.
   Reported per implementation, over ``--repeats`` seeds: fit time (median, min–max), the
   final objective evaluated for both by one function, :func:`dpteach.fairness.lfr.lfr_losses`
   on the memberships each model's ``transform`` returns (so the same objective on the same
   rows), and yAcc / yDiscrim / yNN (:mod:`dpteach.fairness.metrics`) of its probabilities on
   Adult's 15,060 held-out rows.
2. **The full Adult training split** (30,162 rows): ``LFR()`` with its defaults (A_z = 50),
   fit time over ``--full-repeats`` seeds.
3. ``--aif360`` (needs the ``aif360`` package, not a dependency of dpteach; run this part with
   a Python that has it): AIF360's Adult demo notebook (``examples/demo_lfr.ipynb``: its
   preprocessed Adult, a shuffled 70/30 split, ``fit(maxiter=5000, maxfun=5000)``, threshold
   0.5) with its current settings (standardised features, ``LFR(k=10, Ax=0.1, Ay=1.0,
   Az=2.0)``) and its first ones (no scaling, the defaults k=5, Ax=0.01, Ay=1, Az=50),
   reporting the parity gap of the labels before and after the transformation, the share of
   positive transformed labels and a logistic regression trained on the transformed data —
   and dpteach's LFR on the same split and features.

Run from the repository root::

    .venv/bin/python benchmarks/bench_lfr.py                 # parts 1 and 2 (~15 min)
    .venv/bin/python benchmarks/bench_lfr.py --n 500 --repeats 1 --full-repeats 1   # quick
    /path/to/python-with-aif360 benchmarks/bench_lfr.py --aif360 --skip-fairlearn --full-repeats 0

The machine is shared (2 cores): times are medians, with the spread shown.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpteach.fairness.lfr import LFR, lfr_losses  # noqa: E402
from dpteach.fairness.metrics import (
    consistency_score,
    demographic_parity_difference,
    zemel_accuracy,
    zemel_discrimination,
)

K, AX, AY, AZ = 10, 0.01, 1.0, 1.0


def adult():
    from dpteach.fairness.lfr_grid import lfr_grid_data
    return lfr_grid_data("adult")


def spread(values, fmt="{:.2f}"):
    v = np.asarray(values, dtype=float)
    if v.size == 1:
        return fmt.format(v[0])
    return f"{fmt.format(np.median(v))} [{fmt.format(v.min())}–{fmt.format(v.max())}]"


def held_out_scores(p, d):
    return (zemel_accuracy(d.y_test, p), zemel_discrimination(p, sensitive_features=d.a_test),
            consistency_score(d.X_test, p))


def side_by_side(n, repeats, skip_fairlearn):
    d = adult()
    rows = {}
    for seed in range(repeats):
        idx = np.random.default_rng(seed).choice(d.X_train.shape[0], n, replace=False)
        X, y, a = d.X_train[idx], d.y_train[idx], d.a_train[idx]
        runs = {f"dpteach LFR (alpha={al})": ("ours", al) for al in ("shared", "per_group")}
        if not skip_fairlearn:
            runs["fairlearn PrototypeRepresentationLearner"] = ("fairlearn", None)
        for name, (kind, alpha) in runs.items():
            start = time.perf_counter()
            if kind == "ours":
                m = LFR(n_prototypes=K, Ax=AX, Ay=AY, Az=AZ, alpha=alpha, rng=seed).fit(
                    X, y, sensitive_features=a)
                seconds = time.perf_counter() - start
                M, V, w = m.transform(X, sensitive_features=a), m.prototypes_, m.w_
                p = m.predict_proba(d.X_test, sensitive_features=d.a_test)[:, 1]
                iters = m.n_iter_
            else:
                from fairlearn.preprocessing import PrototypeRepresentationLearner
                m = PrototypeRepresentationLearner(
                    n_prototypes=K, reconstruct_weight=AX, target_weight=AY,
                    fairness_weight=K * AZ, random_state=seed).fit(X, y, sensitive_features=a)
                seconds = time.perf_counter() - start
                M, V, w = m.transform(X), m.prototypes_, m.coef_
                p = m.predict_proba(d.X_test)[:, 1]
                iters = m.n_iter_
            losses = lfr_losses(X, y, M, V, w, sensitive_features=a)
            r = rows.setdefault(name, {"t": [], "J": [], "Lz": [], "s": [], "it": []})
            r["t"].append(seconds)
            r["J"].append(losses.objective(AX, AY, AZ))
            r["Lz"].append(losses.L_z)
            r["s"].append(held_out_scores(p, d))
            r["it"].append(iters)
            print(f"  seed {seed} {name}: {seconds:.1f} s, objective "
                  f"{losses.objective(AX, AY, AZ):.4f}", file=sys.stderr, flush=True)
    print(f"\n### Adult, {n} training rows, K={K}, A_x={AX}, A_y={AY}, A_z={AZ}, "
          f"{repeats} seed(s)\n")
    print("| implementation | fit time (s) | L-BFGS-B iterations | objective (lfr_losses) | "
          "L_z | yAcc | yDiscrim | yNN |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        s = np.array(r["s"])
        print(f"| {name} | {spread(r['t'], '{:.1f}')} | {spread(r['it'], '{:.0f}')} | "
              f"{spread(r['J'], '{:.4f}')} | {spread(r['Lz'], '{:.4f}')} | "
              f"{spread(s[:, 0], '{:.3f}')} | {spread(s[:, 1], '{:.3f}')} | "
              f"{spread(s[:, 2], '{:.3f}')} |")
    fl = rows.get("fairlearn PrototypeRepresentationLearner")
    if fl:
        for name, r in rows.items():
            if r is not fl:
                print(f"\n{name}: {np.median(fl['t']) / np.median(r['t']):.1f}× faster than "
                      f"fairlearn (median fit times); objective "
                      f"{np.median(r['J']):.4f} vs {np.median(fl['J']):.4f}")


def full_adult(repeats):
    d = adult()
    times, objs = [], []
    for seed in range(repeats):
        start = time.perf_counter()
        m = LFR(rng=seed).fit(d.X_train, d.y_train, sensitive_features=d.a_train)
        times.append(time.perf_counter() - start)
        objs.append(m.objective_)
        print(f"  full Adult seed {seed}: {times[-1]:.1f} s", file=sys.stderr, flush=True)
    p = m.predict_proba(d.X_test, sensitive_features=d.a_test)[:, 1]
    print(f"\n### Full Adult training split ({d.X_train.shape[0]:,} × {d.X_train.shape[1]}), "
          f"LFR() defaults (K=10, A_x=0.01, A_y=1, A_z=50, 3 starts), {repeats} seed(s)\n")
    print("| fit time (s) | objective | held-out accuracy | held-out parity gap (ŷ>½) |")
    print("|---|---|---|---|")
    print(f"| {spread(times, '{:.1f}')} | {spread(objs, '{:.4f}')} | "
          f"{np.mean((p > 0.5) == d.y_test):.3f} | "
          f"{demographic_parity_difference(d.y_test, (p > .5).astype(int), sensitive_features=d.a_test):.3f} |")


#: AIF360's two published demo settings: the current ``examples/demo_lfr.ipynb`` and the first
#: one (v0.1: no scaling, the class defaults k=5, Ax=0.01, Ay=1, Az=50; outputs printed in
#: that notebook show the gap growing from -0.197 to -0.215 at threshold 0.5).
AIF360_DEMOS = {"current demo": {"scale": True, "k": 10, "Ax": 0.1, "Ay": 1.0, "Az": 2.0},
                "v0.1 demo": {"scale": False, "k": 5, "Ax": 0.01, "Ay": 1.0, "Az": 50.0}}


def aif360_demo(name, seed=0):
    from aif360.algorithms.preprocessing.lfr import LFR as AifLFR
    from aif360.algorithms.preprocessing.optim_preproc_helpers.data_preproc_functions import (
        load_preproc_data_adult,
    )
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    cfg = AIF360_DEMOS[name]
    np.random.seed(seed)                  # AIF360's split shuffles with NumPy's global state
    data = load_preproc_data_adult()
    train, test = data.split([0.7], shuffle=True)
    if cfg["scale"]:
        scaler = StandardScaler()
        train.features = scaler.fit_transform(train.features)
        test.features = scaler.transform(test.features)
    sex_col = train.protected_attribute_names.index("sex")
    a_tr = train.protected_attributes[:, sex_col].astype(int)
    a_te = test.protected_attributes[:, sex_col].astype(int)
    y_tr, y_te = train.labels.ravel().astype(int), test.labels.ravel().astype(int)

    def gap(labels, a):                     # P(Y=1 | sex=0) − P(Y=1 | sex=1), AIF360's sign
        return float(labels[a == 0].mean() - labels[a == 1].mean())

    start = time.perf_counter()
    tr = AifLFR(unprivileged_groups=[{"sex": 0}], privileged_groups=[{"sex": 1}], k=cfg["k"],
                Ax=cfg["Ax"], Ay=cfg["Ay"], Az=cfg["Az"], verbose=0, seed=seed)
    tr.fit(train, maxiter=5000, maxfun=5000)
    seconds = time.perf_counter() - start
    t_tr, t_te = tr.transform(train), tr.transform(test)
    lab_tr, lab_te = t_tr.labels.ravel().astype(int), t_te.labels.ravel().astype(int)
    print(f"\n### AIF360 {__import__('aif360').__version__}, {name} settings "
          f"({', '.join(f'{k}={v}' for k, v in cfg.items())}), seed {seed}: "
          f"{train.features.shape[0]:,} training rows × {train.features.shape[1]}\n")
    print("| | training | held out |")
    print("|---|---|---|")
    print(f"| parity gap of the true labels | {gap(y_tr, a_tr):+.3f} | {gap(y_te, a_te):+.3f} |")
    print(f"| parity gap of the transformed labels | {gap(lab_tr, a_tr):+.3f} | "
          f"{gap(lab_te, a_te):+.3f} |")
    print(f"| share of transformed labels = 1 | {lab_tr.mean():.3f} | {lab_te.mean():.3f} |")
    print(f"| accuracy of the transformed labels | {np.mean(lab_tr == y_tr):.3f} | "
          f"{np.mean(lab_te == y_te):.3f} |")
    if len(np.unique(lab_tr)) == 2:
        lr = LogisticRegression(max_iter=1000).fit(t_tr.features, lab_tr)
        pred = lr.predict(t_te.features)
        print(f"| LR on transformed features and labels: classes predicted | "
              f"{sorted(np.unique(lr.predict(t_tr.features)).tolist())} | "
              f"{sorted(np.unique(pred).tolist())} (share 1: {pred.mean():.3f}) |")
    else:
        print(f"| LR on transformed features and labels | not trainable: every transformed "
              f"training label is {lab_tr[0]} | |")
    lr2 = LogisticRegression(max_iter=1000).fit(t_tr.features, y_tr)
    pred2 = lr2.predict(t_te.features)
    print(f"| LR on transformed features, true labels: accuracy, parity gap | | "
          f"{np.mean(pred2 == y_te):.3f}, {gap(pred2, a_te):+.3f} |")
    print(f"\nAIF360 fit: {seconds:.1f} s.")
    # dpteach's LFR on the same split and features: AIF360's parity term is the mean over
    # prototypes (ours: the sum), so its Az is ours times k
    for Az in (cfg["Az"] / cfg["k"], 1.0):
        start = time.perf_counter()
        m = LFR(n_prototypes=cfg["k"], Ax=0.01, Ay=1.0, Az=Az, rng=seed).fit(
            train.features, y_tr, sensitive_features=a_tr)
        seconds = time.perf_counter() - start
        pred_tr = m.predict(train.features, sensitive_features=a_tr)
        pred_te = m.predict(test.features, sensitive_features=a_te)
        print(f"dpteach LFR(K={cfg['k']}, A_x=0.01, A_y=1, A_z={Az:g}) on the same rows: "
              f"{seconds:.1f} s; parity gap of ŷ>½ {gap(pred_tr, a_tr):+.3f} (training) / "
              f"{gap(pred_te, a_te):+.3f} (held out); share predicted 1 {pred_te.mean():.3f}; "
              f"held-out accuracy {np.mean(pred_te == y_te):.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="Adult training rows for part 1")
    ap.add_argument("--repeats", type=int, default=3, help="seeds for part 1")
    ap.add_argument("--full-repeats", type=int, default=3, help="seeds for part 2 (0: skip)")
    ap.add_argument("--skip-fairlearn", action="store_true", help="skip part 1")
    ap.add_argument("--aif360", action="store_true", help="run part 3 (needs aif360)")
    args = ap.parse_args(argv)
    if not args.skip_fairlearn:
        side_by_side(args.n, args.repeats, skip_fairlearn=False)
    if args.full_repeats:
        full_adult(args.full_repeats)
    if args.aif360:
        for name in AIF360_DEMOS:
            aif360_demo(name)


if __name__ == "__main__":
    main()
