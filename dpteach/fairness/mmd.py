"""Maximum mean discrepancy: how far apart two samples are, and a representation that closes it.

The maximum mean discrepancy (MMD) of Gretton et al. [GBRSS12]_ compares two distributions
p and q through a kernel k: with x, x' drawn from p and y, y' from q (all independent),

    MMD²(p, q) = E k(x, x') − 2 E k(x, y) + E k(y, y')            ([GBRSS12]_, Lemma 6),

the squared distance between the two mean embeddings in the kernel's feature space. With a
characteristic kernel such as the Gaussian ``k(x, y) = exp(−‖x − y‖² / (2 σ²))`` it is zero
exactly when p = q. From samples X (m rows) and Y (n rows) there are two estimates:

* the **biased** V-statistic (every pair, the diagonal included)

      MMD²_b = (1/m²) Σ_ij k(x_i, x_j) + (1/n²) Σ_ij k(y_i, y_j) − (2/(mn)) Σ_ij k(x_i, y_j),

  the square of the biased estimate MMD_b of [GBRSS12]_; always ≥ 0, and biased upwards
  (two samples of the same distribution give about (2 − E k(x, x') − ...)/n > 0);
* the **unbiased** U-statistic MMD²_u of [GBRSS12]_ (stated with their Lemma 6), which
  leaves out the diagonal terms i = j of the two within-sample sums (dividing by m(m − 1)
  and n(n − 1)); its mean is exactly MMD², so it can be negative when p = q.

:func:`mmd_permutation_test` turns the statistic into a test of p = q by recomputing it on
random relabellings of the pooled sample (a permutation test, exact in level for any n).

As a fairness penalty: if Z = f(X) is a representation and the two groups' codes Z | A = 0
and Z | A = 1 have MMD² = 0, no function of Z — no classifier, no adversary — can tell the
groups apart on average, so every classifier built on Z has the same positive rate in both
groups (demographic parity). :func:`mmd2_and_grad` gives the statistic between the groups'
rows of Z and its gradient with respect to Z, and :class:`MMDRepresentation` trains an
encoder and a classifier on ``α·L_class + β·L_dec + λ·MMD²(Z | A = 0, Z | A = 1)`` — the
maximum-mean-discrepancy penalty of the variational fair autoencoder [LSLWZ16]_ without its
variational part: a non-adversarial baseline for :class:`~dpteach.fairness.laftr.LAFTR`.

References
----------
.. [GBRSS12] A. Gretton, K. M. Borgwardt, M. J. Rasch, B. Schölkopf and A. Smola. A kernel
   two-sample test. Journal of Machine Learning Research 13:723-773, 2012 (the MMD, its
   population form and unbiased estimate in Lemma 6, the biased estimate MMD_b).
.. [LSLWZ16] C. Louizos, K. Swersky, Y. Li, M. Welling and R. Zemel. The variational fair
   autoencoder. ICLR 2016 (the MMD penalty between the groups' latent codes).
.. [KB15] D. P. Kingma and J. Ba. Adam: a method for stochastic optimization. ICLR 2015,
   Algorithm 1.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from threadpoolctl import threadpool_limits

from .._validation import (FLAG, RNG, array, choice, documented, integer, one_of, real, refuse,
                           validate, validate_params)
from ..learning.optim import Adam
from ._rows import check_same_length
from .metrics import BOTH_LABELS, TWO_GROUPS
from .representation import (ACTIVATION, EPOCHS, FEATURES, LEARNING_RATE, LOSS_WEIGHT, HIDDEN,
                             WIDTH, RepresentationClassifier)

__all__ = [
    "MAX_KERNEL_ENTRIES", "MAX_SAMPLE_ROWS", "MAX_GRAD_ROWS", "MAX_PERMUTATION_ROWS",
    "MAX_PERMUTATIONS", "MAX_PERMUTATION_WORK", "MAX_ABS_VALUE", "MIN_BANDWIDTH",
    "MAX_BANDWIDTH", "POINTS", "BANDWIDTH",
    "gaussian_kernel", "mmd2", "mmd2_and_grad", "mmd_permutation_test", "MMDRepresentation",
]

#: Largest ``n_X · n_Y`` of the matrix :func:`gaussian_kernel` returns (200 MB of float64).
MAX_KERNEL_ENTRIES = 25_000_000
#: Largest number of rows of each sample in :func:`mmd2` (computed in blocks: memory stays
#: about 40 MB).
MAX_SAMPLE_ROWS = 20_000
#: Largest number of rows of ``Z`` in :func:`mmd2_and_grad` (it holds a few n × n matrices).
MAX_GRAD_ROWS = 4_000
#: Largest pooled sample of :func:`mmd_permutation_test` (one n × n kernel matrix).
MAX_PERMUTATION_ROWS = 4_000
#: Largest number of permutations of :func:`mmd_permutation_test`.
MAX_PERMUTATIONS = 10_000
#: Largest work B · (m + n)² of :func:`mmd_permutation_test`: a few seconds on one core.
MAX_PERMUTATION_WORK = 4e9
#: Largest |value| of a point.
MAX_ABS_VALUE = 1e6
#: Smallest and largest kernel bandwidth σ.
MIN_BANDWIDTH, MAX_BANDWIDTH = 1e-6, 1e6

#: a sample of points: the rows of a 2-D array, |value| ≤ 1e6
POINTS = array(ndim=2, low=-MAX_ABS_VALUE, high=MAX_ABS_VALUE, max_size=10**8,
               example=[[0.0], [1.0], [0.5]])
#: σ of the Gaussian kernel, in the units of the points
BANDWIDTH = real(MIN_BANDWIDTH, MAX_BANDWIDTH)
_BLOCK = 2_000_000          # kernel entries computed at once in mmd2


# ---------------------------------------------------------------------------- kernel
@validate(X=POINTS, Y=POINTS, bandwidth=BANDWIDTH)
def gaussian_kernel(X, Y, *, bandwidth=1.0) -> np.ndarray:
    """The Gaussian (RBF) kernel matrix ``K[i, j] = exp(−‖x_i − y_j‖² / (2 · bandwidth²))``.

    Characteristic (so MMD² = 0 only for p = q [GBRSS12]_), bounded in [0, 1], with
    ``K[i, i] = 1`` when X is Y. At most :data:`MAX_KERNEL_ENTRIES` entries ``n_X · n_Y``.
    """
    _check_columns(X, Y)
    if X.shape[0] * Y.shape[0] > MAX_KERNEL_ENTRIES:
        raise refuse("X, Y", (X.shape, Y.shape), "shapes giving ≤ 25e6 kernel entries")
    return _kernel(X, Y, bandwidth)


@validate(X=POINTS, Y=POINTS, bandwidth=BANDWIDTH, unbiased=FLAG)
def mmd2(X, Y, *, bandwidth=1.0, unbiased=False) -> float:
    """Squared maximum mean discrepancy between two samples, Gaussian kernel [GBRSS12]_.

    ``unbiased=False``: the V-statistic MMD²_b (the square of [GBRSS12]_'s biased MMD_b),
    ≥ 0. ``unbiased=True``: the U-statistic MMD²_u of their Lemma 6, whose mean is the
    population MMD² (it can be slightly negative when the samples come from one
    distribution). See the module docstring for both formulas. In [0, 2] for the biased
    estimate, in [−2, 2] for the unbiased one. X and Y have at most :data:`MAX_SAMPLE_ROWS`
    rows each (at least 2 when ``unbiased``).

    Examples
    --------
    >>> round(mmd2([[0.0], [1.0]], [[2.0], [3.0]], bandwidth=1.0), 10)
    1.1623755484
    """
    _check_columns(X, Y)
    m, n = X.shape[0], Y.shape[0]
    if max(m, n) > MAX_SAMPLE_ROWS or (unbiased and min(m, n) < 2):
        raise refuse("X, Y", (m, n), "of 1 (unbiased: 2) to 20,000 rows each")
    sxx = _kernel_sum(X, X, bandwidth)
    syy = _kernel_sum(Y, Y, bandwidth)
    sxy = _kernel_sum(X, Y, bandwidth)
    if unbiased:                          # k(x, x) = 1: the diagonal contributes m (and n)
        value = (sxx - m) / (m * (m - 1)) + (syy - n) / (n * (n - 1)) - 2.0 * sxy / (m * n)
    else:
        value = sxx / (m * m) + syy / (n * n) - 2.0 * sxy / (m * n)
        value = max(value, 0.0)           # ≥ 0 mathematically; rounding can give −1e-17
    return float(value)


@validate(Z=array(ndim=2, low=-MAX_ABS_VALUE, high=MAX_ABS_VALUE, max_rows=MAX_GRAD_ROWS,
                  example=[[0.0], [1.0], [0.5], [2.0]]),
          groups=TWO_GROUPS, bandwidth=BANDWIDTH, unbiased=FLAG)
def mmd2_and_grad(Z, groups, *, bandwidth=1.0, unbiased=False):
    """MMD² between the two groups' rows of ``Z``, and its gradient with respect to ``Z``.

    The penalty of a fair representation ([LSLWZ16]_'s MMD term): with ``X = Z[groups ==
    g0]`` and ``Y = Z[groups == g1]`` (the two labels sorted), the value equals
    ``mmd2(X, Y, bandwidth=bandwidth, unbiased=unbiased)``. Written as
    ``MMD² = Σ_ij C_ij k(z_i, z_j)`` with fixed coefficients C (for the biased estimate
    ``C = w wᵀ`` with ``w_i = 1/m`` in group 0 and ``−1/n`` in group 1), the gradient of the
    Gaussian kernel, ``∂k(z_i, z_j)/∂z_i = −k(z_i, z_j)(z_i − z_j)/σ²``, gives

        ∂MMD²/∂z_i = −(2/σ²) Σ_j C_ij k(z_i, z_j) (z_i − z_j).

    Returns ``(value, grad)``, the gradient of the shape of ``Z``.
    """
    check_same_length(Z=Z, groups=groups.codes)
    C = _coefficients(groups.codes, unbiased)
    K = _kernel(Z, Z, bandwidth)
    CK = C * K
    value = float(np.sum(CK))
    if not unbiased:
        value = max(value, 0.0)
    Zc = Z - Z.mean(axis=0)                         # smaller rounding in the next line
    S = CK.sum(axis=1)[:, None] * Zc - CK @ Zc       # Σ_j C_ij K_ij (z_i − z_j)
    grad = S / bandwidth
    grad /= bandwidth                               # σ twice: as the kernel divides
    grad *= -2.0
    return value, grad


@validate(X=POINTS, Y=POINTS, bandwidth=BANDWIDTH,
          n_permutations=integer(1, MAX_PERMUTATIONS, example=20, work=True), unbiased=FLAG,
          rng=RNG)
def mmd_permutation_test(X, Y, *, bandwidth=1.0, n_permutations=200, unbiased=False,
                         rng=None):
    """Permutation test of "X and Y come from the same distribution" with the MMD² statistic.

    Under the null hypothesis the labels "from X" / "from Y" are exchangeable, so the
    statistic of the observed split is one draw among those of random relabellings of the
    pooled sample. With B random permutations and b of them giving a statistic at least the
    observed one, the p-value ``(b + 1) / (B + 1)`` is valid at every sample size
    (P(p ≤ α) ≤ α under the null). One kernel matrix of the pooled sample serves every
    permutation.

    X and Y need 2 rows each or more, at most :data:`MAX_PERMUTATION_ROWS` together; the
    work B · (m + n)², with B = ``n_permutations``, is at most :data:`MAX_PERMUTATION_WORK`
    (B = 250 at the largest pooled sample, B = 10,000 up to 632 rows). ``unbiased`` picks the
    statistic (the p-value is about the same for both). Returns ``(statistic, p_value)``:
    ``mmd2(X, Y, ...)`` and a p-value in [1/(B + 1), 1].
    """
    _check_columns(X, Y)
    m, n, B = X.shape[0], Y.shape[0], n_permutations
    if min(m, n) < 2 or m + n > MAX_PERMUTATION_ROWS:
        raise refuse("X, Y", (m, n), "of ≥ 2 rows each, ≤ 4,000 together")
    if B * (m + n) ** 2 > MAX_PERMUTATION_WORK:
        raise refuse("n_permutations · (m + n)²", B * (m + n) ** 2, "≤ 4e9")
    pooled = np.vstack([X, Y])
    K0 = _kernel(pooled, pooled, bandwidth)
    np.fill_diagonal(K0, 0.0)
    row = K0.sum(axis=1)
    total = row.sum()

    def statistic(U):
        """MMD² for the columns of U (indicators of "X"), from the off-diagonal sums."""
        sxx = np.einsum("ij,ij->j", U, K0 @ U)
        sx1 = row @ U                              # Σ_{i in X, all j} K0_ij
        sxy = sx1 - sxx
        syy = total - 2.0 * sx1 + sxx
        if unbiased:
            return sxx / (m * (m - 1)) + syy / (n * (n - 1)) - 2.0 * sxy / (m * n)
        return (sxx + m) / m**2 + (syy + n) / n**2 - 2.0 * sxy / (m * n)

    observed = float(statistic(np.r_[np.ones(m), np.zeros(n)][:, None])[0])
    exceed = 0
    chunk = max(1, min(B, 2_000_000 // (m + n)))
    done = 0
    while done < B:
        b = min(chunk, B - done)
        U = np.zeros((m + n, b))
        idx = np.argsort(rng.random((b, m + n)), axis=1)[:, :m]
        U[idx, np.arange(b)[:, None]] = 1.0
        # a tolerance so that a permutation equal to the observed split counts as "at least"
        exceed += int(np.count_nonzero(statistic(U) >= observed - 1e-12 * max(1.0, abs(observed))))
        done += b
    if not unbiased:
        observed = max(observed, 0.0)
    return observed, (exceed + 1) / (B + 1)


# ------------------------------------------------------------ the MMD representation
@documented
class MMDRepresentation(RepresentationClassifier):
    """Encoder and classifier trained with an MMD penalty between the groups' codes.

    Minimises, by Adam [KB15]_ on minibatches,

        α · L_class + β · L_dec + λ · MMD²_b(Z | A = 0, Z | A = 1)

    with L_class the cross-entropy of the classifier on Z, L_dec the squared error of the
    decoder k(Z, A) (only when β > 0) and MMD² the biased estimate between the two groups'
    rows of the minibatch (:func:`mmd2_and_grad`): the penalty of the variational fair
    autoencoder [LSLWZ16]_, here on a deterministic encoder. No adversary: the penalty is a
    closed-form two-sample statistic, so the training is a plain minimisation (compare
    :class:`~dpteach.fairness.laftr.LAFTR`, whose adversary has to be trained too).

    The Gaussian kernel's bandwidth matters: with a fixed σ the encoder could spread Z out
    until every kernel value between distinct rows is 0 (then MMD²_b = 1/m + 1/n whatever
    the groups). ``bandwidth="median"`` (the default) sets σ on each minibatch to the
    median distance between its rows (the "median heuristic" of the kernel two-sample
    literature [GBRSS12]_), treated as a constant in the gradient, so rescaling Z gains
    nothing. A minibatch without a row of both groups contributes no penalty.

    Parameters
    ----------
    alpha, beta, lam : float, defaults 1.0, 0.0, 3.0
        Weights of L_class, L_dec and MMD², each in [0, 1e6]. On Adult (30,162 training
        rows, 30 epochs; median-heuristic σ) λ = 0, 1, 3 gave held-out accuracy 0.839,
        0.838, 0.832, ΔDP 0.155, 0.147, 0.104 and a fresh adversary's balanced accuracy
        on Z of 0.81, 0.74, 0.61; λ = 10 collapsed the classifier to one class.
    latent_dim, hidden, activation, epochs, learning_rate, rng
        As for :class:`~dpteach.fairness.laftr.LAFTR` (``rng`` seeds the initialisation and
        the minibatch order).
    batch_size : int in [2, 4,000], default 128
    bandwidth : "median" or float in [:data:`MIN_BANDWIDTH`, :data:`MAX_BANDWIDTH`]

    Attributes
    ----------
    encoder_, classifier_, decoder_, groups_, classes_, n_features_in_
        As in :class:`~dpteach.fairness.representation.RepresentationClassifier`.
    history_ : pandas.DataFrame
        One row per epoch: ``class_loss`` and ``recon_loss`` on the whole training set,
        ``mmd2`` (biased, median-heuristic or given σ) between the two groups' codes on a
        fixed sample of at most 500 training rows per group, and ``objective`` = α ·
        class_loss + β · recon_loss + λ · mmd2.
    """

    _parameter_constraints = {
        "alpha": LOSS_WEIGHT, "beta": LOSS_WEIGHT, "lam": LOSS_WEIGHT, "latent_dim": WIDTH,
        "hidden": HIDDEN, "activation": ACTIVATION, "epochs": EPOCHS,
        "batch_size": integer(2, MAX_GRAD_ROWS, example=128), "learning_rate": LEARNING_RATE,
        "bandwidth": one_of(choice("median"), BANDWIDTH), "rng": RNG,
    }

    def __init__(self, alpha=1.0, beta=0.0, lam=3.0, latent_dim=8, hidden=(8,),
                 activation="leaky_relu", epochs=30, batch_size=128, learning_rate=1e-3,
                 bandwidth="median", rng=None):
        self.alpha = alpha
        self.beta = beta
        self.lam = lam
        self.latent_dim = latent_dim
        self.hidden = hidden
        self.activation = activation
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.bandwidth = bandwidth
        self.rng = rng

    @validate(X=FEATURES, y=BOTH_LABELS, sensitive_features=TWO_GROUPS)
    def fit(self, X, y, *, sensitive_features):
        """Train encoder, classifier (and decoder) on the rows (features scaled, e.g. to
        [0, 1]; both labels present)."""
        hp = validate_params(self, store=False)
        alpha, beta, lam = hp["alpha"], hp["beta"], hp["lam"]
        sigma_of = _median_bandwidth if hp["bandwidth"] == "median" else lambda Z: hp["bandwidth"]
        task_seed, batch_seed, sample_seed = (int(s) for s in
                                              hp["rng"].integers(0, 2**63 - 1, size=3))
        X, yc, ac = self._start_fit(X, y, sensitive_features, latent_dim=hp["latent_dim"],
                                    hidden=hp["hidden"], activation=hp["activation"], beta=beta,
                                    gen=np.random.default_rng(task_seed))
        codes = ac[:, 0].astype(np.intp)
        sample_gen = np.random.default_rng(sample_seed)
        sample = np.concatenate([
            sample_gen.choice(np.flatnonzero(codes == g),
                              size=min(500, int(np.sum(codes == g))), replace=False)
            for g in (0, 1)])
        batch_gen = np.random.default_rng(batch_seed)
        opt = Adam(self._model_params(), learning_rate=hp["learning_rate"])
        rows = []
        with np.errstate(over="ignore", under="ignore"), \
                threadpool_limits(limits=1, user_api="blas"):
            for epoch in range(hp["epochs"]):
                for idx in self._batches(X.shape[0], hp["batch_size"], batch_gen):
                    Xb, yb, ab = X[idx], yc[idx], ac[idx]
                    Z, enc_cache, gZ, grads, _, _ = self._task_step(Xb, yb, ab, alpha, beta)
                    cb = codes[idx]
                    if lam > 0 and 0 < cb.sum() < cb.size:
                        sigma = sigma_of(Z)
                        CK = _coefficients(cb, False) * _kernel(Z, Z, sigma)
                        Zc = Z - Z.mean(axis=0)
                        S = CK.sum(axis=1)[:, None] * Zc - CK @ Zc
                        gZ = gZ + (-2.0 * lam / sigma / sigma) * S
                    enc_grads, _ = self.encoder_._backward(enc_cache, gZ,
                                                           input_grad=False)
                    opt._step(enc_grads + grads)
                Z, L_class, L_dec = self._task_losses(X, yc, ac)
                Zs, cs = Z[sample], codes[sample]
                # the library's own σ (the median heuristic) may lie outside a student's domain
                value = mmd2.__wrapped__(Zs[cs == 0], Zs[cs == 1], bandwidth=sigma_of(Zs))
                rows.append({"epoch": epoch + 1, "class_loss": L_class, "recon_loss": L_dec,
                             "mmd2": value,
                             "objective": alpha * L_class + beta * L_dec + lam * value})
            self._finish_fit(rows)
        return self


# ------------------------------------------------------------------------------ helpers
def _kernel(X, Y, sigma):
    """exp(−‖x_i − y_j‖² / (2σ²)). The squared distances come from SciPy's ``cdist``, which
    sums the squared coordinate differences (no cancellation for far-off points, unlike
    ‖x‖² + ‖y‖² − 2x·y); σ divides twice, as in the gradient."""
    D = cdist(X, Y, "sqeuclidean")
    D /= sigma
    D /= sigma
    D *= -0.5
    return np.exp(D, out=D)


def _kernel_sum(X, Y, sigma):
    """Σ_{i,j} k(x_i, y_j), in blocks of rows (memory ≈ 16 MB)."""
    rows = max(1, _BLOCK // Y.shape[0])
    total = 0.0
    for start in range(0, X.shape[0], rows):
        total += float(_kernel(X[start:start + rows], Y, sigma).sum())
    return total


def _coefficients(codes, unbiased):
    """The symmetric matrix C with MMD² = Σ_ij C_ij K_ij (group 0 is "X", group 1 "Y")."""
    u = (codes == 0).astype(np.float64)
    v = 1.0 - u
    m, n = u.sum(), v.sum()
    if unbiased:
        C = (np.outer(u, u) / (m * (m - 1)) + np.outer(v, v) / (n * (n - 1))
             - (np.outer(u, v) + np.outer(v, u)) / (m * n))
        np.fill_diagonal(C, 0.0)
        return C
    w = u / m - v / n
    return np.outer(w, w)


def _median_bandwidth(Z):
    """The median heuristic: σ = median of the pairwise distances between distinct rows
    (1 when they all coincide)."""
    D = cdist(Z, Z, "euclidean")
    d = D[np.triu_indices(Z.shape[0], k=1)]
    med = float(np.median(d)) if d.size else 0.0
    return med if med > 0 else 1.0


def _check_columns(X, Y) -> None:
    if Y.shape[1] != X.shape[1]:
        raise refuse("Y", Y.shape, f"of X's {X.shape[1]} columns (shape)")
