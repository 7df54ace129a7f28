"""Judging a learned representation: what a fresh adversary still sees, and fair transfer.

A fair representation Z = f(X) (:class:`~dpteach.fairness.laftr.LAFTR`,
:class:`~dpteach.fairness.mmd.MMDRepresentation`, or any fitted model with a ``transform``)
makes two promises [MCPZ18]_, and each has its check here:

* **Z hides the sensitive attribute A.** The adversary inside the LAFTR game is trained
  alongside the encoder and may lag behind it; :func:`adversary_accuracy` trains a *fresh*
  one on the frozen Z (and, for comparison, on X) and reports its balanced accuracy on
  held-out rows (0.5: Z tells nothing about A).
* **Z transfers, fairly.** :func:`fair_transfer` freezes the encoder and trains an ordinary
  logistic regression on Z for a task of its own, as a downstream party who never sees A
  would, and reports its accuracy and the gaps of :mod:`dpteach.fairness.metrics`.

Both are re-exported by :mod:`dpteach.fairness.laftr`.

References
----------
.. [MCPZ18] D. Madras, E. Creager, T. Pitassi and R. Zemel. Learning adversarially fair
   and transferable representations. ICML 2018, PMLR vol. 80 (fair transfer; auditing a
   representation with an adversary).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .._validation import RNG, Domain, ParameterError, choice, real, validate
from ..learning.network import Network
from ..learning.optim import Adam
from ._rows import check_same_length, sigmoid
from .metrics import (
    BOTH_LABELS,
    COMPARED_GROUPS,
    LABELS,
    TWO_GROUPS,
    demographic_parity_difference,
    equal_opportunity_difference,
    equalized_odds_sum,
    laftr_equal_opportunity_difference,
)
from .representation import BATCH_SIZE, EPOCHS, FEATURES, HIDDEN, LEARNING_RATE

__all__ = ["AdversaryScore", "adversary_accuracy", "FairTransfer", "fair_transfer"]

#: a fitted model whose ``transform`` is the encoder (e.g. LAFTR or MMDRepresentation)
ENCODER: Domain = Domain("a fitted model with a transform method (e.g. a fitted LAFTR)",
                 lambda name, value: _encoder(name, value), bad=["LAFTR", None, 3])


# ------------------------------------------------------------- a fresh adversary's view
@dataclass(frozen=True)
class AdversaryScore:
    """How well a fresh adversary predicts the sensitive attribute (:func:`adversary_accuracy`).

    Attributes
    ----------
    balanced_accuracy : float
        Mean over the two groups of the share of held-out members it assigns to their own
        group: 0.5 is chance whatever the group sizes, 1 is perfect.
    accuracy : float
        Share of held-out rows it gets right (chance: ``majority_rate``).
    majority_rate : float
        Share of the larger group among the held-out rows: the accuracy of always guessing
        it.
    n_train, n_test : int
        Rows it was trained and scored on.
    """

    balanced_accuracy: float
    accuracy: float
    majority_rate: float
    n_train: int
    n_test: int


@validate(Z=FEATURES, sensitive_features=TWO_GROUPS, model=choice("mlp", "logistic"),
          test_size=real(0.0, 1.0, low_open=True, high_open=True, example=0.5), hidden=HIDDEN,
          epochs=EPOCHS, batch_size=BATCH_SIZE, learning_rate=LEARNING_RATE, rng=RNG)
def adversary_accuracy(Z, sensitive_features, *, model="mlp", test_size=0.5, hidden=(32,),
                       epochs=30, batch_size=128, learning_rate=3e-3,
                       rng=None) -> AdversaryScore:
    """Train a FRESH adversary to predict the sensitive attribute from ``Z``, and score it.

    The adversary inside the LAFTR game (:class:`~dpteach.fairness.laftr.LAFTR`) is trained
    alongside the encoder and may lag behind it; a new one, trained after the fact on a
    frozen representation, is the honest test of what Z still reveals about A [MCPZ18]_.
    Run it on the input features ("before") and on the learned Z ("after"). The rows are
    split into a training and a held-out part, stratified by group; the columns are
    standardised with the training part's mean and standard deviation; both groups weigh
    equally in training (each row weighted by 1/(2 · its group's share)), so the adversary
    aims at balanced accuracy.

    Parameters
    ----------
    model : {"mlp", "logistic"}, default "mlp"
        A :class:`~dpteach.learning.network.Network` with ``hidden`` layers trained by Adam
        on the group-weighted cross-entropy, or scikit-learn's ``LogisticRegression(
        class_weight="balanced")`` (linear: it misses what only a non-linear adversary sees).
    test_size : float, default 0.5
        Share of each group held out (at least one row of each group on each side).
    hidden : tuple of int, default (32,)
        Hidden widths of the MLP adversary (wider than the networks LAFTR trains with by
        default, so that it is at least as strong as the adversary of the game).
    epochs, batch_size, learning_rate : defaults 30, 128, 3e-3
        The MLP's training by Adam.
    rng : None, int or numpy.random.Generator
        Seeds the split, the initialisation and the minibatch order.
    """
    check_same_length(Z=Z, sensitive_features=sensitive_features.codes)
    codes = sensitive_features.codes
    train, test = _stratified_split(codes, test_size, rng)
    Ztr, Zte = _standardise(Z[train], Z[test])
    with np.errstate(over="ignore", under="ignore"), \
            threadpool_limits(limits=1, user_api="blas"):
        if model == "logistic":
            clf = LogisticRegression(class_weight="balanced", max_iter=1000)
            pred = clf.fit(Ztr, codes[train]).predict(Zte)
        else:
            net = _train_adversary(Ztr, codes[train], rng, hidden, epochs, batch_size,
                                   learning_rate)
            logits = np.concatenate([net._forward(Zte[i:i + 20_000])[0]
                                     for i in range(0, Zte.shape[0], 20_000)])[:, 0]
            pred = (logits > 0).astype(np.intp)
    truth = codes[test]
    recalls = [float(np.mean(pred[truth == g] == g)) for g in (0, 1)]
    share = float(np.mean(truth))
    return AdversaryScore(balanced_accuracy=float(np.mean(recalls)),
                          accuracy=float(np.mean(pred == truth)),
                          majority_rate=max(share, 1.0 - share),
                          n_train=int(train.sum()), n_test=int(test.sum()))


# -------------------------------------------------------------------- fair transfer
@dataclass(frozen=True)
class FairTransfer:
    """A plain classifier trained on a frozen representation (:func:`fair_transfer`).

    The gaps are those of :mod:`dpteach.fairness.metrics` on the held-out rows:
    ``dp_gap`` = :func:`~dpteach.fairness.metrics.demographic_parity_difference`,
    ``eo_gap`` = :func:`~dpteach.fairness.metrics.equalized_odds_sum` (ΔTPR + ΔFPR, the
    [MCPZ18]_ convention), ``eopp_gap`` =
    :func:`~dpteach.fairness.metrics.laftr_equal_opportunity_difference` (Y = 0, [MCPZ18]_),
    ``eopp_gap_y1`` = :func:`~dpteach.fairness.metrics.equal_opportunity_difference`
    (Y = 1, Hardt et al.). ``classifier`` is the fitted scikit-learn model and
    ``predictions`` its held-out predictions.
    """

    accuracy: float
    dp_gap: float
    eo_gap: float
    eopp_gap: float
    eopp_gap_y1: float
    classifier: object
    predictions: np.ndarray


@validate(encoder_model=ENCODER, X_train=FEATURES, y_train=BOTH_LABELS, X_test=FEATURES,
          y_test=LABELS, sensitive_features_test=COMPARED_GROUPS, C=real(1e-6, 1e6))
def fair_transfer(encoder_model, X_train, y_train, X_test, y_test, *, sensitive_features_test,
                  C=1.0) -> FairTransfer:
    """Freeze an encoder, train logistic regression on its Z for a (new) task, report gaps.

    The transfer protocol of [MCPZ18]_: the representation is learned once (e.g. by
    :class:`~dpteach.fairness.laftr.LAFTR` for one label), then a downstream party who never
    sees A trains an ordinary classifier on Z for a task of its own; if Z hides A, that
    classifier's gaps stay small although nobody asked it to be fair. The encoder is only
    *used* (``encoder_model.transform``), never changed.

    ``X_train, y_train`` and ``X_test, y_test`` are the downstream task's training and
    held-out rows, in the encoder's feature space; ``sensitive_features_test`` gives the
    held-out rows' groups (only for the gaps; the classifier never sees them), each with both
    labels present. ``C`` is the inverse regularisation strength of
    ``sklearn.linear_model.LogisticRegression``.
    """
    check_same_length(X_train=X_train, y_train=y_train)
    groups_test = sensitive_features_test.codes
    check_same_length(X_test=X_test, y_test=y_test, sensitive_features_test=groups_test)
    try:
        Z_train, Z_test = (FEATURES.convert(f"encoder_model.transform({name})",
                                            encoder_model.transform(X))
                           for name, X in (("X_train", X_train), ("X_test", X_test)))
    except ParameterError as exc:                # e.g. another number of columns than in fit
        raise ParameterError(f"X_train and X_test must fit encoder_model; got {exc}") from None
    with threadpool_limits(limits=1, user_api="blas"):
        clf = LogisticRegression(C=C, max_iter=1000).fit(Z_train, y_train.astype(np.int64))
    pred = clf.predict(Z_test)
    kw = {"sensitive_features": sensitive_features_test, "method": "between_groups"}
    try:                                          # the metrics' rules, on this argument's name
        gaps = [f.__wrapped__(y_test, pred, **kw) for f in (
            demographic_parity_difference, equalized_odds_sum,
            laftr_equal_opportunity_difference, equal_opportunity_difference)]
    except ParameterError as exc:
        message = str(exc).replace("sensitive_features", "sensitive_features_test")
        raise ParameterError(message) from None
    return FairTransfer(accuracy=float(np.mean(pred == y_test)), dp_gap=float(gaps[0]),
                        eo_gap=float(gaps[1]), eopp_gap=float(gaps[2]),
                        eopp_gap_y1=float(gaps[3]), classifier=clf, predictions=pred)


# ------------------------------------------------------------------------------ helpers
def _encoder(name: str, value: Any) -> Any:
    """A model with a ``transform`` method, fitted (scikit-learn's test, for estimators)."""
    fitted = callable(getattr(value, "transform", None))
    if fitted and hasattr(value, "fit"):
        try:
            check_is_fitted(value)
        except NotFittedError:
            fitted = False
    if not fitted:
        raise ENCODER.refuse(name, value)
    return value


def _stratified_split(codes, test_size, gen):
    test = np.zeros(codes.shape[0], dtype=bool)
    for g in (0, 1):
        rows = np.flatnonzero(codes == g)
        k = min(max(int(round(test_size * rows.size)), 1), rows.size - 1)
        test[gen.choice(rows, size=k, replace=False)] = True
    return ~test, test


def _standardise(train, *others):
    mu = train.mean(axis=0)
    sd = train.std(axis=0)
    sd[~(sd > 1e-12 * (1.0 + np.abs(mu)))] = 1.0
    return [(a - mu) / sd for a in (train, *others)]


def _train_adversary(Z, codes, gen, hidden, epochs, batch_size, learning_rate):
    """A fresh MLP adversary trained by Adam on the group-weighted cross-entropy."""
    net = Network((Z.shape[1], *hidden, 1), "leaky_relu",
                  rng=int(gen.integers(0, 2**63 - 1)))
    opt = Adam(net.params, learning_rate=learning_rate)
    a = codes.astype(np.float64)[:, None]
    n1 = codes.sum()
    w = np.where(codes == 1, 0.5 / n1, 0.5 / (codes.size - n1))[:, None] * codes.size
    for _ in range(epochs):
        order = gen.permutation(Z.shape[0])
        for i in range(0, Z.shape[0], batch_size):
            idx = order[i:i + batch_size]
            logit, cache = net._forward(Z[idx])
            g = w[idx] * (sigmoid(logit) - a[idx]) / idx.size
            grads, _ = net._backward(cache, g, input_grad=False)
            opt._step(grads)
    return net
