"""Private learning.

* :mod:`~dpteach.learning.logistic` — the logistic-regression problem and its exact solver;
* :mod:`~dpteach.learning.erm` — private ERM by output and objective perturbation
  (Chaudhuri, Monteleoni & Sarwate); :mod:`~dpteach.learning.erm_bounds` — their excess
  risk; :mod:`~dpteach.learning.erm_experiments` — accuracy against ε, sensitivity;
* :mod:`~dpteach.learning.nn` and :mod:`~dpteach.learning.network` — small NumPy networks
  with per-example gradients;
* :mod:`~dpteach.learning.dpsgd` — DP-SGD.
"""

from .dpsgd import DPSGDClassifier
from .erm import PrivateLogisticRegression
from .nn import MLP

__all__ = ["MLP", "DPSGDClassifier", "PrivateLogisticRegression"]
