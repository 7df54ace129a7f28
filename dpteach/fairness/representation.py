"""What the neural fair-representation learners share: their input checks and their plumbing.

:class:`~dpteach.fairness.laftr.LAFTR` (adversarial, [MCPZ18]_) and
:class:`~dpteach.fairness.mmd.MMDRepresentation` (kernel two-sample penalty, [LSLWZ16]_) are
the same machine with a different fairness term: an encoder ``f: X → Z`` and a classifier
``g: Z → logit P(Y = 1)`` (small :class:`~dpteach.learning.network.Network` MLPs), optionally
a decoder ``k: (Z, A) → X̃``, trained together by Adam on minibatches. This module holds what
they have in common, so that each of them reads as its own objective:

* the checks of their data — features (:func:`check_features`), 0/1 labels
  (:func:`check_binary_labels`), a sensitive attribute with exactly two groups
  (:func:`encode_groups`) — and of their loss weights (:func:`check_loss_weight`) and layer
  widths (:func:`check_hidden`), each naming the argument as everywhere in dpteach;
* :class:`RepresentationClassifier`, the scikit-learn style base class: ``transform`` (the
  encoder), ``predict_proba`` / ``predict`` / ``score`` (encoder then classifier) and the
  seeded construction of the networks and of the minibatch order.

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

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import ParameterError, check_array, check_in_range, check_int, describe
from ..learning.network import Network
from ..learning.optim import binary_cross_entropy_with_logits, squared_error

__all__ = [
    "MAX_ROWS",
    "MAX_CELLS",
    "MAX_ABS_FEATURE",
    "MAX_LOSS_WEIGHT",
    "MAX_HIDDEN_WIDTH",
    "MAX_HIDDEN_LAYERS",
    "MAX_EPOCHS",
    "MAX_BATCH_SIZE",
    "MAX_LEARNING_RATE",
    "check_features",
    "check_binary_labels",
    "encode_groups",
    "check_loss_weight",
    "check_hidden",
    "RepresentationClassifier",
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
#: Largest number of epochs of a training run.
MAX_EPOCHS = 10_000
#: Largest minibatch.
MAX_BATCH_SIZE = 100_000
#: Largest Adam step size.
MAX_LEARNING_RATE = 1.0


def _sigmoid(z):
    """The logistic function 1/(1 + e^{−z}), as ½(1 + tanh(z/2)): no overflow for any z."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


# ------------------------------------------------------------------------- input checks
def check_features(name, X, *, n_features=None) -> np.ndarray:
    """A 2-d float64 array of finite features with |x| ≤ :data:`MAX_ABS_FEATURE`.

    At least one row and one column, at most :data:`MAX_ROWS` rows and :data:`MAX_CELLS`
    cells; with ``n_features`` given, exactly that many columns (as seen in ``fit``).
    """
    X = check_array(name, X, ndim=2, min_size=0)
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ParameterError(f"{name} must have at least one row and one column; got {name} "
                             f"with shape {X.shape}")
    if n_features is not None and X.shape[1] != n_features:
        raise ParameterError(f"{name} must have {n_features} columns (as in fit); got {name} "
                             f"with shape {X.shape}")
    if X.shape[0] > MAX_ROWS or X.size > MAX_CELLS:
        raise ParameterError(f"{name} may have at most {MAX_ROWS:,} rows and {MAX_CELLS:,} "
                             f"cells; got {name} with shape {X.shape}")
    big = float(np.max(np.abs(X)))
    if big > MAX_ABS_FEATURE:
        raise ParameterError(f"{name} must hold values with |x| <= {MAX_ABS_FEATURE:g} "
                             f"(rescale the features); got {name} with max |x| = {big:g}")
    return X


def check_binary_labels(name, y, n) -> np.ndarray:
    """0/1 labels (ints, bools or the floats 0.0/1.0), one per row: a float64 array."""
    raw = None if y is None or isinstance(y, (str, bytes)) else np.asarray(y)
    if raw is None or raw.dtype.kind not in "biuf" or raw.ndim != 1:
        raise ParameterError(f"{name} must be a 1-d array of binary labels 0/1 (ints, bools "
                             f"or 0.0/1.0); got {name}={describe(y)}")
    if raw.shape[0] != n:
        raise ParameterError(f"{name} must have one label per row of X: got len({name}) = "
                             f"{raw.shape[0]} and {n} rows")
    if raw.dtype.kind == "f" and np.isnan(raw).any():
        raise ParameterError(f"{name} must not contain NaN; got {name}={describe(y)}")
    if raw.size and not np.isin(raw, (0, 1)).all():
        bad = np.setdiff1d(np.unique(raw), [0, 1])[:3]
        raise ParameterError(f"{name} must hold binary labels 0/1; got values {bad.tolist()} "
                             f"in {name}")
    return raw.astype(np.float64)


