"""Rerun time of the app page "Private logistic regression" after a slider change.

The page is rerun headless with Streamlit's AppTest (times include AppTest's
own overhead), after the Adult curve has been computed once (its cost is
reported separately). The ε slider is walked through consecutive positions,
then the Λ slider, in three conditions run one after the other:

* **new, no prefetch**: every position is new, the toy figure (8 private fits
  + the non-private one, drawn with matplotlib) is made on demand
  (``DPTEACH_APP_PREFETCH=0``, empty figure store);
* **new, prefetch + pauses**: every position is new, but the page draws the
  neighbouring positions in the background, and the walk pauses 1 s between
  steps (an instructor talking), untimed;
* **revisited**: the same walk again (figures already drawn).

Prints medians (ms) with the ratio to the first column.

Command: ``.venv/bin/python benchmarks/bench_erm_app.py`` (about a minute).
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from dpteach.app_pages import _common  # noqa: E402
from dpteach.app_pages import private_lr  # noqa: E402

PAUSE = 1.0


def _page() -> None:
    from dpteach.app_pages import private_lr as page

    page.render()


def new_app() -> AppTest:
    return AppTest.from_function(_page, default_timeout=300).run()


def walk(at: AppTest, key: str, values, pause: float = 0.0) -> list[float]:
    times = []
    for v in values:
        if pause:
            time.sleep(pause)
        at.select_slider(key=key).set_value(v)
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, [e.value for e in at.exception]
    return times


def main() -> None:
    print(f"python {platform.python_version()}, load average {os.getloadavg()[0]:.1f}")
    t0 = time.perf_counter()
    private_lr.adult_curve()
    print(f"Adult curve, computed once: {time.perf_counter() - t0:.1f} s")
    eps_walk = [e for e in _common.EPSILONS if e != 1.0][:12]
    lam_walk = [lam for lam in private_lr.LAMS if lam != 1e-3]

    def run_walks(pause=0.0):
        at = new_app()
        return walk(at, "erm_epsilon", eps_walk, pause) + walk(at, "erm_lam", lam_walk, pause)

    rows = {}
    os.environ["DPTEACH_APP_PREFETCH"] = "0"
    _common.FIGURES.clear()
    private_lr.toy_models.cache_clear()
    rows["new, no prefetch"] = run_walks()
    os.environ["DPTEACH_APP_PREFETCH"] = "1"
    _common.FIGURES.clear()
    private_lr.toy_models.cache_clear()
    rows["new, prefetch + 1 s pauses"] = run_walks(PAUSE)
    rows["revisited"] = run_walks()
    base = statistics.median(rows["new, no prefetch"])
    print("\n| condition | median (ms) | max (ms) | ratio to no prefetch |")
    print("|---|---:|---:|---:|")
    for name, ts in rows.items():
        med = statistics.median(ts)
        print(f"| {name} | {1e3 * med:.0f} | {1e3 * max(ts):.0f} | {med / base:.2f} |")
    print(f"\n{len(rows['revisited'])} reruns per condition (ε walk then Λ walk).")


if __name__ == "__main__":
    main()
