"""Private learning: ERM (output / objective perturbation), a small NumPy
network with per-example gradients, DP-SGD and PATE."""
from .nn import MLP  # noqa: F401
from .dpsgd import DPSGDClassifier  # noqa: F401
from .erm import PrivateLogisticRegression, accuracy_vs_epsilon, empirical_sensitivity  # noqa: F401
