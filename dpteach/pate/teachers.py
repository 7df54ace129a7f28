"""PATE: teachers on disjoint data, noisy votes, and a student trained on the answers.

Private Aggregation of Teacher Ensembles ([PAEGT17]_, [PSMRTE18]_) in four steps:

1. split the private rows into disjoint parts (:func:`partition_indices`) and train one
   *teacher* per part (:class:`TeacherEnsemble`, :func:`train_teachers`);
2. for each *public* query, count the teachers' predictions per class: a vote histogram
   ``n`` (:meth:`TeacherEnsemble.votes`, :func:`vote_histograms`). One changed private row
   changes one teacher, so it moves one vote: two counts change by one;
3. answer each query with a *noisy* argmax of its histogram: LNMax (Laplace noise,
   :func:`lnmax`), GNMax (Gaussian noise, :func:`gnmax`) or Confident-GNMax (answer only
   when the teachers agree enough, :func:`confident_gnmax`);
4. train a *student* on the answered public rows (:class:`PATEStudent`). Only the student is
   released; its privacy is that of the noisy answers.

The exact distribution of each aggregator's answer is in :mod:`dpteach.pate.answers`.

Every function taking ``votes`` accepts one histogram, shape (classes,), or a batch, shape
(queries, classes), of non-negative whole-number counts with at least two classes
(:func:`dpteach.pate.analysis.check_votes`); for one histogram it returns one answer.

What is private: the noisy labels (and which queries were answered) are differentially
private outputs. The votes are **not**: they are a function of the private data, and so is
the *data-dependent* ε (:mod:`dpteach.pate.analysis`) that :class:`PATEStudent` reports;
only the data-independent ε, or a sanitised ε
(:func:`dpteach.pate.release.sanitised_epsilon`), may be published.

References
----------
.. [PAEGT17] N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar. "Semi-supervised
   knowledge transfer for deep learning from private training data." ICLR 2017
   (arXiv:1610.05755): teachers on disjoint data and LNMax (Sec. 2.1-2.2).
.. [PSMRTE18] N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
   "Scalable private learning with PATE." ICLR 2018 (arXiv:1802.08908): GNMax (Sec. 4.1),
   Confident-GNMax (Alg. 1), the Adult experiment (Table 1).
"""

from __future__ import annotations


import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .._validation import (
    ParameterError,
    check_array,
    check_choice,
    check_delta,
    check_int,
    check_nonnegative,
    check_positive,
    check_rng,
    describe,
)
from .analysis import MAX_CLASSES, check_votes, lnmax_epsilon, pate_epsilon

from .aggregators import confident_gnmax, gnmax, lnmax

__all__ = [
    "MAX_ROWS", "MAX_TEACHERS", "MAX_CELLS", "default_model",
    "partition_indices", "TeacherEnsemble", "train_teachers", "vote_histograms",
    "PATEStudent",
]

#: Largest number of private rows split among teachers (a permutation of 10⁷ indices is 80 MB).
MAX_ROWS = 10**7
#: Largest number of teachers.
MAX_TEACHERS = 10_000
#: Largest (teachers × queries) prediction array or (queries × classes) vote array built
#: here: 5·10⁷ int64 cells, 400 MB.
MAX_CELLS = 5 * 10**7

_AGGREGATORS = ("confident_gnmax", "gnmax", "lnmax")


def default_model() -> LogisticRegression:
    """The default teacher and student: ``LogisticRegression(C=10.0, max_iter=1000)``.

    A linear model trains in milliseconds on a teacher's part (about 120 rows of Adult for
    250 teachers), so 250 teachers train in about a second, and L-BFGS handles any number of
    classes. scikit-learn's ``C`` multiplies the *summed* loss, so a penalty that is mild on
    a whole data set dominates on a small part: with the default ``C = 1``, 120 rows are
    regularised as strongly per row as 30,000 rows with ``C = 250``. ``C = 10`` keeps the
    penalty modest there (on Adult it lifts the plurality of 250 teachers from 83.1% to
    84.0%, as accurate as one model on all the data: ``benchmarks/pate_adult_experiment.py``),
    and ``max_iter=1000`` lets L-BFGS converge on small, nearly separable parts.
    """
    return LogisticRegression(C=10.0, max_iter=1000)


