"""Fairness through awareness: the loss-minimising fair mapping as a linear program.

Dwork, Hardt, Pitassi, Reingold and Zemel [DHP+12]_ ask a classifier to treat similar
individuals similarly. A *task metric* ``d(x, y)`` says how different two individuals are
for the task at hand; a randomized classifier maps each individual ``x`` to a distribution
``μ_x`` over the outcomes ``A``; and the classifier is *individually fair* when it is
Lipschitz (Sec. 2 of [DHP+12]_)::

    D(μ_x, μ_y) ≤ d(x, y)        for every pair of individuals x, y,

with ``D`` a distance between distributions: the total variation ``D_tv(P, Q) =
½ Σ_a |P(a) − Q(a)|`` or the relative ℓ∞ distance ``D_∞(P, Q) = max_a |log P(a)/Q(a)|``
(both defined in Sec. 2; ``D_∞(μ_x, μ_y) ≤ d(x, y)`` has the form of ε-differential privacy
with ε = d(x, y)). Among the fair
mappings, a vendor with loss ``L(x, a)`` wants the cheapest; on a finite sample ``V`` of
individuals this is the linear program of Sec. 2::

    minimise   (1/|V|) Σ_x Σ_a μ_x(a) L(x, a)
    subject to μ_x is a probability distribution on A            for every x,
               D(μ_x, μ_y) ≤ d(x, y)                              for every pair x, y.

:func:`fair_mapping` solves it with HiGHS (``scipy.optimize.linprog``), optionally with some
individuals' outcomes fixed or with a cap on the statistical-parity gap between groups.

When individual fairness implies group fairness (statistical parity, the Earthmover bound
of Sec. 3) and the demonstration on the Adult data are in
:mod:`dpteach.fairness.awareness_parity`.

How the LP is solved
--------------------
The full LP has one Lipschitz constraint per pair of individuals, about n²/2, although at
the optimum only about n of them are tight. :func:`fair_mapping` therefore adds them
lazily (constraint generation): it starts from each individual's nearest neighbours, solves,
checks *every* pair on the solution and adds the violated constraints, until none is
violated; the answer is the optimum of the full LP. The total-variation constraint is linear
without auxiliary variables: ``D_tv(P, Q) ≤ δ`` holds exactly when ``P(O) − Q(O) ≤ δ`` for
every event ``O ⊆ A``, and the most violated event is ``O = {a : P(a) > Q(a)}``; the
generator adds that event's row. For two outcomes this is the closed form
``|μ_x(1) − μ_y(1)| ≤ d(x, y)``. ``D_∞`` is linear as ``μ_x(a) ≤ e^{d(x,y)} μ_y(a)``.
A pair with ``d(x, y) ≥ 1`` constrains nothing under ``D_tv`` (it never exceeds 1) and is
never added.

References
----------
.. [DHP+12] C. Dwork, M. Hardt, T. Pitassi, O. Reingold and R. Zemel. Fairness through
   awareness. In *Proc. 3rd Innovations in Theoretical Computer Science Conference (ITCS)*,
   214–226, 2012. arXiv:1104.3913. Sec. 2: the Lipschitz condition, ``D_tv`` and ``D_∞``,
   the linear program; Sec. 3: statistical parity and the Earthmover-distance bound on the
   bias of a Lipschitz mapping (tight when ``d ≤ 1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.sparse.csgraph import csgraph_from_dense, shortest_path

from .._validation import (PROBABILITY, Domain, array, choice, instance_of, integer, refuse,
                           validate)
from ._rows import check_same_length
from .metrics import SEVERAL_GROUPS

__all__ = [
    "MAX_INDIVIDUALS", "MAX_OUTCOMES", "MAX_VARIABLES", "DINF_MAX_DISTANCE", "TOLERANCE",
    "LOSS", "DISTANCES", "FIXED_OUTCOMES", "FairMapping", "fair_mapping",
]

#: Largest sample :func:`fair_mapping` accepts (about n²/2 pairs are checked each round).
MAX_INDIVIDUALS = 500
#: Largest number of outcomes.
MAX_OUTCOMES = 4
#: Largest number of LP variables n·m (so n ≤ 500 for two outcomes, 400 for three, 300 for
#: four).
MAX_VARIABLES = 1200
#: Largest distance allowed with ``metric="dinf"``: its constraint ``μ_x(a) ≤ e^d μ_y(a)``
#: has the coefficient e^d, and beyond e^30 ≈ 10¹³ the LP is no longer meaningful in
#: floating point.
DINF_MAX_DISTANCE = 30.0
#: Absolute tolerance to which every constraint of the returned mapping holds.
TOLERANCE = 1e-9
#: Largest distance of a task metric (``metric="tv"``: any d ≥ 1 constrains nothing).
MAX_DISTANCE = 1e6

_NEIGHBOURS = 8              # Lipschitz pairs per individual in the first round
_MAX_ROUNDS = 200            # constraint-generation rounds (a few suffice in practice)
_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}

#: the vendor's loss L(x, a): one row per individual, one column per outcome (2 to 4)
LOSS = array(ndim=2, low=-1e15, high=1e15, max_size=MAX_VARIABLES, max_rows=MAX_INDIVIDUALS,
             example=[[0.0, 1.0], [1.0, 0.0]],
             text=f"a 2-D array of finite numbers (|L| ≤ 1e15), one row per individual and 2 "
                  f"to {MAX_OUTCOMES} columns (outcomes), at most {MAX_INDIVIDUALS} rows and "
                  f"{MAX_VARIABLES} entries")
#: a task metric d on n individuals
DISTANCES: Domain = Domain(
    f"a square (n, n) array of distances in [0, {MAX_DISTANCE:g}], symmetric with a zero "
    f"diagonal (to 1e-9 relative), n ≤ {MAX_INDIVIDUALS}",
    lambda name, value: _distances(name, value), example=[[0.0, 0.5], [0.5, 0.0]],
    edges=[[[0.0]], [[0.0, MAX_DISTANCE], [MAX_DISTANCE, 0.0]]],
    bad=[[[0, 0.5], [0.4, 0]], [[0, -0.5], [-0.5, 0]], [[0.1, 0.5], [0.5, 0]],
         [[0, 0.5, 0.5], [0.5, 0, 0.5]], [[0, 2e6], [2e6, 0]], [0.0, 0.5], None, "d"])
#: individuals given a certain outcome: {x: a}
FIXED_OUTCOMES: Domain = Domain(
    f"None or a dict {{individual: outcome}} of ints (individual in [0, {MAX_INDIVIDUALS}), "
    f"outcome in [0, {MAX_OUTCOMES}))", lambda name, value: _fixed(name, value),
    example=None, edges=[None, {0: 0}], bad=[[(0, 1)], {-1: 0}, {0: -1}, {True: 0}, {0: 1.0},
                                             {"0": 0}, {0: None}, 3, "0"])


# ------------------------------------------------------------------------- the result
@dataclass(frozen=True)
class FairMapping:
    """The loss-minimising Lipschitz mapping found by :func:`fair_mapping`.

    Attributes
    ----------
    mapping : ndarray, shape (n, m)
        ``mapping[x, a] = μ_x(a)``, the probability that individual ``x`` gets outcome ``a``;
        each row is a probability distribution.
    objective : float
        The vendor's expected loss ``(1/n) Σ_x Σ_a μ_x(a) L(x, a)`` (the LP's objective).
    unconstrained_objective : float
        The same without any constraint, ``(1/n) Σ_x min_a L(x, a)``; the difference is
        the price of fairness for this vendor.
    metric : str
        ``"tv"`` or ``"dinf"``, the distance ``D`` between outcome distributions.
    distances_used : ndarray, shape (n, n)
        ``D(μ_x, μ_y)`` for every pair.
    slack : ndarray, shape (n, n)
        ``d(x, y) − D(μ_x, μ_y)``; ≥ −:data:`TOLERANCE` everywhere, 0 on the diagonal.
    n_tight : int
        The number of pairs ``x < y`` whose Lipschitz constraint is tight (slack ≤
        :data:`TOLERANCE`) and binding (``d(x, y) < 1`` for ``"tv"``).
    max_violation : float
        ``max(0, −min slack)`` together with the other constraints' violations: how far
        the returned mapping is from exact feasibility (≤ :data:`TOLERANCE`).
    status : str
        HiGHS's final message.
    n_constraints : int
        Lipschitz rows in the last LP (of about n²/2 pairs: the rest were never needed).
    n_rounds : int
        Constraint-generation rounds.
    """

    mapping: np.ndarray
    objective: float
    unconstrained_objective: float
    metric: str
    distances_used: np.ndarray
    slack: np.ndarray
    n_tight: int
    max_violation: float
    status: str
    n_constraints: int
    n_rounds: int


# ------------------------------------------------------------------------ the solver
@validate(loss=LOSS, distances=DISTANCES, metric=choice("tv", "dinf"),
          fixed_outcomes=FIXED_OUTCOMES, groups=SEVERAL_GROUPS.or_none(),
          max_parity_gap=PROBABILITY.or_none())
def fair_mapping(loss, distances, *, metric: str = "tv", fixed_outcomes=None, groups=None,
                 max_parity_gap=None) -> FairMapping:
    """The vendor's loss-minimising mapping subject to the Lipschitz condition [DHP+12]_.

    Solves the linear program of Sec. 2 of [DHP+12]_ on a sample of ``n`` individuals::

        minimise   (1/n) Σ_x Σ_a μ_x(a) L(x, a)
        subject to μ_x ∈ Δ(A)  and  D(μ_x, μ_y) ≤ d(x, y)  for all pairs x, y,

    with ``D`` the total variation distance (``metric="tv"``) or the relative ℓ∞ distance
    ``D_∞(P, Q) = max_a |log P(a) − log Q(a)|`` (``metric="dinf"``, the differential-privacy
    form: ``μ_x(a) ≤ e^{d(x,y)} μ_y(a)``). The constraints are generated lazily (see the
    module docstring); the result is the optimum of the full LP.

    Parameters
    ----------
    loss : array_like, shape (n, m)
        ``L(x, a)``, the vendor's loss when individual ``x`` gets outcome ``a``: 2 to
        :data:`MAX_OUTCOMES` (4) outcomes, n·m ≤ :data:`MAX_VARIABLES` (1200) entries
        (n ≤ 500 for two outcomes, 400 for three, 300 for four). Only differences within a
        row matter to the optimum; the loss is rescaled internally.
    distances : array_like, shape (n, n)
        The task metric ``d``, one row and column per individual (the smaller of ``d(x, y)``
        and ``d(y, x)`` is used). The triangle inequality is not required. With
        ``metric="dinf"`` every distance must be ≤ :data:`DINF_MAX_DISTANCE` (30).
    fixed_outcomes : dict, optional
        ``{x: a}``: individual ``x`` gets outcome ``a`` with certainty (``μ_x(a) = 1``).
    groups, max_parity_gap : optional
        Group labels, and a cap on the statistical-parity gap between every two of them:
        the total variation between their average outcome distributions (see
        :func:`dpteach.fairness.awareness_parity.statistical_parity_gap`).

    Returns
    -------
    FairMapping
        Every constraint holds to :data:`TOLERANCE` (10⁻⁹).

    Raises
    ------
    ParameterError
        When the LP is infeasible, which only the optional constraints can cause (the
        constant mapping is always Lipschitz): the message says which family
        (``fixed_outcomes``, ``max_parity_gap``) makes it infeasible, found by solving again
        without each, and for fixed outcomes names a conflicting pair when there is one.

    Notes
    -----
    For ``metric="dinf"``,
    ``max_violation`` measures the linear form ``μ_x(a) − e^{d(x,y)} μ_y(a)`` and
    ``slack`` the log-ratios.

    Examples
    --------
    Two individuals at distance 0.2 whom the vendor wants treated oppositely: the
    cheapest fair mapping splits the difference the loss prefers.

    >>> res = fair_mapping([[0.0, 1.0], [1.0, 0.0]], [[0, 0.2], [0.2, 0]])
    >>> round(float(res.mapping[1, 1] - res.mapping[0, 1]), 6)
    0.2
    """
    L, d, fixed = loss, distances, fixed_outcomes or {}
    n, m = L.shape
    codes: Any = None if groups is None else groups.codes
    k = 0 if groups is None else groups.labels.size
    if not 2 <= m <= MAX_OUTCOMES:
        raise refuse("loss", L.shape, f"of 2 to {MAX_OUTCOMES} columns (outcomes)")
    check_same_length(loss=L, distances=d, **({} if codes is None else {"groups": codes}))
    if metric == "dinf" and d.max() > DINF_MAX_DISTANCE:
        raise refuse("distances", d.max(), "at most 30 with metric='dinf' (largest given)")
    if any(x >= n or a >= m for x, a in fixed.items()):
        raise refuse("fixed_outcomes", fixed, f"a map of individuals [0, {n}) to [0, {m})")
    if max_parity_gap is not None and groups is None:
        raise refuse("groups", groups, "given with max_parity_gap")
    cap = None if max_parity_gap is None or max_parity_gap >= 1.0 else max_parity_gap

    # normalise the loss: per-row shifts and a positive scale leave the argmin unchanged
    top = float(np.max(np.abs(L)))
    unit = L / top if top > 0 else L.copy()
    shifted = unit - unit.min(axis=1, keepdims=True)
    spread = float(shifted.max())
    cost = shifted / spread if spread > 0 else shifted

    problem = _Problem(cost, d, metric, fixed, codes, k, cap)
    status, mu, message, rows, rounds = problem.solve()
    if status == 2:
        _explain_infeasible(problem, d, fixed, metric)
    if status != 0 or mu is None:       # HiGHS failed on a feasible LP: not the caller's fault
        raise RuntimeError(f"the fair-mapping LP could not be solved ({message})")

    # the answer, measured on the returned mapping itself
    expected = (mu * unit).sum(axis=1)
    objective = float(top * expected.mean()) if top > 0 else 0.0
    best = float(top * unit.min(axis=1).mean()) if top > 0 else 0.0
    used = _pairwise_distance(mu, metric)
    slack = d - used
    np.fill_diagonal(slack, 0.0)
    iu, ju = np.triu_indices(n, 1)
    if metric == "tv":
        binding = d[iu, ju] < 1.0
        violation = max(0.0, float(-slack[iu, ju].min())) if iu.size else 0.0
    else:
        binding = np.ones(iu.size, dtype=bool)
        violation = (max(0.0, float(_dinf_violation(mu, iu, ju, np.exp(d[iu, ju])).max()))
                     if iu.size else 0.0)
    tight = int(np.sum((slack[iu, ju] <= TOLERANCE) & binding))
    for x, a in fixed.items():
        violation = max(violation, 1.0 - float(mu[x, a]))
    if cap is not None:
        violation = max(violation, _parity_gap(mu, codes) - cap)
    return FairMapping(mapping=mu, objective=objective, unconstrained_objective=best,
                       metric=metric, distances_used=used, slack=slack, n_tight=tight,
                       max_violation=float(max(0.0, violation)), status=str(message),
                       n_constraints=len(rows.rhs), n_rounds=rounds)


def _explain_infeasible(problem: _Problem, d, fixed, metric) -> None:
    """Raise the ParameterError that names the constraint family making the LP infeasible.

    The Lipschitz constraints alone are always feasible (a constant mapping), and so they
    are with the parity cap alone (a constant mapping has gap 0); only the fixed outcomes,
    alone or with the cap, can make the LP infeasible. So: solve again without the cap; if
    that is still infeasible the fixed outcomes are at fault, otherwise the cap is.
    Returns (for the caller's generic error) if neither family is present.
    """
    if not fixed:
        return
    status_no_cap = 2
    if problem.cap is not None:
        status_no_cap, *_ = problem.solve(use_cap=False)
        if status_no_cap not in (0, 2):
            return
    if status_no_cap == 2:
        # the fixed outcomes alone contradict the Lipschitz condition
        hint = _fixed_conflict(d, fixed, metric)
        raise refuse("fixed_outcomes", fixed, f"outcomes that distances allow{hint}")
    raise refuse("max_parity_gap", problem.cap, "a gap that fixed_outcomes allow")


def _fixed_conflict(d, fixed, metric) -> str:
    """A pair of fixed individuals that cannot both get their outcomes, if one is found."""
    items = sorted(fixed.items())
    if len(items) < 2:
        return ""
    idx = np.array([x for x, _ in items])
    if metric == "dinf":
        for p, (x, a) in enumerate(items):
            for y, b in items[p + 1:]:
                if a != b:
                    return (f" (with metric='dinf' distinct certain outcomes are infinitely "
                            f"far apart: individuals {x} and {y} are fixed to {a} and {b})")
        return ""
    graph = csgraph_from_dense(d, null_value=np.inf)
    reach = shortest_path(graph, directed=False, indices=idx)
    for p, (x, a) in enumerate(items):
        for y, b in items[p + 1:]:
            if a != b and reach[p, y] < 1.0:
                via = "" if reach[p, y] >= d[x, y] else " along a chain of individuals"
                return (f" (individuals {x} and {y} are fixed to outcomes {a} and {b}, "
                        f"total variation 1, but are at distance {reach[p, y]:.4g}{via})")
    return ""



def _parity_gap(mu: np.ndarray, codes: np.ndarray) -> float:
    """The largest D_tv between two groups' average rows of ``mu`` (groups coded 0, 1, ...)."""
    avg = np.stack([mu[codes == g].mean(axis=0) for g in range(int(codes.max()) + 1)])
    return max(0.5 * float(np.abs(avg[s] - avg[t]).sum())
               for s in range(len(avg)) for t in range(s + 1, len(avg)))


def _pairwise_distance(mu: np.ndarray, metric: str) -> np.ndarray:
    """``D(μ_x, μ_y)`` for all pairs: (n, n)."""
    n = mu.shape[0]
    out = np.zeros((n, n))
    for x in range(n):                         # row by row: memory n·m, not n²·m
        diff = mu[x] - mu
        if metric == "tv":
            out[x] = 0.5 * np.abs(diff).sum(axis=1)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.abs(np.log(mu[x]) - np.log(mu))
            both_zero = (mu[x] == 0) & (mu == 0)
            ratio[both_zero] = 0.0
            out[x] = ratio.max(axis=1)
    np.fill_diagonal(out, 0.0)
    return out


def _dinf_violation(mu: np.ndarray, i: np.ndarray, j: np.ndarray, e: np.ndarray) -> np.ndarray:
    """max_a max(μ_i(a) − e μ_j(a), μ_j(a) − e μ_i(a)) for the pairs (i, j), e = e^{d}."""
    a = mu[i] - e[:, None] * mu[j]
    b = mu[j] - e[:, None] * mu[i]
    return np.maximum(a, b).max(axis=1)


# --------------------------------------------------------------------------- the LP
class _Rows:
    """A growing set of sparse ``A_ub`` rows over the n·m variables μ."""

    def __init__(self, nvars: int):
        self.nvars = nvars
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []
        self.rhs: list[float] = []
        self.keys: set = set()

    def add(self, key, cols, vals, rhs) -> bool:
        if key in self.keys:
            return False
        self.keys.add(key)
        r = len(self.rhs)
        self.rows.append(np.full(len(cols), r))
        self.cols.append(np.asarray(cols))
        self.vals.append(np.asarray(vals, dtype=float))
        self.rhs.append(float(rhs))
        return True

    def matrix(self):
        if not self.rhs:
            return None, None
        A = sp.csr_matrix((np.concatenate(self.vals),
                           (np.concatenate(self.rows), np.concatenate(self.cols))),
                          shape=(len(self.rhs), self.nvars))
        return A, np.asarray(self.rhs)


def _canonical(x, y, event_mask, m):
    """The same row with an event that holds the last outcome.

    ``μ_x(O) − μ_y(O) = μ_y(Oᶜ) − μ_x(Oᶜ)``: the row for (x, y, O) is the row for
    (y, x, Oᶜ). For two outcomes every row becomes ``±(μ_x(1) − μ_y(1)) ≤ d``.
    """
    if event_mask >> (m - 1) & 1:
        return x, y, event_mask
    return y, x, ((1 << m) - 1) ^ event_mask


def _tv_row(x, y, event_mask, m, d):
    """Row μ_x(O) − μ_y(O) ≤ d for the event O (a bitmask over the m outcomes)."""
    x, y, event_mask = _canonical(x, y, event_mask, m)
    outcomes = [a for a in range(m) if event_mask >> a & 1]
    cols = [x * m + a for a in outcomes] + [y * m + a for a in outcomes]
    vals = [1.0] * len(outcomes) + [-1.0] * len(outcomes)
    return ("tv", x, y, event_mask), cols, vals, d


def _dinf_rows(x, y, m, e):
    """Rows μ_x(a) − e μ_y(a) ≤ 0 and μ_y(a) − e μ_x(a) ≤ 0 for every outcome a."""
    for a in range(m):
        yield ("dinf", x, y, a), [x * m + a, y * m + a], [1.0, -e], 0.0
        yield ("dinf", y, x, a), [y * m + a, x * m + a], [1.0, -e], 0.0


def _event(p: np.ndarray, q: np.ndarray) -> int:
    """Bitmask of {a : p(a) > q(a)}, the event on which p − q is largest."""
    return int(sum(1 << a for a in np.flatnonzero(p > q)))


def _seed_pairs(d: np.ndarray, active: np.ndarray) -> list[tuple[int, int]]:
    """Each individual with its nearest neighbours among the constraining pairs."""
    n = d.shape[0]
    k = min(_NEIGHBOURS, n - 1)
    if k <= 0:
        return []
    masked = np.where(active, d, np.inf)
    np.fill_diagonal(masked, np.inf)
    near = np.argpartition(masked, k - 1, axis=1)[:, :k]
    pairs = set()
    for x in range(n):
        for y in near[x]:
            if np.isfinite(masked[x, y]):
                pairs.add((min(x, int(y)), max(x, int(y))))
    return sorted(pairs)


class _Problem:
    """The fair-mapping LP on normalised losses, solved by constraint generation."""

    def __init__(self, cost, d, metric, fixed, group_codes, n_groups, cap):
        self.n, self.m = cost.shape
        self.cost, self.d, self.metric = cost, d, metric
        self.fixed, self.codes, self.k, self.cap = fixed, group_codes, n_groups, cap
        if metric == "tv":
            self.active = d < 1.0                # D_tv ≤ 1 always: d ≥ 1 constrains nothing
        else:
            self.active = np.ones_like(d, dtype=bool)
        np.fill_diagonal(self.active, False)
        self.expd = np.exp(d) if metric == "dinf" else None

    # the rows ---------------------------------------------------------------------
    def _lipschitz_rows(self, x, y, mu=None):
        m, d = self.m, self.d[x, y]
        if self.metric == "dinf":
            yield from _dinf_rows(x, y, m, self.expd[x, y])
            return
        if mu is None:                           # seed: the singleton events (both ways)
            events = [1 << a for a in range(m)] if m > 2 else [2]
            for ev in events:
                yield _tv_row(x, y, ev, m, d)
                yield _tv_row(y, x, ev, m, d)
        else:                                    # cut: the most violated event
            ev = _event(mu[x], mu[y])
            yield _tv_row(x, y, ev, m, d)

    def _parity_rows(self, rows: _Rows, mu=None) -> int:
        """Rows μ_S(O) − μ_T(O) ≤ cap for the (violated) events, each pair of groups."""
        added = 0
        m = self.m
        sizes = np.bincount(self.codes, minlength=self.k)
        avg = None if mu is None else np.stack([mu[self.codes == g].mean(axis=0)
                                                for g in range(self.k)])
        for s0 in range(self.k):
            for t0 in range(self.k):
                if s0 == t0 or (avg is not None and s0 > t0):
                    continue
                if avg is None:                  # seed: the singleton events (both ways)
                    events = [(s0, t0, ev) for ev in ([1 << a for a in range(m)]
                                                      if m > 2 else [2])]
                else:                            # cut: the most violated event
                    if 0.5 * np.abs(avg[s0] - avg[t0]).sum() <= self.cap + TOLERANCE / 10:
                        continue
                    events = [(s0, t0, _event(avg[s0], avg[t0]))]
                for s, t, ev in (_canonical(*e, m) for e in events):
                    outcomes = [a for a in range(m) if ev >> a & 1]
                    cols, vals = [], []
                    for g, sign in ((s, 1.0), (t, -1.0)):
                        members = np.flatnonzero(self.codes == g)
                        for a in outcomes:
                            cols.append(members * m + a)
                            vals.append(np.full(members.size, sign / sizes[g]))
                    added += rows.add(("parity", s, t, ev), np.concatenate(cols),
                                      np.concatenate(vals), self.cap)
        return added

    # solving ----------------------------------------------------------------------
    def _solve_once(self, rows: _Rows, use_fixed: bool):
        n, m = self.n, self.m
        A_eq = sp.kron(sp.eye(n, format="csr"), np.ones((1, m)), format="csr")
        b_eq = np.ones(n)
        lower = np.zeros(n * m)
        upper = np.ones(n * m)
        if use_fixed:
            for x, a in self.fixed.items():
                lower[x * m + a] = 1.0
        A_ub, b_ub = rows.matrix()
        res = linprog(self.cost.ravel(), A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq,
                      bounds=np.column_stack([lower, upper]), method="highs",
                      options=_HIGHS)
        return res

    def solve(self, *, use_fixed=True, use_cap=True):
        """(status, μ or None, message, rows, rounds)."""
        n, m = self.n, self.m
        rows = _Rows(n * m)
        for x, y in _seed_pairs(self.d, self.active):
            for row in self._lipschitz_rows(x, y):
                rows.add(*row)
        if use_cap and self.cap is not None:
            self._parity_rows(rows)
        iu, ju = np.triu_indices(n, 1)
        keep = self.active[iu, ju]
        iu, ju = iu[keep], ju[keep]
        for rounds in range(1, _MAX_ROUNDS + 1):
            res = self._solve_once(rows, use_fixed)
            if res.status != 0:
                return res.status, None, res.message, rows, rounds
            mu = np.clip(res.x.reshape(n, m), 0.0, 1.0) + 0.0      # no -0.0
            if self.metric == "dinf":            # HiGHS's 1e-10 crumbs: exact zeros, so
                mu[mu < 1e-12] = 0.0             # that supports (and D_∞) are meaningful
            mu /= mu.sum(axis=1, keepdims=True)
            added = 0
            if iu.size:
                if self.metric == "tv":
                    viol = 0.5 * np.abs(mu[iu] - mu[ju]).sum(axis=1) - self.d[iu, ju]
                else:
                    viol = _dinf_violation(mu, iu, ju, self.expd[iu, ju])
                bad = np.flatnonzero(viol > TOLERANCE / 10)
                for p in bad[np.argsort(-viol[bad])]:
                    x, y = int(iu[p]), int(ju[p])
                    for row in self._lipschitz_rows(x, y, mu if self.metric == "tv" else None):
                        added += rows.add(*row)
            if use_cap and self.cap is not None:
                added += self._parity_rows(rows, mu)
            if not added:
                return 0, mu, res.message, rows, rounds
        return 1, mu, "constraint generation did not converge", rows, rounds


def _distances(name: str, value: Any) -> np.ndarray:
    """The task metric: square, non-negative, symmetric with a zero diagonal up to rounding
    (of 1e-9 relative); returns the stricter of d(x, y) and d(y, x), exactly 0 on the
    diagonal."""
    d = _SQUARE(name, value)
    tol = 1e-9 * max(1.0, float(np.max(d)))
    asymmetry = np.abs(d - d.T).max() if d.shape[0] == d.shape[1] else np.inf
    if max(asymmetry, np.abs(np.diag(d)).max()) > tol:
        raise DISTANCES.refuse(name, value)
    d = np.minimum(d, d.T)
    np.fill_diagonal(d, 0.0)
    return d


_SQUARE = array(ndim=2, low=0.0, high=MAX_DISTANCE, max_rows=MAX_INDIVIDUALS,
                text=DISTANCES.text)
_INDEX = integer(0, MAX_INDIVIDUALS - 1)
_DICT = instance_of(dict, FIXED_OUTCOMES.text)


def _fixed(name: str, value: Any) -> dict[int, int]:
    if value is None:
        return {}
    return {_INDEX(f"{name} key", x): integer(0, MAX_OUTCOMES - 1)(f"{name}[{x!r}]", a)
            for x, a in _DICT(name, value).items()}
