"""What the neural fair-representation learners share: their teaching domains and their plumbing.

:class:`~dpteach.fairness.laftr.LAFTR` (adversarial, [MCPZ18]_) and
:class:`~dpteach.fairness.mmd.MMDRepresentation` (kernel two-sample penalty, [LSLWZ16]_) are
the same machine with a different fairness term: an encoder ``f: X → Z`` and a classifier
``g: Z → logit P(Y = 1)`` (small :class:`~dpteach.learning.network.Network` MLPs), optionally
a decoder ``k: (Z, A) → X̃``, trained together by Adam on minibatches. This module holds what
they have in common — the domains of their data and hyper-parameters, and the scikit-learn
style base class :class:`RepresentationClassifier` — so that each of them reads as its own
objective.

How to judge a learned representation (a fresh adversary, fair transfer) is in
:mod:`dpteach.fairness.representation_eval`.

References
----------
.. [MCPZ18] D. Madras, E. Creager, T. Pitassi and R. Zemel. Learning adversarially fair
   and transferable representations. ICML 2018, PMLR vol. 80.
.. [LSLWZ16] C. Louizos, K. Swersky, Y. Li, M. Welling and R. Zemel. The variational fair
   autoencoder. ICLR 2016.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import Domain, array, choice, integer, real, refuse, validate
from ..learning.network import Network
from ..learning.optim import binary_cross_entropy_with_logits, squared_error
from ._rows import check_same_length, sigmoid
from .metrics import LABELS

__all__ = [
    "MAX_ROWS", "MAX_CELLS", "MAX_ABS_FEATURE", "MAX_LOSS_WEIGHT", "MAX_HIDDEN_WIDTH",
    "MAX_HIDDEN_LAYERS", "MAX_EPOCHS", "MAX_BATCH_SIZE", "MAX_LEARNING_RATE",
    "FEATURES", "LOSS_WEIGHT", "HIDDEN", "WIDTH", "ACTIVATION", "EPOCHS", "BATCH_SIZE",
    "LEARNING_RATE", "RepresentationClassifier",
]

#: Largest number of rows a fit or a transform accepts.
MAX_ROWS = 1_000_000
#: Largest ``n_samples · n_features`` (a float64 array of this size is 160 MB).
MAX_CELLS = 20_000_000
#: Largest |feature value|: the networks' activations must stay far from overflow. Rescale
#: features (e.g. to [0, 1], as :func:`dpteach.datasets.adult_arrays` does) first.
MAX_ABS_FEATURE = 1e6
#: Largest weight α, β, γ or λ of a loss term.
MAX_LOSS_WEIGHT = 1e6
#: Largest width of a hidden layer (and of the latent code).
MAX_HIDDEN_WIDTH = 1024
#: Largest number of hidden layers of one network.
MAX_HIDDEN_LAYERS = 8
#: Largest number of epochs of a training run (the LAFTR authors train 1,000).
MAX_EPOCHS = 1_000
#: Largest minibatch.
MAX_BATCH_SIZE = 100_000
#: Largest Adam step size.
MAX_LEARNING_RATE = 1.0

#: the rows of a representation learner: finite features with |x| ≤ 1e6
FEATURES = array(ndim=2, low=-MAX_ABS_FEATURE, high=MAX_ABS_FEATURE, max_size=MAX_CELLS,
                 max_rows=MAX_ROWS, example=[[0.0, 1.0], [1.0, 0.0], [0.2, 0.3], [0.9, 0.7]],
                 text="a 2-D array of features with |x| ≤ 1e6 (rescale them, e.g. to [0, 1]), "
                      "at most 1,000,000 rows and 20,000,000 entries")
#: the weight of one loss term (α, β, γ, λ)
LOSS_WEIGHT = real(0.0, MAX_LOSS_WEIGHT)
#: the width of one layer (or of the latent code Z)
WIDTH = integer(1, MAX_HIDDEN_WIDTH, example=8)
#: hidden-layer widths: a tuple (possibly empty; an int is one layer)
HIDDEN: Domain = Domain(f"a tuple of at most {MAX_HIDDEN_LAYERS} layer widths, each an integer in "
                f"[1, {MAX_HIDDEN_WIDTH}]", lambda name, value: _widths(name, value),
                example=(8,), edges=[(), (1,), 4],
                bad=[(0,), "8", None, (8.0,), (True,), (8,) * (MAX_HIDDEN_LAYERS + 1), 2.5])
ACTIVATION = choice("leaky_relu", "relu", "tanh")
EPOCHS = integer(1, MAX_EPOCHS, example=2, work=True)
BATCH_SIZE = integer(1, MAX_BATCH_SIZE, example=128)
#: Adam's step size
LEARNING_RATE = real(1e-6, MAX_LEARNING_RATE, example=1e-3)


# ------------------------------------------------------------------- the base estimator
class RepresentationClassifier(ClassifierMixin, TransformerMixin, BaseEstimator):
    """Encoder and classifier, scikit-learn style: what LAFTR and the MMD representation share.

    Not used on its own: a subclass's ``fit`` trains the networks and sets the attributes
    below (through :meth:`_start_fit`, :meth:`_task_step` and :meth:`_finish_fit`). Then

    * :meth:`transform` is the encoder f: X ↦ Z (it does not read A: the representation is
      computed from the features alone);
    * :meth:`predict_proba`, :meth:`predict`, :meth:`score` put the classifier g on top:
      P(Y = 1 | x) = sigmoid(g(f(x))), the label 1 where that exceeds 1/2.

    Attributes (after fit)
    ----------------------
    encoder_, classifier_ : dpteach.learning.network.Network
    decoder_ : Network or None
        k: (Z, A) ↦ X̃, trained only when β > 0.
    groups_ : ndarray of shape (2,)
        The two values of ``sensitive_features`` (sorted); ``groups_[1]`` is coded A = 1.
    classes_ : ndarray ``[0, 1]``
    n_features_in_ : int
    history_ : pandas.DataFrame
        One row per epoch: the losses on the whole training set after that epoch.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.non_deterministic = getattr(self, "rng", None) is None
        return tags

    @validate(X=FEATURES)
    def transform(self, X) -> np.ndarray:
        """The representation Z = f(X), shape (n_samples, latent_dim)."""
        return self._encode(self._check_columns(X))

    @validate(X=FEATURES)
    def decision_function(self, X) -> np.ndarray:
        """The classifier's logit g(f(x)), shape (n_samples,)."""
        return self._logits(self._encode(self._check_columns(X)))

    @validate(X=FEATURES)
    def predict_proba(self, X) -> np.ndarray:
        """``[1 − p, p]`` with p = sigmoid(g(f(x))), shape (n_samples, 2)."""
        p = sigmoid(self.decision_function.__wrapped__(self, X))
        return np.column_stack([1.0 - p, p])

    @validate(X=FEATURES)
    def predict(self, X) -> np.ndarray:
        """Label 1 where the logit is > 0 (P(Y = 1) > 1/2), else 0."""
        return (self.decision_function.__wrapped__(self, X) > 0).astype(np.int64)

    @validate(X=FEATURES, y=LABELS)
    def score(self, X, y) -> float:
        """Accuracy of :meth:`predict` on ``(X, y)`` (a Python float)."""
        check_same_length(X=X, y=y)
        return float(np.mean(self.predict.__wrapped__(self, X) == y))

    # -------------------------------------------------------------- for subclasses
    def _start_fit(self, X, y, groups, *, latent_dim, hidden, activation, beta, gen):
        """Build encoder, classifier and (β > 0) decoder from ``gen``, for checked data.

        Returns (X, y as float (n, 1) column, a codes as float (n, 1) column)."""
        check_same_length(X=X, y=y, sensitive_features=groups.codes)
        d = X.shape[1]
        seeds = gen.integers(0, 2**63 - 1, size=3)
        self.encoder_ = Network((d, *hidden, latent_dim), activation, rng=int(seeds[0]))
        self.classifier_ = Network((latent_dim, *hidden, 1), activation, rng=int(seeds[1]))
        self.decoder_ = (Network((latent_dim + 1, *hidden, d), activation, rng=int(seeds[2]))
                         if beta > 0 else None)
        self.groups_ = groups.labels
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = d
        return X, y[:, None], groups.codes.astype(np.float64)[:, None]

    def _model_params(self):
        """The parameters the task step updates: encoder, classifier (and decoder)."""
        nets = [self.encoder_, self.classifier_] + ([self.decoder_] if self.decoder_ else [])
        return [p for net in nets for p in net.params]

    def _task_step(self, Xb, yb, ab, alpha, beta):
        """Forward and backward of α·L_class + β·L_dec on one batch.

        Returns (Z, encoder cache, ∂/∂Z of the two terms, [classifier grads + decoder
        grads], L_class, L_dec); the caller adds its fairness term's ∂/∂Z, back-propagates
        through the encoder and steps."""
        Z, enc_cache = self.encoder_._forward(Xb)
        logits, cls_cache = self.classifier_._forward(Z)
        L_class, g = binary_cross_entropy_with_logits(logits, yb)
        grads, gZ = self.classifier_._backward(cls_cache, alpha * g)
        L_dec = 0.0
        if self.decoder_ is not None:
            ZA = np.hstack([Z, ab])
            recon, dec_cache = self.decoder_._forward(ZA)
            L_dec, gr = squared_error(recon, Xb)
            dec_grads, gZA = self.decoder_._backward(dec_cache, beta * gr)
            gZ = gZ + gZA[:, :-1]
            grads = grads + dec_grads
        return Z, enc_cache, gZ, grads, L_class, L_dec

    def _task_losses(self, X, y, a):
        """(Z, L_class, L_dec) on all rows (L_dec = 0 without a decoder)."""
        Z = self._encode(X)
        L_class = binary_cross_entropy_with_logits(self._logits(Z), y)[0]
        L_dec = 0.0
        if self.decoder_ is not None:
            L_dec = squared_error(self._chunked(self.decoder_, np.hstack([Z, a])), X)[0]
        return Z, L_class, L_dec

    @staticmethod
    def _batches(n, batch_size, gen):
        """The row indices of one epoch's minibatches (a fresh permutation)."""
        order = gen.permutation(n)
        return [order[i:i + batch_size] for i in range(0, n, batch_size)]

    @staticmethod
    def _chunked(net, X, rows=20_000):
        """``net`` applied to X in chunks of rows (bounded memory), unchecked."""
        return np.vstack([net._forward(X[i:i + rows])[0]
                          for i in range(0, X.shape[0], rows)])

    def _encode(self, X):
        return self._chunked(self.encoder_, X)

    def _logits(self, Z):
        return self._chunked(self.classifier_, Z)[:, 0]

    def _finish_fit(self, rows):
        import pandas as pd

        self.history_ = pd.DataFrame(rows)
        for name in ("encoder_", "classifier_", "decoder_", "adversary_"):
            net = getattr(self, name, None)
            if net is not None and not all(np.all(np.isfinite(p)) for p in net.params):
                rate = "adversary_learning_rate" if name == "adversary_" else "learning_rate"
                raise refuse(rate, getattr(self, rate), "lower: the fit diverged")

    def _check_columns(self, X):
        """``X`` for a fitted model: as many columns as in fit."""
        check_is_fitted(self, "encoder_")
        if X.shape[1] != self.n_features_in_:
            raise refuse("X", X, f"of {self.n_features_in_} columns (as in fit), not {X.shape[1]}")
        return X


# ------------------------------------------------------------------------------ helpers
def _widths(name: str, value: Any) -> tuple:
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        value = (value,)
    if not isinstance(value, (tuple, list)) or len(value) > MAX_HIDDEN_LAYERS:
        raise HIDDEN.refuse(name, value)
    return tuple(WIDTH.convert(name, w) for w in value)
