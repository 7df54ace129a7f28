"""Figures for private selection by stability: how the blocks vote, and when the vote is released.

:func:`dpteach.mechanisms.stability.stable_selection` runs a selector on m disjoint blocks
and releases the most common answer only when its lead survives a noisy test: the distance
to instability γ (how many block answers can change before one more change could alter the
most common answer) plus Lap(1/ε) must exceed ln(1/δ)/ε ([ST13]_ Sec 3; [DR14]_ Sec 7.3).
``epsilon`` and ``delta`` are the test's. Every number comes from
:func:`~dpteach.mechanisms.stability.mode_distance_to_instability` and
:func:`~dpteach.mechanisms.stability.stable_selection_pass_probability`.

References
----------
.. [ST13] A. Smith and A. Thakurta. Differentially private feature selection via stability
   arguments, and the robustness of the Lasso. COLT 2013, JMLR W&CP 30: 819-850.
.. [DR14] C. Dwork and A. Roth. *The Algorithmic Foundations of Differential Privacy*.
   Foundations and Trends in TCS 9(3-4), 2014.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from .._validation import DELTA_POSITIVE, EPSILON, Domain, anything, integer, refuse, validate
from ..mechanisms.stability import (ANSWERS, mode_distance_to_instability,
                                    stable_selection_pass_probability)
from ._style import PALETTE
from .figure import FigureData, Series, Text, drawn

__all__ = ["block_votes_data", "plot_block_votes", "stable_selection_data",
           "plot_stable_selection"]

MAX_BARS = 8          #: most answers drawn as bars of their own; the rest share one bar
MAX_SIZES = 50        #: most data sizes on the release curve
MAX_SPLITS = 100      #: most random splits per data size

#: how many records the blocks were cut from (named in the title), or None
RECORDS = integer(1, 10**9, example=60).or_none()
#: {n: [answers of split 1, answers of split 2, ...]}, the block answers at each data size
VOTES_BY_SIZE = Domain(
    f"a dict {{number of records n: a list of 1 to {MAX_SPLITS} splits, each a list of block "
    f"answers}}, 1 to {MAX_SIZES} sizes",
    lambda name, value: _votes_by_size(name, value),
    example={60: [["a", "a", "b"], ["a", "b", "b"]], 600: [["a", "a", "a"], ["a", "a", "a"]]},
    bad=[None, [], {}, {0: [["a"]]}, {60: []}, {60: [[]]}, {60: [["a"], [["a"]]]}, {"n": [["a"]]}])
SIZE = integer(1, 10**9, example=60)
AXES = anything("a matplotlib Axes (a sequence of two for stable_selection_data's panels) "
                "or None for a new figure")


@validate(answers=ANSWERS, epsilon=EPSILON, delta=DELTA_POSITIVE, n_records=RECORDS)
def block_votes_data(answers, epsilon: float, delta: float,
                     n_records: int | None = None) -> FigureData:
    """How the blocks voted, and the chance that their most common answer is released.

    A **non-private** view: the counts of the ``answers`` (the selector's answer on each
    block, :func:`dpteach.mechanisms.stability.block_answers`) are read off the data. Bars
    ``leader`` (the most common answer, when it is unique) and ``others`` (beyond the 8
    most common, one bar "other answers"); ``extra``: ``lead``, ``distance``,
    ``threshold``, ``release_probability``, ``counts`` (answer → number of blocks).
    """
    counts = Counter(answers).most_common()
    shown = counts[:MAX_BARS]
    rest = sum(c for _, c in counts[MAX_BARS:])
    names = [_answer_text(a) for a, _ in shown] + (["other answers"] if rest else [])
    heights = np.array([c for _, c in shown] + ([rest] if rest else []), dtype=float)
    lead = counts[0][1] - (counts[1][1] if len(counts) > 1 else 0)
    gamma = mode_distance_to_instability.__wrapped__(answers)
    threshold = -math.log(delta) / epsilon
    chance = stable_selection_pass_probability.__wrapped__(gamma, epsilon, delta) if lead else 0.0
    x = np.arange(heights.size, dtype=float)
    first = 1 if lead else 0
    series = [Series("others", "other answers" if lead else "answers", x[first:],
                     heights[first:], kind="bars", width=0.7, colour=PALETTE["blue"])]
    if lead:
        series.insert(0, Series("leader", "most common answer", x[:1], heights[:1],
                                kind="bars", width=0.7, colour=PALETTE["vermillion"]))
    blocks = f"{len(answers)} blocks" + (f" (n = {n_records:,})" if n_records else "")
    verdict = (f"released with probability {_chance(chance)}" if lead
               else "a tie, never released")
    return FigureData(
        f"{blocks}: lead {lead}, distance to instability {gamma}\n"
        f"{verdict} (threshold {threshold:.3g}, ε = {epsilon:g}, δ = {delta:g})",
        "answer of a block", "number of blocks", series=tuple(series),
        texts=tuple(Text(f"count-{i}", xi, h, f"{h:g}") for i, (xi, h) in
                    enumerate(zip(x, heights))),
        x_domain=(-0.6, heights.size - 0.4), y_domain=(0.0, 1.15 * float(heights.max())),
        x_ticks=tuple(zip(x, names)), y_integer=True,
        extra={"lead": lead, "distance": gamma, "threshold": threshold,
               "release_probability": chance, "counts": dict(counts)})


plot_block_votes = drawn(block_votes_data)


@validate(votes_by_size=VOTES_BY_SIZE, size=SIZE, epsilon=EPSILON, delta=DELTA_POSITIVE)
def stable_selection_data(votes_by_size, size: int, epsilon: float,
                          delta: float) -> FigureData:
    """The blocks' vote at one data size, above the chance of a release as the data grow.

    ``votes_by_size`` is ``{n: [answers, answers, ...]}``: for each number of records n,
    the block answers of one or more random splits (all with the same number of blocks).
    Two panels: :func:`block_votes_data` of the first split at ``size``, and the line
    ``release`` (the mean over the splits of each n) with the point ``chosen``; its
    ``extra["release_probability"]`` holds the line's values.
    """
    if size not in votes_by_size:
        raise refuse("size", size, f"one of the sizes of votes_by_size {list(votes_by_size)}")
    blocks = {len(answers) for splits in votes_by_size.values() for answers in splits}
    if len(blocks) > 1:
        raise refuse("votes_by_size", blocks, "splits into one number of blocks")
    sizes = np.array(list(votes_by_size), dtype=float)
    chance = np.array([np.mean([_release_probability(a, epsilon, delta) for a in splits])
                       for splits in votes_by_size.values()])
    at = list(votes_by_size).index(size)
    splits = len(votes_by_size[size])
    curve = FigureData(
        f"Chance of a release as the data grow ({blocks.pop()} blocks; mean over "
        f"{splits} random split{'s' if splits > 1 else ''})",
        "records used, n", "probability of a release",
        series=(Series("release", "most common answer released", sizes, chance, width=2.2,
                       colour=PALETTE["blue"]),
                Series("chosen", f"n = {size:,}", sizes[[at]], chance[[at]], kind="points",
                       width=3.0, colour=PALETTE["vermillion"])),
        log_x=True, y_domain=(-0.02, 1.02), extra={"release_probability": chance})
    votes = block_votes_data.__wrapped__(votes_by_size[size][0], epsilon, delta, size)
    return FigureData("", "", "", panels=(votes, curve))


plot_stable_selection = drawn(stable_selection_data)


# ------------------------------------------------------------------------------ helpers
def _release_probability(answers: list, epsilon: float, delta: float) -> float:
    """Pr[release] for one split's answers (0 when the most common answer is tied)."""
    counts = Counter(answers).most_common(2)
    if len(counts) == 2 and counts[0][1] == counts[1][1]:
        return 0.0
    gamma = mode_distance_to_instability.__wrapped__(answers)
    return stable_selection_pass_probability.__wrapped__(gamma, epsilon, delta)


def _answer_text(answer: Any) -> str:
    """A block's answer in words: a tuple of names joined by ' + '."""
    if isinstance(answer, tuple):
        return " + ".join(str(a) for a in answer)
    return str(answer)


def _chance(p: float) -> str:
    """A probability for a title: 3 significant digits, or how far it is from 0 or 1."""
    if 0 < p < 1e-3:
        return f"{p:.1e}"
    if 1 - 1e-3 < p < 1:
        return f"1 − {1 - p:.1e}"
    return f"{p:.3g}"


def _votes_by_size(name: str, value: Any) -> dict:
    if not isinstance(value, dict) or not 1 <= len(value) <= MAX_SIZES:
        raise VOTES_BY_SIZE.refuse(name, value)
    out = {}
    for n in sorted(value, key=lambda k: k if isinstance(k, int) else -1):
        splits = value[n]
        if (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 10**9
                or not isinstance(splits, (list, tuple)) or not 1 <= len(splits) <= MAX_SPLITS):
            raise VOTES_BY_SIZE.refuse(name, value)
        out[int(n)] = [ANSWERS(f"{name}[{n}]", answers) for answers in splits]
    return out