def _check_model(model):
    """A fresh, unfitted clone of ``model``, or :func:`default_model` for None."""
    if model is None:
        return default_model()
    if not (hasattr(model, "fit") and hasattr(model, "predict")):
        raise TypeError("model must be a scikit-learn-style classifier (with fit and predict) "
                        f"or None; got model={describe(model)} of type {type(model).__name__}")
    try:
        return clone(model)
    except Exception as exc:                  # noqa: BLE001 - clone's errors vary by object
        raise TypeError(f"model must be clonable by sklearn.base.clone; got "
                        f"model={describe(model)}: {exc}") from exc


def _check_features(X, n_features: int | None = None) -> np.ndarray:
    X = check_array("X", X, ndim=2)
    if n_features is not None and X.shape[1] != n_features:
        raise ParameterError(f"X must have {n_features} columns (as in fit); got X of shape "
                             f"{X.shape}")
    return X


def _integer_labels(name: str, values) -> np.ndarray:
    arr = check_array(name, values, ndim=1, allow_bool=False)
    if np.any(arr != np.round(arr)) or np.any(np.abs(arr) >= 2.0**53):
        raise ParameterError(f"{name} must hold integer class labels (below 2**53 in "
                             f"magnitude); got {name}={describe(values)}")
    return arr.astype(np.int64)


# ------------------------------------------------------------------------------ teachers
def partition_indices(n: int, num_teachers: int, rng=None) -> list[np.ndarray]:
    """A seeded random split of ``range(n)`` into ``num_teachers`` disjoint parts.

    The rows are shuffled and cut into parts whose sizes differ by at most one. Disjoint
    parts are what PATE's analysis needs ([PAEGT17]_, Sec. 2.1): a private row is seen by
    one teacher only, so it can change one vote.

    Parameters
    ----------
    n : int
        Number of private rows, in [1, :data:`MAX_ROWS`].
    num_teachers : int
        Number of parts, in [1, :data:`MAX_TEACHERS`] and at most ``n``.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    list of numpy.ndarray
        ``num_teachers`` sorted index arrays holding ``0..n-1`` once each.
    """
    n = check_int("n", n, minimum=1, maximum=MAX_ROWS)
    num_teachers = check_int("num_teachers", num_teachers, minimum=1, maximum=MAX_TEACHERS)
    if num_teachers > n:
        raise ParameterError(f"num_teachers must be at most the number of rows n={n} (more "
                             f"teachers than rows); got num_teachers={num_teachers}")
    order = check_rng(rng).permutation(n)
    return [np.sort(part) for part in np.array_split(order, num_teachers)]


