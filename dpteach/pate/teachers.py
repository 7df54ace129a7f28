"""PATE's teachers: models trained on disjoint parts of the private data, and their votes.

Private Aggregation of Teacher Ensembles ([PAEGT17]_, [PSMRTE18]_) in four steps:

1. split the private rows into disjoint parts (:func:`partition_indices`) and train one
   *teacher* per part (:class:`TeacherEnsemble`, :func:`train_teachers`);
2. for each *public* query, count the teachers' predictions per class: a vote histogram
   ``n`` (:meth:`TeacherEnsemble.votes`, :func:`vote_histograms`). One changed private row
   changes one teacher, so it moves one vote: two counts change by one;
3. answer each query with a *noisy* argmax of its histogram (:mod:`dpteach.pate.aggregators`;
   the exact law of each answer in :mod:`dpteach.pate.answers`);
4. train a *student* on the answered public rows (:class:`dpteach.pate.student.PATEStudent`).
   Only the student is released; its privacy is that of the noisy answers
   (:mod:`dpteach.pate.analysis`).

Every function of :mod:`dpteach.pate` taking ``votes`` accepts one histogram, shape
(classes,), or a batch, shape (queries, classes), of whole-number counts (:data:`VOTES`);
for one histogram it returns one answer.

The teachers and their votes are **not** private: they are functions of the private data.

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

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .._validation import RNG, Domain, array, documented, integer, refuse, validate, validate_params

__all__ = [
    "MAX_ROWS", "MAX_TEACHERS", "MAX_CLASSES", "MAX_QUERIES", "MAX_CELLS",
    "VOTES", "FEATURES", "LABELS", "MODEL", "N_TEACHERS", "N_CLASSES", "ROWS", "PREDICTIONS",
    "default_model", "partition_indices", "TeacherEnsemble", "train_teachers",
    "vote_histograms",
]

#: Largest number of private rows to split, and of entries (rows × features) of ``X``.
MAX_ROWS = 10**7
#: Largest number of teachers trained in one ensemble (a few seconds of training).
MAX_TEACHERS = 1_000
#: Largest number of classes (columns of a vote array).
MAX_CLASSES = 10_000
#: Largest number of queries (rows of a vote array) in one call, aggregated or analysed.
MAX_QUERIES = 20_000
#: Largest (teachers × queries) prediction array or (queries × classes) vote array built
#: here: 10⁷ cells.
MAX_CELLS = 10**7

#: one vote histogram or a batch of them: the input of every aggregator and analysis
VOTES = Domain(
    "one vote histogram, shape (classes,), or a batch, shape (queries, classes), of "
    f"whole-number counts in [0, 2**53): 2 to {MAX_CLASSES} classes, at most {MAX_QUERIES} "
    "queries", lambda name, value: _votes(name, value),
    example=[[7, 2, 1], [3, 5, 2]],
    edges=([0, 0], [2**53 - 1, 0], [[2**53 - 1, 2**53 - 2], [0, 0]]),
    bad=["abc", None, [[1, 2], [3]], [[]], [3], [[3], [4]], [-1, 2], [0.5, 1], [2**53, 0],
         [float("nan"), 1], [float("inf"), 1], [True, False], [1j, 1], np.zeros((2, 2, 2)),
         np.zeros((MAX_QUERIES + 1, 2)), np.zeros(MAX_CLASSES + 1)])
#: the rows of a data set: finite numbers, at most MAX_ROWS entries
FEATURES = array(ndim=2, low=-1e15, high=1e15, max_size=MAX_ROWS,
                 example=[[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
#: class labels: whole numbers (not booleans) below 2⁵³ in magnitude
LABELS = array(ndim=1, low=-(2**53 - 1), high=2**53 - 1, integers=True, example=[0, 1, 1])
#: a teacher or student model
MODEL = Domain("a scikit-learn classifier (with fit and predict, clonable) or None",
               lambda name, value: _model(name, value), example=None, edges=(None,),
               bad=[1, "lr", object(), [LogisticRegression()]])
N_TEACHERS = integer(1, MAX_TEACHERS, example=5, work=True)
N_CLASSES = integer(2, MAX_CLASSES, example=3)
ROWS = integer(1, MAX_ROWS, example=100, work=True)
PREDICTIONS = array(ndim=2, low=0, high=MAX_CLASSES - 1, integers=True, max_size=MAX_CELLS,
                    example=[[0, 1, 2], [2, 2, 0]])


def default_model() -> LogisticRegression:
    """The default teacher and student: ``LogisticRegression(C=10.0, max_iter=1000)``.

    A linear model trains in milliseconds on a teacher's small part and handles any number
    of classes. scikit-learn's ``C`` multiplies the *summed* loss, so a penalty that is mild
    on a whole data set dominates on a teacher's small part: ``C = 10`` keeps it modest there
    (why, with numbers on Adult: docs/library/accounting.md, pate.teachers).
    """
    return LogisticRegression(C=10.0, max_iter=1000)


@validate(n=ROWS, n_teachers=N_TEACHERS, rng=RNG)
def partition_indices(n: int, n_teachers: int, rng=None) -> list[np.ndarray]:
    """A seeded random split of ``range(n)`` into ``n_teachers`` disjoint parts.

    The rows are shuffled and cut into parts whose sizes differ by at most one. Disjoint
    parts are what PATE's analysis needs ([PAEGT17]_, Sec. 2.1): a private row is seen by
    one teacher only, so it can change one vote. Returns ``n_teachers`` (at most ``n``)
    sorted index arrays holding ``0..n-1`` once each.
    """
    if n_teachers > n:
        raise refuse("n_teachers", n_teachers, f"at most n = {n} rows (more teachers than rows)")
    order = rng.permutation(n)
    return [np.sort(part) for part in np.array_split(order, n_teachers)]


@documented
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
    n_teachers : int, default 250
        At most the number of rows.
    model : scikit-learn classifier or None
        Cloned for each part; None → :func:`default_model`. A ``random_state`` parameter
        left at None is set, per teacher, to a seed drawn from ``rng``.
    rng : None, int or numpy.random.Generator
        Randomness of the split (and of the teachers' seeds).

    Attributes
    ----------
    teachers_ : list of fitted classifiers
    partitions_ : list of numpy.ndarray
        The rows each teacher was trained on.
    """

    _parameter_constraints = {"n_teachers": N_TEACHERS, "model": MODEL, "rng": RNG}

    def __init__(self, n_teachers=250, model=None, rng=None):
        self.n_teachers = n_teachers
        self.model = model
        self.rng = rng

    @validate(X=FEATURES, y=LABELS)
    def fit(self, X, y) -> TeacherEnsemble:
        """Train one teacher per part: ``X`` of shape (n, d), ``y`` integer labels of
        shape (n,) with 2 to :data:`MAX_CLASSES` distinct values."""
        params = validate_params(self, store=False)
        classes, index = np.unique(y.astype(np.int64), return_inverse=True)
        if y.shape[0] != X.shape[0] or not 2 <= classes.size <= MAX_CLASSES:
            raise refuse("y", y, f"{X.shape[0]} labels (a row of X each), 2 to {MAX_CLASSES} classes")
        gen = params["rng"]
        parts = partition_indices(X.shape[0], params["n_teachers"], gen)
        template = default_model() if params["model"] is None else clone(params["model"])
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

    @validate(X=FEATURES)
    def predict_all(self, X) -> np.ndarray:
        """Every teacher's class index (into ``classes_``) for every row of ``X``.

        ``X`` has at most :data:`MAX_CELLS` / (number of teachers) rows. Returns an int64
        array of shape (teachers, queries).
        """
        self._check_rows(X, len(self.teachers_), "teachers")
        out = np.empty((len(self.teachers_), X.shape[0]), dtype=np.int64)
        for i, teacher in enumerate(self.teachers_):
            out[i] = teacher.predict(X)
        return out

    @validate(X=FEATURES)
    def votes(self, X) -> np.ndarray:
        """Vote histograms of the teachers on the rows of ``X`` (**not private**).

        ``X`` has at most :data:`MAX_CELLS` / k rows. Returns an int64 array of shape
        (queries, k): ``votes[q, j]`` teachers predict ``classes_[j]`` for row ``q``; each
        row sums to the number of teachers.
        """
        self._check_rows(X, self.classes_.size, "classes")
        counts = np.zeros((X.shape[0], self.classes_.size), dtype=np.int64)
        rows = np.arange(X.shape[0])
        for teacher in self.teachers_:              # one prediction per row: no repeated index
            counts[rows, np.asarray(teacher.predict(X), dtype=np.int64)] += 1
        return counts

    @validate(X=FEATURES)
    def predict(self, X) -> np.ndarray:
        """The plurality label of the teachers (no noise: **not private**; ties → lowest)."""
        return self.classes_[np.argmax(self.votes(X), axis=1)]

    def _check_rows(self, X: np.ndarray, per_row: int, what: str) -> None:
        """Fitted, ``X`` with the columns of fit, and at most MAX_CELLS results."""
        check_is_fitted(self)
        if X.shape[1] != self.n_features_in_:
            raise refuse("X", X, f"of {self.n_features_in_} columns (as in fit), not {X.shape[1]}")
        if X.shape[0] * per_row > MAX_CELLS:
            raise refuse("X", X, f"of at most {MAX_CELLS // per_row} rows for {per_row} {what}")


