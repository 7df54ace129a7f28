"""Figures for composition and privacy accounting (notebook 04, app pages).

All numbers come from :mod:`dpteach.accounting` / :mod:`dpteach.composition`.
"""

from __future__ import annotations

import numpy as np

from .._validation import ParameterError, check_array, check_int
from ..accounting import METHOD_LABELS, METHODS, composition_epsilons, dpsgd_epsilons
from ..composition import amplify_by_subsampling
from ._style import PALETTE, new_axes

__all__ = ["plot_composition", "plot_dpsgd_epsilon", "plot_amplification"]

K_MAX_LIMIT = 100_000        # plot_composition: largest k_max (and mark_k)
STEPS_MAX_LIMIT = 10**6      # plot_dpsgd_epsilon: largest steps_max (and mark_steps)
PLD_POINTS_LIMIT = 100       # plot_dpsgd_epsilon: each PLD point costs up to ~35 ms

_COLOURS = {
    "basic": PALETTE["black"],
    "advanced": PALETTE["orange"],
    "optimal": PALETTE["green"],
    "rdp": PALETTE["blue"],
    "pld": PALETTE["vermillion"],
}
_STYLES = {"basic": ":", "advanced": "--", "optimal": "-.", "rdp": "-", "pld": "-"}


def _k_grid(k_max: int, n: int = 24) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, k_max, n)).astype(int))