def encode_groups(name, values, n, *, groups=None, rows_of="X"):
    """Encode a sensitive attribute with two groups as 0/1 codes.

    Parameters
    ----------
    name : str
        The argument's name, for messages.
    values : array-like of shape (n,)
        Group labels: ints, bools, finite floats or strings, no missing values.
    n : int
        The number of rows the labels must match.
    groups : ndarray of shape (2,), optional
        The two labels seen in ``fit``; the values must be among them (one group alone is
        then fine). Without it the values must hold exactly two groups, each with at least
        two members.
    rows_of : str
        The name of the array whose rows the labels belong to, for messages.

    Returns
    -------
    codes : ndarray of int of shape (n,)
        0 for ``groups[0]``, 1 for ``groups[1]``.
    groups : ndarray of shape (2,)
        The two labels, sorted.
    """
    if values is None or isinstance(values, (str, bytes, dict, set)):
        raise ParameterError(f"{name} must be a 1-d array with one group label per row; "
                             f"got {name}={describe(values)}")
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name} must be a 1-d array of group labels; got "
                             f"{name}={describe(values)}") from exc
    if raw.ndim != 1 or raw.dtype.kind not in "biufUSO":
        raise ParameterError(f"{name} must be a 1-d array of group labels (ints or strings); "
                             f"got {name} with shape {raw.shape} and dtype {raw.dtype}")
    if raw.shape[0] != n:
        raise ParameterError(f"{name} must have one group label per row of {rows_of}: got "
                             f"len({name}) = {raw.shape[0]} and {rows_of} with {n} rows")
    if raw.dtype.kind == "f" and not np.isfinite(raw).all():
        raise ParameterError(f"{name} must not contain NaN or inf; got {name}={describe(values)}")
    if raw.dtype.kind == "O":
        for item in raw:
            if item is None or isinstance(item, (bool, np.bool_)) \
                    or (isinstance(item, numbers.Real) and not math.isfinite(item)) \
                    or not isinstance(item, (numbers.Real, str)):
                raise ParameterError(f"{name} must hold group labels (ints or strings) with "
                                     f"no missing values; got {describe(item)} in {name}")
        if len({isinstance(item, str) for item in raw}) > 1:
            raise ParameterError(f"{name} must not mix numbers and strings; got "
                                 f"{name}={describe(values)}")
    uniq = np.unique(raw)
    if groups is None:
        if uniq.shape[0] != 2:
            raise ParameterError(f"{name} must hold exactly two groups (the fairness term "
                                 f"compares two groups); got {uniq.shape[0]} group(s): "
                                 f"{describe(uniq.tolist())}")
        groups = uniq
        for g in groups:
            count = int(np.count_nonzero(raw == g))
            if count < 2:
                raise ParameterError(f"{name}: every group needs at least two members; got "
                                     f"group {describe(g.item() if hasattr(g, 'item') else g)} "
                                     f"with {count}")
    else:
        unknown = [u for u in uniq if not (groups == u).any()]
        if unknown:
            raise ParameterError(f"{name} must hold the groups seen in fit "
                                 f"{describe(groups.tolist())}; got unknown group(s) "
                                 f"{describe(list(unknown)[:3])}")
    return (raw == groups[1]).astype(np.intp), groups


def check_loss_weight(name, value) -> float:
    """A loss weight: a finite number in [0, :data:`MAX_LOSS_WEIGHT`]."""
    return check_in_range(name, value, 0.0, MAX_LOSS_WEIGHT)