@validate(X=FEATURES, y=LABELS, n_teachers=N_TEACHERS, model=MODEL, rng=RNG)
def train_teachers(X, y, n_teachers: int, *, model=None, rng=None) -> TeacherEnsemble:
    """``TeacherEnsemble(n_teachers, model, rng).fit(X, y)``; see :class:`TeacherEnsemble`
    (``n_teachers`` at most ``len(X)``)."""
    return TeacherEnsemble(n_teachers=n_teachers, model=model, rng=rng).fit(X, y)


@validate(predictions=PREDICTIONS, n_classes=N_CLASSES)
def vote_histograms(predictions, n_classes: int) -> np.ndarray:
    """Vote histograms, an int64 array of shape (queries, n_classes), from a (teachers,
    queries) array of predicted class indices in ``0..n_classes-1``."""
    q = predictions.shape[1]
    if predictions.max() >= n_classes or q * n_classes > MAX_CELLS:
        raise refuse("predictions", predictions, f"class indices below n_classes = {n_classes}, "
                     f"at most {MAX_CELLS // n_classes} columns (queries)")
    flat = (predictions.astype(np.int64) + n_classes * np.arange(q, dtype=np.int64)).ravel()
    return np.bincount(flat, minlength=q * n_classes).reshape(q, n_classes)


# ------------------------------------------------------------------------------ helpers
_COUNTS = array(ndim=(1, 2), low=0, high=2**53 - 1, integers=True, text=VOTES.text)


def _votes(name: str, value: Any) -> np.ndarray:
    """:data:`VOTES`: whole-number counts (as float64), then the numbers of classes and
    queries."""
    votes = _COUNTS(name, value)
    if 2 <= votes.shape[-1] <= MAX_CLASSES and (votes.ndim == 1 or votes.shape[0] <= MAX_QUERIES):
        return votes
    raise refuse(name, value, f"{VOTES.text} (shape {votes.shape})")


def _model(name: str, value: Any) -> Any:
    """:data:`MODEL`: None, or a classifier that :func:`sklearn.base.clone` can copy."""
    if value is None:
        return None
    if hasattr(value, "fit") and hasattr(value, "predict"):
        try:
            clone(value)
            return value
        except Exception:                 # noqa: BLE001 - clone's errors vary by object
            pass
    raise MODEL.refuse(name, value)


# Implementation notes: docs/library/accounting.md (pate.teachers).
