"""Private learning: ERM (output / objective perturbation), a small NumPy
network with per-example gradients, DP-SGD and PATE."""
from .nn import MLP  # noqa: F401
from .dpsgd import DPSGDClassifier  # noqa: F401