class TeacherEnsemble(ClassifierMixin, BaseEstimator):
    """Teachers trained on disjoint parts of the private data ([PAEGT17]_, Sec. 2.1).

    :meth:`fit` splits the rows with :func:`partition_indices` and fits a clone of
    ``model`` on each part, with each label replaced by its index in ``classes_`` (the
    sorted distinct labels of ``y``): teachers predict indices ``0..k-1``, and column ``j``
    of a vote histogram counts ``classes_[j]``. A part holding a single class gets a
    constant predictor (``DummyClassifier(strategy="constant")``).

    The ensemble is **not** private: :meth:`votes` and :meth:`predict` (the plurality, no
    noise) are functions of the private data. Release noisy answers or a student only.

    Parameters
    ----------
    num_teachers : int, default 250
        In [1, :data:`MAX_TEACHERS`] and at most the number of rows.
    model : scikit-learn classifier or None
        Cloned for each part; None → :func:`default_model`. A ``random_state`` parameter
        left at None is set, per teacher, to a seed drawn from ``rng``.
    rng : None, int or numpy.random.Generator
        Randomness of the split (and of the teachers' seeds).

    Attributes
    ----------
    classes_ : numpy.ndarray of int64, shape (k,)
    teachers_ : list of fitted classifiers
    partitions_ : list of numpy.ndarray
        The rows each teacher was trained on.
    n_features_in_ : int
    """

    def __init__(self, num_teachers=250, model=None, rng=None):
        self.num_teachers = num_teachers
        self.model = model
        self.rng = rng

    def fit(self, X, y):
        """Train one teacher per part: ``X`` finite, shape (n, d), n ≤ :data:`MAX_ROWS`;
        ``y`` integer labels, shape (n,), with 2 to k ≤ ``MAX_CLASSES`` distinct values."""
        X = _check_features(X)
        if X.shape[0] > MAX_ROWS:
            raise ParameterError(f"X must have at most {MAX_ROWS} rows; got X of shape {X.shape}")
        y = _integer_labels("y", y)
        if y.shape[0] != X.shape[0]:
            raise ParameterError(f"y must have one label per row of X ({X.shape[0]}); got y "
                                 f"with {y.shape[0]} labels")
        classes, index = np.unique(y, return_inverse=True)
        if not 2 <= classes.size <= MAX_CLASSES:
            raise ParameterError(f"y must hold between 2 and {MAX_CLASSES} classes; got "
                                 f"{classes.size} distinct label(s)")
        gen = check_rng(self.rng)
        parts = partition_indices(X.shape[0], self.num_teachers, gen)
        template = _check_model(self.model)
        seed_each = template.get_params().get("random_state", 0) is None
        self.teachers_ = []
        with threadpool_limits(limits=1, user_api="blas"):   # tiny fits: threads only cost
            for part in parts:
                labels = index.reshape(-1)[part]
                if np.all(labels == labels[0]):
                    teacher = DummyClassifier(strategy="constant", constant=labels[0])
                else:
                    teacher = clone(template)
                    if seed_each:
                        teacher.set_params(random_state=int(gen.integers(2**31)))
                self.teachers_.append(teacher.fit(X[part], labels))
        self.classes_, self.partitions_, self.n_features_in_ = classes, parts, X.shape[1]
        return self

    def predict_all(self, X) -> np.ndarray:
        """Every teacher's class index (into ``classes_``) for every row of ``X``.

        ``X`` has at most :data:`MAX_CELLS` / ``num_teachers`` rows. Returns an int64 array
        of shape (teachers, queries).
        """
        check_is_fitted(self)
        X = _check_features(X, self.n_features_in_)
        t = len(self.teachers_)
        if t * X.shape[0] > MAX_CELLS:
            raise ParameterError(f"X must have at most {MAX_CELLS // t} rows for {t} teachers "
                                 f"(teachers × rows ≤ {MAX_CELLS:,}); got X of shape {X.shape}")
        out = np.empty((t, X.shape[0]), dtype=np.int64)
        for i, teacher in enumerate(self.teachers_):
            out[i] = teacher.predict(X)
        return out

    def votes(self, X) -> np.ndarray:
        """Vote histograms of the teachers on the rows of ``X`` (**not private**).

        ``X`` has at most :data:`MAX_CELLS` / k rows. Returns an int64 array of shape
        (queries, k): ``votes[q, j]`` teachers predict ``classes_[j]`` for row ``q``; each
        row sums to the number of teachers.
        """
        check_is_fitted(self)
        X = _check_features(X, self.n_features_in_)
        k = self.classes_.size
        if k * X.shape[0] > MAX_CELLS:
            raise ParameterError(f"X must have at most {MAX_CELLS // k} rows for {k} classes; "
                                 f"got X of shape {X.shape}")
        counts = np.zeros((X.shape[0], k), dtype=np.int64)
        rows = np.arange(X.shape[0])
        for teacher in self.teachers_:              # one prediction per row: no repeated index
            counts[rows, np.asarray(teacher.predict(X), dtype=np.int64)] += 1
        return counts

    def predict(self, X) -> np.ndarray:
        """The plurality label of the teachers (no noise: **not private**; ties → lowest)."""
        return self.classes_[np.argmax(self.votes(X), axis=1)]


def train_teachers(X, y, num_teachers: int, *, model=None, rng=None) -> TeacherEnsemble:
    """``TeacherEnsemble(num_teachers, model, rng).fit(X, y)``; see :class:`TeacherEnsemble`
    (``num_teachers`` in [1, :data:`MAX_TEACHERS`] and at most ``len(X)``)."""
    return TeacherEnsemble(num_teachers=num_teachers, model=model, rng=rng).fit(X, y)