def plot_composition(k_max: int = 1000, *, mechanism: str = "laplace", epsilon: float | None = 0.1,
                     sigma: float | None = None, delta: float = 1e-5, methods=METHODS,
                     mark_k: int | None = None, ax=None):
    """Total ε of k identical queries versus k (log–log), one line per method.

    See :func:`dpteach.accounting.composition_epsilons` for what each method
    assumes (for Gaussian queries, the per-query δ₀ = δ/(2k) split).

    Parameters
    ----------
    k_max : int
        Largest number of queries, in [2, 100 000]; about 24 log-spaced k's are
        computed.
    mechanism : {"laplace", "gaussian"}
    epsilon : float
        Per-query ε₀ (Laplace).
    sigma : float
        Noise σ (Gaussian, sensitivity 1).
    delta : float
        Total δ.
    methods : iterable of str
        A non-empty subset of :data:`dpteach.accounting.METHODS`.
    mark_k : int, optional
        Draw a vertical line at this k (an integer in [1, 100 000]).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    k_max = check_int("k_max", k_max, minimum=2, maximum=K_MAX_LIMIT)
    if mark_k is not None:
        mark_k = check_int("mark_k", mark_k, minimum=1, maximum=K_MAX_LIMIT)
    if methods is None or isinstance(methods, (str, bytes)) or not hasattr(methods, "__iter__"):
        raise TypeError("methods must be a non-empty sequence of method names; "
                        f"got methods={methods!r:.60}")
    methods = tuple(methods)
    if not methods:
        raise ParameterError("methods must name at least one method; got methods=()")
    ks = _k_grid(k_max)
    curves = composition_epsilons(ks, mechanism=mechanism, epsilon=epsilon, sigma=sigma,
                                  delta=delta, methods=methods)
    fig, ax = new_axes(ax)
    for m, eps in curves.items():
        # the optimal (KOV) curve often lies on top of RDP/PLD: draw it above them
        ax.plot(ks, eps, _STYLES[m], color=_COLOURS[m], lw=2 if m in ("rdp", "pld") else 1.6,
                label=METHOD_LABELS[m], zorder=3 if m == "optimal" else 2)
    if mark_k is not None:
        ax.axvline(mark_k, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of queries k")
    ax.set_ylabel("total ε (lower is better)")
    what = (f"Laplace queries, ε₀ = {epsilon:g} each" if mechanism == "laplace"
            else f"Gaussian queries, σ = {sigma:g} (Δ₂ = 1)")
    ax.set_title(f"Composition of k {what}; total δ = {delta:g}")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_dpsgd_epsilon(steps_max: int = 15_000, *, noise_multiplier: float = 1.1,
                       sample_rate: float = 256 / 60_000, delta: float = 1e-5,
                       pld_points: int = 8, mark_steps: int | None = None, ax=None):
    """ε versus the number of DP-SGD steps, by RDP (line) and PLD (markers).

    Parameters
    ----------
    steps_max : int
        Largest number of steps, in [2, 10⁶] (beyond 10⁶ the PLD accountant
        takes tens of seconds and, for larger q, more memory than a Binder has).
    noise_multiplier, sample_rate, delta : float
        σ, Poisson rate q, δ.
    pld_points : int
        Number of PLD evaluations in [0, 100] (each costs up to ~35 ms); 0 for
        RDP only.
    mark_steps : int, optional
        Draw a vertical line at this number of steps (e.g. the planned run), an
        integer in [1, 10⁶].
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    steps_max = check_int("steps_max", steps_max, minimum=2, maximum=STEPS_MAX_LIMIT)
    pld_points = check_int("pld_points", pld_points, minimum=0, maximum=PLD_POINTS_LIMIT)
    if mark_steps is not None:
        mark_steps = check_int("mark_steps", mark_steps, minimum=1, maximum=STEPS_MAX_LIMIT)
    steps = np.unique(np.round(np.geomspace(1, steps_max, 60)).astype(int))
    fig, ax = new_axes(ax)
    rdp = dpsgd_epsilons(steps, noise_multiplier=noise_multiplier, sample_rate=sample_rate,
                         delta=delta, accountants=("rdp",))["rdp"]
    ax.plot(steps, rdp, "-", color=_COLOURS["rdp"], lw=2, label=METHOD_LABELS["rdp"])
    if pld_points > 0:
        pts = np.unique(np.round(np.geomspace(1, steps_max, pld_points)).astype(int))
        pld = dpsgd_epsilons(pts, noise_multiplier=noise_multiplier, sample_rate=sample_rate,
                             delta=delta, accountants=("pld",))["pld"]
        # markers only: a straight segment between two PLD values is not a PLD value
        # (and would cross the RDP curve)
        ax.plot(pts, pld, "o", color=_COLOURS["pld"], ms=7, label=METHOD_LABELS["pld"], zorder=3)
    if mark_steps is not None:
        ax.axvline(mark_steps, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("training steps T")
    ax.set_ylabel("ε (lower is better)")
    ax.set_title(f"DP-SGD accounting: q = {sample_rate:.3g}, σ = {noise_multiplier:g}, "
                 f"δ = {delta:g}")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_amplification(epsilons=(0.5, 1.0, 2.0, 5.0), ax=None):
    """Privacy amplification by subsampling: ε' = ln(1 + q(e^ε − 1)) versus q.

    Parameters
    ----------
    epsilons : float or sequence of float
        ε of the mechanism on its input (finite, > 0), one line each; at most 12.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    eps_arr = check_array("epsilons", epsilons, ndim=(0, 1)).ravel()
    if np.any(eps_arr <= 0) or eps_arr.size > 12:
        raise ParameterError("epsilons must hold 1 to 12 values, each finite and > 0; "
                             f"got epsilons={epsilons!r:.60}")
    epsilons = [float(e) for e in eps_arr]
    qs = np.geomspace(1e-3, 1.0, 80)
    fig, ax = new_axes(ax)
    for eps in epsilons:
        amp = [amplify_by_subsampling(eps, q) for q in qs]
        (line,) = ax.plot(qs, amp, lw=2, label=f"ε = {eps:g}")
        ax.plot(qs, qs * eps, ":", color=line.get_color(), lw=1)
    ax.plot([], [], ":", color="grey", label="q·ε (small-ε approximation)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sampling rate q")
    ax.set_ylabel("ε after subsampling")
    ax.set_title("Amplification by subsampling: ε' = ln(1 + q(e^ε − 1))")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return fig
