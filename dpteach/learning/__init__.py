"""Private learning: the logistic problem and its exact solver (``logistic``), private
ERM by output / objective perturbation (``erm``) and experiments with it
(``erm_experiments``), a small NumPy network with per-example gradients (``nn``) and
DP-SGD (``dpsgd``)."""
from .nn import MLP  # noqa: F401
from .dpsgd import DPSGDClassifier  # noqa: F401
from .erm import PrivateLogisticRegression  # noqa: F401
from .erm_experiments import accuracy_vs_epsilon, empirical_sensitivity  # noqa: F401