def vote_histograms(predictions, num_classes: int) -> np.ndarray:
    """Vote histograms from a (teachers, queries) array of predicted class indices.

    Parameters
    ----------
    predictions : array-like, shape (teachers, queries)
        Class indices in ``0..num_classes-1``; 1 to :data:`MAX_TEACHERS` teachers,
        queries × num_classes ≤ :data:`MAX_CELLS`.
    num_classes : int
        k, in [2, :data:`dpteach.pate.analysis.MAX_CLASSES`].

    Returns
    -------
    numpy.ndarray of int64, shape (queries, num_classes)
    """
    num_classes = check_int("num_classes", num_classes, minimum=2, maximum=MAX_CLASSES)
    p = check_array("predictions", predictions, ndim=2, allow_bool=False)
    if not 1 <= p.shape[0] <= MAX_TEACHERS or p.shape[1] * num_classes > MAX_CELLS:
        raise ParameterError(f"predictions must have 1 to {MAX_TEACHERS} teachers (rows) and at "
                             f"most {MAX_CELLS // num_classes} queries (columns) for "
                             f"{num_classes} classes; got predictions of shape {p.shape}")
    if np.any(p != np.round(p)) or np.any(p < 0) or np.any(p >= num_classes):
        raise ParameterError(f"predictions must hold class indices 0..{num_classes - 1}; got "
                             f"predictions={describe(predictions)}")
    q = p.shape[1]
    flat = (p.astype(np.int64) + num_classes * np.arange(q, dtype=np.int64)).ravel()
    return np.bincount(flat, minlength=q * num_classes).reshape(q, num_classes)



