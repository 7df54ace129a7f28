"""PATE: private aggregation of teacher ensembles.

* :mod:`~dpteach.pate.teachers` — teachers trained on disjoint data, and their votes;
* :mod:`~dpteach.pate.aggregators` — the noisy argmax of the votes: LNMax, GNMax,
  Confident-GNMax;
* :mod:`~dpteach.pate.answers` — the exact law of each aggregator's answer;
* :mod:`~dpteach.pate.analysis` — the privacy of the answers: data-independent and
  data-dependent Rényi DP, and the expected cost of the paper's tables (a forecast);
* :mod:`~dpteach.pate.release` — publishing the data-dependent ε (smooth sensitivity);
* :mod:`~dpteach.pate.student` — the student trained on the noisy answers.
"""

from .aggregators import confident_gnmax, gnmax, lnmax
from .analysis import pate_epsilon, pate_expected_cost
from .release import sanitised_epsilon
from .student import PATEStudent
from .teachers import TeacherEnsemble, train_teachers

__all__ = [
    "TeacherEnsemble", "train_teachers", "PATEStudent", "lnmax", "gnmax", "confident_gnmax",
    "pate_epsilon", "pate_expected_cost", "sanitised_epsilon",
]