def check_hidden(name, hidden) -> tuple:
    """Hidden-layer widths: a tuple (possibly empty) of at most :data:`MAX_HIDDEN_LAYERS`
    integers in [1, :data:`MAX_HIDDEN_WIDTH`]."""
    if isinstance(hidden, (numbers.Integral, np.integer)) and not isinstance(hidden, bool):
        hidden = (hidden,)
    if not isinstance(hidden, (tuple, list)):
        raise TypeError(f"{name} must be a tuple of layer widths (ints), e.g. (8,); got "
                        f"{name}={describe(hidden)} of type {type(hidden).__name__}")
    if len(hidden) > MAX_HIDDEN_LAYERS:
        raise ParameterError(f"{name} may have at most {MAX_HIDDEN_LAYERS} layers; got "
                             f"{name} with {len(hidden)}")
    return tuple(check_int(name, w, minimum=1, maximum=MAX_HIDDEN_WIDTH) for w in hidden)


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

    # -------------------------------------------------------------- for subclasses
    def _start_fit(self, X, y, sensitive_features, *, latent_dim, hidden, activation, beta,
                   gen):
        """Check the data and build encoder, classifier and (β > 0) decoder from ``gen``.

        Returns (X, y as float (n, 1) column, a codes as float (n, 1) column)."""
        X = check_features("X", X)
        yf = check_binary_labels("y", y, X.shape[0])
        if np.unique(yf).shape[0] != 2:
            raise ParameterError(f"y must contain both labels 0 and 1; got only "
                                 f"{int(yf[0])}s")
        codes, groups = encode_groups("sensitive_features", sensitive_features, X.shape[0])
        d = X.shape[1]
        seeds = gen.integers(0, 2**63 - 1, size=3)
        self.encoder_ = Network((d, *hidden, latent_dim), activation, rng=int(seeds[0]))
        self.classifier_ = Network((latent_dim, *hidden, 1), activation, rng=int(seeds[1]))
        self.decoder_ = (Network((latent_dim + 1, *hidden, d), activation, rng=int(seeds[2]))
                         if beta > 0 else None)
        self.groups_ = groups
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = d
        return X, yf[:, None], codes.astype(np.float64)[:, None]

    def _model_params(self):
        """The parameters the task step updates: encoder, classifier (and decoder)."""
        nets = [self.encoder_, self.classifier_] + ([self.decoder_] if self.decoder_ else [])
        return [p for net in nets for p in net.params]

    def _task_step(self, Xb, yb, ab, alpha, beta):
        """Forward and backward of α·L_class + β·L_dec on one batch.

        Returns (Z, encoder cache, ∂/∂Z of the two terms, [classifier grads + decoder
        grads], L_class, L_dec); the caller adds its fairness term's ∂/∂Z, back-propagates
        through the encoder and steps."""
        Z, enc_cache = self.encoder_.forward(Xb, check_input=False)
        logits, cls_cache = self.classifier_.forward(Z, check_input=False)
        L_class, g = binary_cross_entropy_with_logits(logits, yb)
        grads, gZ = self.classifier_.backward(cls_cache, alpha * g, check_input=False)
        L_dec = 0.0
        if self.decoder_ is not None:
            ZA = np.hstack([Z, ab])
            recon, dec_cache = self.decoder_.forward(ZA, check_input=False)
            L_dec, gr = squared_error(recon, Xb)
            dec_grads, gZA = self.decoder_.backward(dec_cache, beta * gr, check_input=False)
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
        return np.vstack([net.forward(X[i:i + rows], check_input=False)[0]
                          for i in range(0, X.shape[0], rows)])

    def _encode(self, X):
        return self._chunked(self.encoder_, X)

    def _logits(self, Z):
        return self._chunked(self.classifier_, Z)[:, 0]

    def _finish_fit(self, rows):
        import pandas as pd

        self.history_ = pd.DataFrame(rows)
        for name in ("encoder_", "classifier_", "decoder_"):
            net = getattr(self, name)
            if net is not None and not all(np.all(np.isfinite(p)) for p in net.params):
                raise ParameterError("training diverged (a parameter is not finite): lower "
                                     "learning_rate or the loss weights; got "
                                     f"learning_rate={describe(getattr(self, 'learning_rate'))}")

    # ------------------------------------------------------------------- using it
    def _rows(self, X):
        check_is_fitted(self, "encoder_")
        return check_features("X", X, n_features=self.n_features_in_)

    def transform(self, X) -> np.ndarray:
        """The representation Z = f(X), shape (n_samples, latent_dim)."""
        return self._encode(self._rows(X))

    def decision_function(self, X) -> np.ndarray:
        """The classifier's logit g(f(x)), shape (n_samples,)."""
        return self._logits(self._encode(self._rows(X)))

    def predict_proba(self, X) -> np.ndarray:
        """``[1 − p, p]`` with p = sigmoid(g(f(x))), shape (n_samples, 2)."""
        z = self.decision_function(X)
        p = _sigmoid(z)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """Label 1 where the logit is > 0 (P(Y = 1) > 1/2), else 0."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def score(self, X, y) -> float:
        """Accuracy of :meth:`predict` on ``(X, y)`` (a Python float)."""
        pred = self.predict(X)
        yf = check_binary_labels("y", y, pred.shape[0])
        return float(np.mean(pred == yf))