# ------------------------------------------------------------------------------- student
class PATEStudent(ClassifierMixin, BaseEstimator):
    """A student trained on public rows labelled by noisy teacher votes ([PSMRTE18]_).

    :meth:`fit` takes public rows and the teachers' vote histograms on them, answers each
    query with the aggregator, trains ``model`` on the answered rows and their noisy labels,
    and records what was answered and the privacy spent (:mod:`dpteach.pate.analysis`:
    RDP composed over the queries and converted at the best order, classic conversion).

    Parameters
    ----------
    aggregator : {"confident_gnmax", "gnmax", "lnmax"}, default "confident_gnmax"
        :func:`confident_gnmax` (``threshold``, ``sigma1``, ``sigma2``), :func:`gnmax`
        (``sigma2``) or :func:`lnmax` (``scale``).
    threshold, sigma1, sigma2 : float, default 300.0, 200.0, 40.0
        T ≥ 0, σ₁ > 0, σ₂ > 0: [PSMRTE18]_'s Adult setting (Table 1).
    scale : float, default 20.0
        Laplace scale b > 0 of LNMax (γ = 1/b = 0.05 as in [PAEGT17]_).
    delta : float, default 1e-5
        δ in (0, 1) of the reported (ε, δ).
    model : scikit-learn classifier or None
        The student, cloned before fitting; None → :func:`default_model`.
    classes : array-like of int or None
        Labels of the vote columns (e.g. ``TeacherEnsemble.classes_``); None → 0..k−1.
    rng : None, int or numpy.random.Generator
        Randomness of the aggregator (dpteach's name for ``random_state``); an int gives
        the same answers on every call.

    Attributes
    ----------
    classes_ : numpy.ndarray of int64, shape (k,)
    answered_ : numpy.ndarray of bool, shape (queries,)
        Which public rows were answered (all of them for GNMax and LNMax).
    noisy_labels_ : numpy.ndarray of int64, shape (queries,)
        The aggregator's labels, in ``classes_``; −1 where not answered.
    n_answered_ : int
    model_ : the fitted student (a constant predictor if the answers hold one class).
    privacy_ : dpteach.pate.analysis.PATEPrivacy
        Data-dependent, deployment convention (GNMax charged on the answered queries).
    privacy_expected_ : PATEPrivacy
        Data-dependent, expected-cost convention of [PSMRTE18]_'s tables (for GNMax and
        LNMax every query is answered and it is ``privacy_``).
    privacy_data_independent_ : PATEPrivacy
        Data-independent, deployment convention: a function of σ₁, σ₂, T, δ and of the
        numbers of queries and of answers only, so it may be published.
    privacy_expected_data_independent_ : PATEPrivacy
        Data-independent curves in the expected convention: it still weighs GNMax by the
        true Pr[answered], a function of the votes, so it is **not** publishable.
    epsilon_, delta_ : float
        ``privacy_.epsilon`` and ``delta``.

    Notes
    -----
    **The data-dependent ε (``epsilon_``, ``privacy_``, ``privacy_expected_``) is computed
    from the private votes and is not differentially private itself**: publishing it leaks
    about the data. Publish ``privacy_data_independent_.epsilon`` or a sanitised ε
    (:func:`dpteach.pate.release.sanitised_epsilon`, [PSMRTE18]_ Sec. 4 and
    App. C), and strip the ``privacy_*`` attributes before releasing the student. Otherwise
    it keeps DP outputs only (``answered_``, ``noisy_labels_``), never the votes.
    """

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

    def fit(self, X, votes):
        """Label the public rows with the aggregator and train the student on the answers.

        Parameters
        ----------
        X : array-like, shape (queries, d)
            The public rows (finite).
        votes : array-like, shape (queries, k)
            The teachers' vote histograms on them (:meth:`TeacherEnsemble.votes`), at most
            :data:`dpteach.pate.analysis.MAX_QUERIES` rows.

        Raises
        ------
        ParameterError
            Also when no query is answered: the student has nothing to learn from (the
            privacy of the threshold steps, in ``privacy_*``, was spent all the same).
        """
        aggregator = check_choice("aggregator", self.aggregator, _AGGREGATORS)
        threshold = check_nonnegative("threshold", self.threshold)
        sigma1 = check_positive("sigma1", self.sigma1)
        sigma2 = check_positive("sigma2", self.sigma2)
        scale = check_positive("scale", self.scale)
        delta = check_delta("delta", self.delta, allow_zero=False)
        template = _check_model(self.model)
        gen = check_rng(self.rng)
        X = _check_features(X)
        v = check_votes("votes", votes)
        if v.ndim != 2 or v.shape[0] != X.shape[0]:
            raise ParameterError(f"votes must have shape (queries, classes) with one row per row "
                                 f"of X ({X.shape[0]}); got votes of shape {v.shape}")
        classes = np.arange(v.shape[1]) if self.classes is None else \
            _integer_labels("classes", self.classes)
        if classes.shape[0] != v.shape[1] or np.unique(classes).size != classes.size:
            raise ParameterError(f"classes must be {v.shape[1]} distinct labels, one per column "
                                 f"of votes; got classes={describe(self.classes)}")
        if aggregator == "confident_gnmax":
            ans = confident_gnmax(v, threshold, sigma1, sigma2, gen)
            labels, answered = ans.labels, ans.answered
            common = dict(sigma2=sigma2, delta=delta, threshold=threshold, sigma1=sigma1)
            account = [pate_epsilon(v, answered=mask, data_dependent=dd, **common)
                       for dd in (True, False) for mask in (answered, None)]
        else:
            if aggregator == "gnmax":
                labels = gnmax(v, sigma2, gen)
                dd, di = (pate_epsilon(v, sigma2=sigma2, delta=delta, data_dependent=d)
                          for d in (True, False))
            else:
                labels = lnmax(v, scale, gen)
                dd, di = (lnmax_epsilon(v, scale=scale, delta=delta, data_dependent=d)
                          for d in (True, False))
            answered = np.ones(v.shape[0], dtype=bool)
            account = [dd, dd, di, di]
        (self.privacy_, self.privacy_expected_, self.privacy_data_independent_,
         self.privacy_expected_data_independent_) = account
        self.epsilon_, self.delta_ = float(self.privacy_.epsilon), delta
        self.classes_, self.answered_, self.n_features_in_ = classes, answered, X.shape[1]
        self.n_answered_ = int(np.count_nonzero(answered))
        self.noisy_labels_ = np.where(answered, classes[np.maximum(labels, 0)], -1)
        if self.n_answered_ == 0:
            raise ParameterError(f"threshold={describe(self.threshold)} answered no query (sigma1="
                                 f"{describe(self.sigma1)}): the student has no labels to learn "
                                 "from; lower the threshold or ask more queries")
        y = labels[answered]
        model = DummyClassifier(strategy="constant", constant=y[0]) if np.all(y == y[0]) \
            else template
        self.model_ = model.fit(X[answered], y)
        return self

    def _rows(self, X) -> np.ndarray:
        check_is_fitted(self, "model_")
        return _check_features(X, self.n_features_in_)

    def predict(self, X) -> np.ndarray:
        """The student's labels (in ``classes_``) for the rows of ``X``."""
        X = self._rows(X)
        return self.classes_[np.asarray(self.model_.predict(X), dtype=np.int64)]

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities in the order of ``classes_`` (if the student model has them).

        Classes the student never saw an answer for get probability 0.
        """
        X = self._rows(X)
        if not hasattr(self.model_, "predict_proba"):
            raise AttributeError(f"the student model {type(self.model_).__name__} has no "
                                 "predict_proba")
        out = np.zeros((X.shape[0], self.classes_.size))
        out[:, np.asarray(self.model_.classes_, dtype=np.int64)] = self.model_.predict_proba(X)
        return out
