"""Private learning.

* :mod:`~dpteach.learning.logistic` — the logistic-regression problem and its exact solver;
* :mod:`~dpteach.learning.erm` — private ERM by output and objective perturbation
  (Chaudhuri, Monteleoni & Sarwate); :mod:`~dpteach.learning.erm_bounds` — their excess
  risk; :mod:`~dpteach.learning.erm_experiments` — accuracy against ε, sensitivity;
* :mod:`~dpteach.learning.network` — one small NumPy network: a backward pass from any loss,
  per-example gradient norms and the clipped sum; :mod:`~dpteach.learning.optim` — its
  losses, Adam and the gradient check;
* :mod:`~dpteach.learning.dpsgd` — DP-SGD.
"""

from .dpsgd import DPSGDClassifier
from .erm import PrivateLogisticRegression
from .network import Network

__all__ = ["Network", "DPSGDClassifier", "PrivateLogisticRegression"]
