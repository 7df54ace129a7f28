"""PATE's student: a model trained on public rows labelled by the teachers' noisy votes.

The last step of PATE ([PAEGT17]_, [PSMRTE18]_): the teachers (:mod:`dpteach.pate.teachers`)
vote on public, unlabelled rows; an aggregator (:mod:`dpteach.pate.aggregators`) answers
each row with a noisy argmax of the votes, or not at all; the student learns from the
answered rows. Only the student is released, and it saw the private data only through the
noisy answers, so its privacy is theirs (:mod:`dpteach.pate.analysis`).

References
----------
.. [PAEGT17] N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar. "Semi-supervised
   knowledge transfer for deep learning from private training data." ICLR 2017
   (arXiv:1610.05755): the student (Sec. 2.3) and LNMax (Sec. 2.2).
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): GNMax (Sec. 4.1),
   Confident-GNMax (Alg. 1), the Adult experiment (Table 1).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.utils.validation import check_is_fitted

from .._validation import (DELTA_POSITIVE, RNG, SCALE, choice, documented, refuse, validate,
                           validate_params)
from .aggregators import THRESHOLD, confident_gnmax, gnmax, lnmax
from .analysis import lnmax_epsilon, pate_epsilon, pate_expected_cost
from .teachers import FEATURES, LABELS, MODEL, VOTES, default_model

__all__ = ["PATEStudent"]


@documented
class PATEStudent(ClassifierMixin, BaseEstimator):
    """A student trained on public rows labelled by noisy teacher votes ([PSMRTE18]_).

    :meth:`fit` answers each query with the aggregator, trains ``model`` on the answered rows
    and their noisy labels, and records what was answered, the privacy spent
    (:mod:`dpteach.pate.analysis`, classic conversion) and, for Confident-GNMax, the expected
    cost that the tables of [PSMRTE18]_ report.

    Parameters
    ----------
    aggregator : {"confident_gnmax", "gnmax", "lnmax"}, default "confident_gnmax"
        :func:`~dpteach.pate.aggregators.confident_gnmax` (``threshold``, ``sigma1``,
        ``sigma2``), :func:`~dpteach.pate.aggregators.gnmax` (``sigma2``) or
        :func:`~dpteach.pate.aggregators.lnmax` (``scale``).
    threshold, sigma1, sigma2 : float, default 300.0, 200.0, 40.0
        T, σ₁ and σ₂: [PSMRTE18]_'s Adult setting (Table 1).
    scale : float, default 20.0
        Laplace scale b of LNMax (γ = 1/b = 0.05 as in [PAEGT17]_).
    delta : float, default 1e-5
        δ of the reported (ε, δ).
    model : scikit-learn classifier or None
        The student, cloned before fitting; None →
        :func:`~dpteach.pate.teachers.default_model`.
    classes : array-like of int or None
        Labels of the vote columns (e.g. ``TeacherEnsemble.classes_``); None → 0..k−1.
    rng : None, int or numpy.random.Generator
        Randomness of the aggregator; an int gives the same answers on every call.

    Attributes
    ----------
    answered_ : numpy.ndarray of bool, shape (queries,)
        Which public rows were answered (all of them for GNMax and LNMax).
    noisy_labels_ : numpy.ndarray of int64, shape (queries,)
        The aggregator's labels, in ``classes_``; −1 where not answered.
    model_ : the fitted student (a constant predictor if the answers hold one class).
    privacy_ : dpteach.pate.analysis.PATEPrivacy
        The (ε, δ) bound of the run, data-dependent: the threshold step on every query,
        GNMax on the answered ones (the answered convention).
    privacy_data_independent_ : PATEPrivacy
        The same run's bound from the data-independent curves: a function of σ₁, σ₂, T, δ
        and of the numbers of queries and of answers only, so it may be published.
    expected_cost_ : dpteach.pate.analysis.PATEExpectedCost or None
        Confident-GNMax only (None otherwise, where every query is answered): the expected
        ε-cost of [PSMRTE18]_'s tables, data-dependent — a forecast weighing each query's
        GNMax cost by its true Pr[answered], **not** an ε.
    expected_cost_data_independent_ : PATEExpectedCost or None
        The same forecast from the data-independent curves; its weights Pr[answered] still
        come from the votes, so it is **not** publishable either.

    Notes
    -----
    **The data-dependent ε (``epsilon_``, ``privacy_``) and the expected costs are computed
    from the private votes and are not differentially private themselves**: publishing them
    leaks about the data. Publish ``privacy_data_independent_.epsilon`` or a sanitised ε
    (:func:`dpteach.pate.release.sanitised_epsilon`, [PSMRTE18]_ Sec. 4 and App. C), and
    strip the ``privacy_*`` and ``expected_cost*`` attributes before releasing the student.
    Otherwise it keeps DP outputs only (``answered_``, ``noisy_labels_``), never the votes.
    """

    _parameter_constraints = {
        "aggregator": choice("confident_gnmax", "gnmax", "lnmax"), "threshold": THRESHOLD,
        "sigma1": SCALE, "sigma2": SCALE, "scale": SCALE, "delta": DELTA_POSITIVE,
        "model": MODEL, "classes": LABELS.or_none(), "rng": RNG,
    }

    def __init__(self, aggregator="confident_gnmax", threshold=300.0, sigma1=200.0,
                 sigma2=40.0, scale=20.0, delta=1e-5, model=None, classes=None, rng=None):
        self.aggregator = aggregator
        self.threshold = threshold
        self.sigma1 = sigma1
        self.sigma2 = sigma2
        self.scale = scale
        self.delta = delta
        self.model = model
        self.classes = classes
        self.rng = rng

    @validate(X=FEATURES, votes=VOTES)
    def fit(self, X, votes) -> PATEStudent:
        """Label the public rows ``X`` with the aggregator from the teachers' ``votes`` on
        them (:meth:`~dpteach.pate.teachers.TeacherEnsemble.votes`), then train the student.

        Raises ParameterError also when no query is answered: the student has nothing to
        learn from (the privacy of the threshold steps, in ``privacy_*``, was spent anyway).
        """
        p = validate_params(self, store=False)
        threshold, sigma1, sigma2, delta = p["threshold"], p["sigma1"], p["sigma2"], p["delta"]
        if votes.ndim != 2 or votes.shape[0] != X.shape[0]:
            raise refuse("votes", votes, "of shape (queries, classes), one row per row of X")
        classes = (np.arange(votes.shape[1]) if p["classes"] is None
                   else p["classes"].astype(np.int64))
        if classes.shape[0] != votes.shape[1] or np.unique(classes).size != classes.size:
            raise refuse("classes", self.classes, f"{votes.shape[1]} distinct labels, one a column")
        gen = p["rng"]
        if p["aggregator"] == "confident_gnmax":
            ans = confident_gnmax(votes, threshold, sigma1, sigma2, gen)
            labels, answered = ans.labels, ans.answered
            common = dict(sigma2=sigma2, delta=delta, threshold=threshold, sigma1=sigma1)
            account = [pate_epsilon(votes, answered=answered, data_dependent=dd, **common)
                       for dd in (True, False)]
            forecast = [pate_expected_cost(votes, data_dependent=dd, **common)
                        for dd in (True, False)]
        else:
            if p["aggregator"] == "gnmax":
                labels = gnmax(votes, sigma2, gen)
                dd, di = (pate_epsilon(votes, sigma2=sigma2, delta=delta, data_dependent=d)
                          for d in (True, False))
            else:
                labels = lnmax(votes, p["scale"], gen)
                dd, di = (lnmax_epsilon(votes, scale=p["scale"], delta=delta, data_dependent=d)
                          for d in (True, False))
            answered = np.ones(votes.shape[0], dtype=bool)
            account, forecast = [dd, di], [None, None]
        self.privacy_, self.privacy_data_independent_ = account
        self.expected_cost_, self.expected_cost_data_independent_ = forecast
        self.epsilon_, self.delta_ = float(self.privacy_.epsilon), delta
        self.classes_, self.answered_, self.n_features_in_ = classes, answered, X.shape[1]
        self.n_answered_ = int(np.count_nonzero(answered))
        self.noisy_labels_ = np.where(answered, classes[np.maximum(labels, 0)], -1)
        if self.n_answered_ == 0:
            raise refuse("threshold", self.threshold, "low enough to answer some query (none was)")
        y = labels[answered]
        template = default_model() if p["model"] is None else clone(p["model"])
        model = DummyClassifier(strategy="constant", constant=y[0]) if np.all(y == y[0]) \
            else template
        self.model_ = model.fit(X[answered], y)
        return self

    @validate(X=FEATURES)
    def predict(self, X) -> np.ndarray:
        """The student's labels (in ``classes_``) for the rows of ``X``."""
        self._check_rows(X)
        return self.classes_[np.asarray(self.model_.predict(X), dtype=np.int64)]

    @validate(X=FEATURES)
    def predict_proba(self, X) -> np.ndarray:
        """Probabilities in the order of ``classes_`` (AttributeError if the student model has
        none); classes the student never saw an answer for get probability 0."""
        self._check_rows(X)
        out = np.zeros((X.shape[0], self.classes_.size))
        out[:, np.asarray(self.model_.classes_, dtype=np.int64)] = self.model_.predict_proba(X)
        return out

    def _check_rows(self, X: np.ndarray) -> None:
        check_is_fitted(self, "model_")
        if X.shape[1] != self.n_features_in_:
            raise refuse("X", X, f"of {self.n_features_in_} columns (as in fit), not {X.shape[1]}")
