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

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from .._validation import (
    ParameterError,
    check_choice,
    check_in_range,
    check_int,
    check_rng,
    describe,
)
from ..learning.network import Network
from ..learning.optim import Adam
from .metrics import (
    demographic_parity_difference,
    equal_opportunity_difference,
    equalized_odds_sum,
    laftr_equal_opportunity_difference,
)
from .representation import (
    MAX_BATCH_SIZE,
    MAX_EPOCHS,
    MAX_LEARNING_RATE,
    check_binary_labels,
    check_features,
    check_hidden,
    encode_groups,
)

__all__ = ["AdversaryScore", "adversary_accuracy", "FairTransfer", "fair_transfer"]


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))          # 1/(1 + e^{−z}) without overflow


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
            logit, cache = net.forward(Z[idx], check_input=False)
            g = w[idx] * (_sigmoid(logit) - a[idx]) / idx.size
            grads, _ = net.backward(cache, g, check_input=False, input_grad=False)
            opt.step(grads, check_input=False)
    return net


def adversary_accuracy(Z, sensitive_features, *, model="mlp", test_size=0.5, hidden=(32,),
                       epochs=30, batch_size=128, learning_rate=3e-3,
                       rng=None) -> AdversaryScore:
    """Train a FRESH adversary to predict the sensitive attribute from ``Z``, and score it.

    The adversary inside the LAFTR game (:class:`~dpteach.fairness.laftr.LAFTR`) is trained
    alongside the encoder and may lag behind it; a new one, trained after the fact on a
    frozen representation, is the honest test of what Z still reveals about A [MCPZ18]_.
    Run it on the input features ("before") and on the learned Z ("after"). The rows are split into a training and a held-out part,
    stratified by group; the columns are standardised with the training part's mean and
    standard deviation; both groups weigh equally in training (each row weighted by
    1/(2 · its group's share)), so the adversary aims at balanced accuracy.

    Parameters
    ----------
    Z : array of shape (n, d)
        Features or representation: finite, |value| ≤ 1e6, at most 1,000,000 rows and
        20,000,000 cells.
    sensitive_features : array of shape (n,)
        Exactly two groups, each with at least two rows.
    model : {"mlp", "logistic"}, default "mlp"
        A :class:`~dpteach.learning.network.Network` with ``hidden`` layers trained by Adam
        on the group-weighted cross-entropy, or scikit-learn's ``LogisticRegression(
        class_weight="balanced")`` (linear: it misses what only a non-linear adversary sees).
    test_size : float in (0, 1), default 0.5
        Share of each group held out (at least one row of each group on each side).
    hidden : tuple of int, default (32,)
        Hidden widths of the MLP adversary (wider than the networks LAFTR trains with by
        default, so that it is at least as strong as the adversary of the game).
    epochs : int in [1, 10,000], default 30
    batch_size : int in [1, 100,000], default 128
    learning_rate : float in (0, 1], default 3e-3
        Adam's step size for the MLP.
    rng : None, int or numpy.random.Generator
        Seeds the split, the initialisation and the minibatch order.

    Returns
    -------
    AdversaryScore
    """
    Z = check_features("Z", Z)
    codes, _ = encode_groups("sensitive_features", sensitive_features, Z.shape[0],
                             rows_of="Z")
    model = check_choice("model", model, ("mlp", "logistic"))
    test_size = check_in_range("test_size", test_size, 0.0, 1.0, low_inclusive=False,
                               high_inclusive=False)
    hidden = check_hidden("hidden", hidden)
    epochs = check_int("epochs", epochs, minimum=1, maximum=MAX_EPOCHS)
    batch_size = check_int("batch_size", batch_size, minimum=1, maximum=MAX_BATCH_SIZE)
    learning_rate = check_in_range("learning_rate", learning_rate, 0.0, MAX_LEARNING_RATE,
                                   low_inclusive=False)
    gen = check_rng(rng)
    train, test = _stratified_split(codes, test_size, gen)
    Ztr, Zte = _standardise(Z[train], Z[test])
    with np.errstate(over="ignore", under="ignore"), \
            threadpool_limits(limits=1, user_api="blas"):
        if model == "logistic":
            clf = LogisticRegression(class_weight="balanced", max_iter=1000)
            pred = clf.fit(Ztr, codes[train]).predict(Zte)
        else:
            net = _train_adversary(Ztr, codes[train], gen, hidden, epochs, batch_size,
                                   learning_rate)
            logits = np.concatenate([net.forward(Zte[i:i + 20_000], check_input=False)[0]
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


def fair_transfer(encoder_model, X_train, y_train, X_test, y_test, *, sensitive_features_test,
                  C=1.0) -> FairTransfer:
    """Freeze an encoder, train logistic regression on its Z for a (new) task, report gaps.

    The transfer protocol of [MCPZ18]_: the representation is learned once (e.g. by
    :class:`~dpteach.fairness.laftr.LAFTR` for one label), then a downstream party who never
    sees A trains an ordinary classifier on Z for a task of its own; if Z hides A, that
    classifier's gaps stay small although nobody asked it to be fair. The encoder is only
    *used* (``encoder_model.transform``), never changed.

    Parameters
    ----------
    encoder_model : fitted estimator with ``transform``
        E.g. a fitted :class:`~dpteach.fairness.laftr.LAFTR` or
        :class:`~dpteach.fairness.mmd.MMDRepresentation`.
    X_train, X_test : arrays of shape (n, n_features)
        Rows for the downstream task (its training and held-out rows), in the encoder's
        feature space.
    y_train, y_test : arrays of shape (n,)
        The downstream task's 0/1 labels (both present in ``y_train``).
    sensitive_features_test : array of shape (n_test,)
        The groups of the held-out rows (only for the gaps; the classifier never sees them).
        Two or more groups, each with both labels present (as the metrics require).
    C : float in (0, 1e6], default 1.0
        Inverse regularisation strength of ``sklearn.linear_model.LogisticRegression``.

    Returns
    -------
    FairTransfer
    """
    if not callable(getattr(encoder_model, "transform", None)):
        raise TypeError(f"encoder_model must be a fitted model with a transform method (e.g. "
                        f"LAFTR); got encoder_model={describe(encoder_model)}")
    C = check_in_range("C", C, 0.0, 1e6, low_inclusive=False)
    X_train = check_features("X_train", X_train)
    X_test = check_features("X_test", X_test)
    ytr = check_binary_labels("y_train", y_train, X_train.shape[0])
    yte = check_binary_labels("y_test", y_test, X_test.shape[0])
    if np.unique(ytr).shape[0] != 2:
        raise ParameterError("y_train must contain both labels 0 and 1; got only "
                             f"{int(ytr[0])}s")
    groups = np.asarray(sensitive_features_test) if isinstance(
        sensitive_features_test, (list, tuple, np.ndarray)) else sensitive_features_test
    Z = []
    for name, X in (("X_train", X_train), ("X_test", X_test)):
        try:
            Z.append(encoder_model.transform(X))
        except NotFittedError:
            raise ParameterError(f"encoder_model must be fitted first; got "
                                 f"encoder_model={describe(encoder_model)}") from None
        except ParameterError as exc:
            raise ParameterError(f"{name} does not fit encoder_model: {exc}") from None
    Ztr, Zte = Z
    Ztr = check_features("encoder_model.transform(X_train)", Ztr)
    Zte = check_features("encoder_model.transform(X_test)", Zte, n_features=Ztr.shape[1])
    with threadpool_limits(limits=1, user_api="blas"):
        clf = LogisticRegression(C=C, max_iter=1000).fit(Ztr, ytr.astype(np.int64))
    pred = clf.predict(Zte)
    kw = {"sensitive_features": groups}
    try:
        gaps = (demographic_parity_difference(yte, pred, **kw),
                equalized_odds_sum(yte, pred, **kw),
                laftr_equal_opportunity_difference(yte, pred, **kw),
                equal_opportunity_difference(yte, pred, **kw))
    except (ParameterError, TypeError) as exc:
        raise type(exc)(str(exc).replace("sensitive_features", "sensitive_features_test")
                        ) from None
    return FairTransfer(float(np.mean(pred == yte)), *(float(g) for g in gaps),
                        classifier=clf, predictions=pred)
