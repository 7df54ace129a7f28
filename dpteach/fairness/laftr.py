"""LAFTR: learning adversarially fair and transferable representations.

Madras, Creager, Pitassi and Zemel [MCPZ18]_ learn a representation Z = f(X) of people on
which a classifier g predicts the label Y well while an *adversary* h, looking at Z, cannot
tell the groups of the sensitive attribute A apart. Four small networks (MLPs of
:class:`~dpteach.learning.network.Network`):

* encoder  f: X → Z;
* classifier g: Z → logit P(Y = 1);
* decoder  k: (Z, A) → X̃ (used when β > 0: it keeps Z informative about X, which is what
  makes the representation *transferable* to other tasks);
* adversary h: Z → P(A = 1) for demographic parity, (Z, Y) → P(A = 1) for equalized odds
  and equal opportunity,

play the min-max game

    min_{f, g, k} max_h  α·L_class(g∘f) + β·L_dec(k∘f) − γ·L_adv(h∘f),

where L_class is the cross-entropy of g, L_dec the squared reconstruction error of k (mean
over rows of ‖x̃ − x‖², summed over features) and L_adv the adversary's **group-normalised
L1 loss** [MCPZ18]_ (their L_Adv is a constant minus it):

* ``objective="dp"``:   L_adv = Σ_{a∈{0,1}} mean_{A=a} |h(z) − a|;
* ``objective="eo"``:   L_adv = Σ_{(a,y)∈{0,1}²} mean_{A=a,Y=y} |h(z, y) − a|;
* ``objective="eopp"``: L_adv = Σ_{a∈{0,1}} mean_{A=a,Y=0} |h(z, y) − a| — the Y = 0 cells
  only, the equal opportunity of [MCPZ18]_ and of
  :func:`~dpteach.fairness.metrics.laftr_equal_opportunity_difference` (their experiments
  treat Y = 0 as the advantaged outcome).

Each group (or cell) counts equally, however small. This is what ties the game to the
fairness gaps: because |h − a| is h for a = 0 and 1 − h for a = 1, the DP loss is
``1 − (mean_{A=1} h − mean_{A=0} h)``, one minus the demographic-parity gap of the soft
classifier h; so an encoder that keeps *every* adversary's loss near 1 leaves every
classifier on Z with a small parity gap ([MCPZ18]_ bound ΔDP of any classifier on Z by
the optimal adversary's objective; the EO and EOpp losses bound ΔEO and ΔEOpp likewise).

Training alternates, on each minibatch, one Adam step [KB15]_ of (f, g, k) on the whole
objective with the adversary fixed, and ``adversary_steps`` Adam steps of h with the encoder
fixed (Z recomputed after the encoder's step). On a minibatch L_adv is estimated without
bias by weighting each row with 1 / P(its group or cell) — the training set's proportions —
so that a batch need not contain every group, as in the authors' code.

Where this differs from the paper and the authors' code
-------------------------------------------------------
* **The adversary's own steps minimise the group-weighted cross-entropy**
  (``adversary_loss="cross_entropy"``), not the L1 loss: both have the same minimising hard
  adversary, but the L1 gradient, sign(h − a)·h(1 − h), vanishes when the sigmoid
  saturates, and with it the adversary went constant on Adult and ΔDP did not fall.
* **A stronger, faster adversary and a shorter memory**: 32 hidden units, learning rate
  1e-2, 3 steps per batch, and Adam's β₁ = 0.5 for both players; with the authors' slower
  adversary ΔDP on Adult varied widely from seed to seed.
* **30 epochs of batches of 128**, the last epoch kept, instead of 1,000 epochs of 64 with
  the epoch picked by validation loss.
* The paper's Adult results train a fresh classifier on the frozen Z; :meth:`LAFTR.predict`
  uses the jointly trained g, and :func:`fair_transfer` is the frozen-encoder protocol.

:func:`adversary_accuracy` trains a *fresh* adversary on Z (the one inside the game may be
weaker than a new one). :func:`dpteach.tables.load_gamma_sweep` reads the shipped γ sweep on
Adult; :func:`gamma_sweep_row` refits one of its rows. The measurements behind these
choices and the sweep's results: docs/library/fairness.md.

References
----------
.. [MCPZ18] D. Madras, E. Creager, T. Pitassi and R. Zemel. Learning adversarially fair
   and transferable representations. ICML 2018, PMLR vol. 80 (the model, the
   adversarial objectives for DP, EO and EOpp, the Adult experiments and fair transfer).
.. [KB15] D. P. Kingma and J. Ba. Adam: a method for stochastic optimization. ICLR 2015,
   Algorithm 1.
"""

from __future__ import annotations

import functools
import time

import numpy as np
from threadpoolctl import threadpool_limits

from .._validation import RNG, choice, documented, integer, real, refuse, validate, validate_params
from ..learning.network import Network
from ..learning.optim import Adam, group_normalized_l1
from ._rows import check_same_length, fitted_group_codes, sigmoid
from .metrics import BOTH_LABELS, GROUP_LABELS, LABELS, TWO_GROUPS
from .representation import (ACTIVATION, BATCH_SIZE, EPOCHS, FEATURES, HIDDEN, LEARNING_RATE,
                             LOSS_WEIGHT, WIDTH, RepresentationClassifier)
from .representation_eval import AdversaryScore, FairTransfer, adversary_accuracy, fair_transfer

__all__ = [
    "OBJECTIVES",
    "MAX_ADVERSARY_STEPS",
    "ADVERSARY_LOSSES",
    "SWEEP_SETTINGS",
    "SWEEP_GAMMAS",
    "SWEEP_SEEDS",
    "SWEEP_COLUMNS",
    "LAFTR",
    "AdversaryScore",
    "adversary_accuracy",
    "FairTransfer",
    "fair_transfer",
    "gamma_sweep_row",
]

#: The adversarial objectives: demographic parity, equalized odds, equal opportunity (Y = 0).
OBJECTIVES = ("dp", "eo", "eopp")
#: Largest number of adversary steps per minibatch.
MAX_ADVERSARY_STEPS = 100
#: What the adversary's own steps minimise (see :class:`LAFTR`'s ``adversary_loss``).
ADVERSARY_LOSSES = ("cross_entropy", "l1")


# ------------------------------------------------------------------------ the model
@documented
class LAFTR(RepresentationClassifier):
    """Adversarially fair representation and classifier [MCPZ18]_ (see the module docstring).

    Parameters
    ----------
    objective : {"dp", "eo", "eopp"}, default "dp"
        Which gap the adversary attacks: demographic parity (h sees Z), equalized odds
        (h sees Z and Y; four (A, Y) cells), equal opportunity on Y = 0 (h sees Z and Y;
        only the Y = 0 rows count).
    alpha, beta, gamma : float, defaults 1.0, 0.0, 1.0
        Weights of L_class, L_dec and L_adv, each in [0, 1e6]. ``gamma=0``: the adversary
        still trains (its loss is in ``history_``) but never feeds back: the unfair model.
    latent_dim : int, default 8
        Width of Z (1 … 1024).
    hidden : tuple of int, default (8,)
        Hidden-layer widths of encoder, classifier and decoder (at most 8 layers of
        1 … 1024).
    activation : {"leaky_relu", "relu", "tanh"}, default "leaky_relu"
    epochs, batch_size : int, defaults 30, 128
        Passes over the training rows (1 … 1,000), and rows per Adam step (1 … 100,000).
    learning_rate : float, default 1e-3
        Adam's step size for encoder, classifier and decoder, in [1e-6, 1].
    adam_beta1 : float in [0, 1), default 0.5
        Adam's β₁ (momentum) for both players (the module docstring says why not 0.9).
    adversary_hidden, adversary_learning_rate : default (32,), 1e-2
        The adversary's hidden widths and Adam step size (None: those of the encoder).
    adversary_steps : int, default 3
        Adam steps of the adversary after each step of the encoder (0 … 100; 0 leaves the
        adversary at its initialisation: with ``gamma=0`` an MLP classifier with no
        adversary at all).
    adversary_loss : {"cross_entropy", "l1"}, default "cross_entropy"
        What the adversary's steps minimise: the group-weighted cross-entropy, or the
        group-normalised L1 loss itself (the encoder always plays against the L1 loss; see
        the module docstring).
    rng : None, int or numpy.random.Generator
        Seeds the initialisation of the four networks and the minibatch order (from
        independent streams, so a fit with ``gamma=0`` gives the same encoder and classifier
        for every objective and number of adversary steps).

    Attributes
    ----------
    encoder_, classifier_, adversary_ : dpteach.learning.network.Network
    decoder_ : Network or None
        Only when ``beta > 0``.
    groups_ : ndarray of shape (2,)
        The two values of ``sensitive_features`` (sorted); ``groups_[1]`` is A = 1.
    classes_ : ndarray ``[0, 1]``
    n_features_in_ : int
    history_ : pandas.DataFrame
        One row per epoch, on the whole training set after the epoch: ``class_loss``
        (cross-entropy), ``recon_loss`` (0 without decoder), ``adv_loss`` (the exact
        group-normalised L1 loss of the objective), ``objective`` = α·class_loss +
        β·recon_loss − γ·adv_loss, and ``adv_balanced_accuracy`` of the game's adversary
        (on the rows its loss counts).
    fit_seconds_ : float
        Wall-clock time of :meth:`fit`.

    Examples
    --------
    >>> import numpy as np
    >>> from dpteach.fairness.laftr import LAFTR
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400); X = np.c_[a + rng.normal(0, .5, 400), rng.normal(size=400)]
    >>> y = (X[:, 1] + .5 * a > .3).astype(int)
    >>> model = LAFTR(objective="dp", gamma=2.0, epochs=5, rng=0).fit(X, y, sensitive_features=a)
    >>> model.transform(X[:3]).shape
    (3, 8)
    """

    _parameter_constraints = {
        "objective": choice(*OBJECTIVES), "alpha": LOSS_WEIGHT, "beta": LOSS_WEIGHT,
        "gamma": LOSS_WEIGHT, "latent_dim": WIDTH, "hidden": HIDDEN, "activation": ACTIVATION,
        "epochs": EPOCHS, "batch_size": BATCH_SIZE, "learning_rate": LEARNING_RATE,
        "adam_beta1": real(0.0, 1.0, high_open=True, example=0.5),
        "adversary_hidden": HIDDEN.or_none(), "adversary_learning_rate": LEARNING_RATE.or_none(),
        "adversary_steps": integer(0, MAX_ADVERSARY_STEPS, example=3),
        "adversary_loss": choice(*ADVERSARY_LOSSES), "rng": RNG,
    }

    def __init__(self, objective="dp", alpha=1.0, beta=0.0, gamma=1.0, latent_dim=8,
                 hidden=(8,), activation="leaky_relu", epochs=30, batch_size=128,
                 learning_rate=1e-3, adam_beta1=0.5, adversary_hidden=(32,),
                 adversary_learning_rate=1e-2, adversary_steps=3,
                 adversary_loss="cross_entropy", rng=None):
        self.objective = objective
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.latent_dim = latent_dim
        self.hidden = hidden
        self.activation = activation
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.adam_beta1 = adam_beta1
        self.adversary_hidden = adversary_hidden
        self.adversary_learning_rate = adversary_learning_rate
        self.adversary_steps = adversary_steps
        self.adversary_loss = adversary_loss
        self.rng = rng

    # --------------------------------------------------------------------- the game
    def _adversary_setup(self, y, a):
        """Per-row weights of the adversary's loss (1/P(cell), 0 for unused rows) and the
        cell of each row, for the chosen objective."""
        y0, a0 = y[:, 0], a[:, 0]
        if self.objective == "dp":
            cells = a0.astype(np.intp)
            used = np.ones(y0.shape[0], dtype=bool)
        else:
            cells = (2 * a0 + y0).astype(np.intp)                 # 0: (0,0) 1: (0,1) ...
            used = np.ones(y0.shape[0], dtype=bool) if self.objective == "eo" else y0 == 0
        counts = np.bincount(cells[used], minlength=4)
        needed = np.unique(cells[used])
        names = {0: "A=0, Y=0", 1: "A=0, Y=1", 2: "A=1, Y=0", 3: "A=1, Y=1"}
        if self.objective != "dp":
            for c in ((0, 2) if self.objective == "eopp" else (0, 1, 2, 3)):
                if counts[c] == 0:
                    raise refuse("sensitive_features", f"no {names[c]}", "groups filling each cell")
        n = y0.shape[0]
        weights = np.zeros(n)
        for c in needed:
            rows = used & (cells == c)
            weights[rows] = n / rows.sum()                       # 1 / P(cell)
        return weights[:, None], cells, used

    def _adversary_input(self, Z, y):
        return Z if self.objective == "dp" else np.hstack([Z, y])

    @validate(X=FEATURES, y=BOTH_LABELS, sensitive_features=TWO_GROUPS)
    def fit(self, X, y, *, sensitive_features):
        """Play the game on the training rows (features scaled, e.g. to [0, 1]).

        ``sensitive_features`` needs, for ``"eo"``, rows in every (A, Y) cell and, for
        ``"eopp"``, both groups among the Y = 0 rows.
        """
        start = time.perf_counter()
        hp = validate_params(self, store=False)
        objective, alpha, beta, gamma = (hp[n] for n in ("objective", "alpha", "beta", "gamma"))
        k, hidden, activation = hp["latent_dim"], hp["hidden"], hp["activation"]
        lr = hp["learning_rate"]
        adv_hidden = hidden if hp["adversary_hidden"] is None else hp["adversary_hidden"]
        adv_lr = lr if hp["adversary_learning_rate"] is None else hp["adversary_learning_rate"]
        adv_steps, use_ce = hp["adversary_steps"], hp["adversary_loss"] == "cross_entropy"
        # independent streams: networks (task, adversary) and minibatch order
        task_seed, adv_seed, batch_seed = (int(s) for s in
                                           hp["rng"].integers(0, 2**63 - 1, size=3))
        X, yc, ac = self._start_fit(X, y, sensitive_features, latent_dim=k, hidden=hidden,
                                    activation=activation, beta=beta,
                                    gen=np.random.default_rng(task_seed))
        weights, cells, used = self._adversary_setup(yc, ac)
        adv_in = k + (0 if objective == "dp" else 1)
        self.adversary_ = Network((adv_in, *adv_hidden, 1), activation, rng=adv_seed)
        batch_gen = np.random.default_rng(batch_seed)
        model_opt = Adam(self._model_params(), learning_rate=lr, beta1=hp["adam_beta1"])
        adv_opt = Adam(self.adversary_.params, learning_rate=adv_lr, beta1=hp["adam_beta1"])
        sign = 1.0 - 2.0 * ac                 # d|p − a|/dp for p in (0, 1): +1 (a=0), −1 (a=1)
        rows = []
        with np.errstate(over="ignore", under="ignore"), \
                threadpool_limits(limits=1, user_api="blas"):
            for epoch in range(hp["epochs"]):
                for idx in self._batches(X.shape[0], hp["batch_size"], batch_gen):
                    Xb, yb, ab = X[idx], yc[idx], ac[idx]
                    wb = weights[idx] * sign[idx] / idx.shape[0]   # ∂L_adv/∂p per row
                    cw = weights[idx] / idx.shape[0]    # weights of the adversary's CE
                    Z, enc_cache, gZ, grads, _, _ = self._task_step(Xb, yb, ab, alpha, beta)
                    if gamma > 0:
                        p_logit, adv_cache = self.adversary_._forward(
                            self._adversary_input(Z, yb))
                        p = sigmoid(p_logit)
                        g_logit = (-gamma) * wb * p * (1.0 - p)     # the encoder maximises
                        _, gH = self.adversary_._backward(adv_cache, g_logit)
                        gZ = gZ + gH[:, :k]
                    enc_grads, _ = self.encoder_._backward(enc_cache, gZ,
                                                           input_grad=False)
                    model_opt._step(enc_grads + grads)
                    if adv_steps:
                        Z = self.encoder_._forward(Xb)[0]
                        H = self._adversary_input(Z, yb)
                        for _ in range(adv_steps):
                            p_logit, adv_cache = self.adversary_._forward(H)
                            p = sigmoid(p_logit)
                            g_logit = (cw * (p - ab)) if use_ce else wb * p * (1.0 - p)
                            adv_grads, _ = self.adversary_._backward(
                                adv_cache, g_logit,
                                input_grad=False)
                            adv_opt._step(adv_grads)
                rows.append(self._epoch_losses(epoch + 1, X, yc, ac, cells, used,
                                               alpha, beta, gamma))
            self._finish_fit(rows)
        self.fit_seconds_ = time.perf_counter() - start
        return self

    def _epoch_losses(self, epoch, X, y, a, cells, used, alpha, beta, gamma):
        Z, L_class, L_dec = self._task_losses(X, y, a)
        H = self._adversary_input(Z, y)
        p = sigmoid(self._chunked(self.adversary_, H)[:, 0])
        L_adv = group_normalized_l1(p[used], a[used, 0], cells[used])[0]
        pred = p[used] > 0.5
        truth = a[used, 0] == 1
        tpr = np.mean(pred[truth]) if truth.any() else 0.0
        tnr = np.mean(~pred[~truth]) if (~truth).any() else 0.0
        return {"epoch": epoch, "class_loss": L_class, "recon_loss": L_dec,
                "adv_loss": L_adv, "objective": alpha * L_class + beta * L_dec - gamma * L_adv,
                "adv_balanced_accuracy": float(0.5 * (tpr + tnr))}

    @validate(X=FEATURES, y=LABELS, sensitive_features=GROUP_LABELS)
    def adv_loss(self, X, y, *, sensitive_features) -> float:
        """The game's adversary's group-normalised L1 loss on other rows (e.g. held out).

        ``y`` is read by the adversary of ``"eo"``/``"eopp"``; ``sensitive_features`` holds
        values among ``groups_``, every group (cell) of the objective present. In [0, 2] for
        ``"dp"`` and ``"eopp"``, [0, 4] for ``"eo"``; 1 (resp. 2) is a coin flip.
        """
        X = self._check_columns(X)
        check_same_length(X=X, y=y, sensitive_features=sensitive_features.codes)
        a = fitted_group_codes(self.groups_, sensitive_features).astype(np.float64)[:, None]
        yf = y[:, None]
        _, cells, used = self._adversary_setup(yf, a)
        for g in (0, 1):
            if not np.any(a[used, 0] == g):
                raise refuse("sensitive_features", f"no group {g} counted", "labels of both groups")
        p = sigmoid(self._chunked(self.adversary_,
                                   self._adversary_input(self._encode(X), yf))[:, 0])
        return group_normalized_l1(p[used], a[used, 0], cells[used])[0]


# ------------------------------------------------------------------ the shipped γ sweep
#: The settings every fit of the sweep shares (γ, the objective and the seed vary).
SWEEP_SETTINGS = {"alpha": 1.0, "beta": 0.0, "latent_dim": 8, "hidden": (8,),
                  "activation": "leaky_relu", "epochs": 30, "batch_size": 128,
                  "learning_rate": 1e-3, "adam_beta1": 0.5, "adversary_hidden": (32,),
                  "adversary_learning_rate": 1e-2, "adversary_steps": 3,
                  "adversary_loss": "cross_entropy"}
#: The γ values of the sweep (0: the adversary trains but does not feed back).
SWEEP_GAMMAS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: The seeds of the sweep (``rng`` of each fit and of its fresh adversary).
SWEEP_SEEDS = (0, 1, 2)
#: The columns of the shipped file, in order.
SWEEP_COLUMNS = ("objective", "gamma", "seed", "accuracy", "dp_gap", "eo_gap", "eopp_gap",
                 "eopp_gap_y1", "selection_rate_female", "selection_rate_male",
                 "tpr_female", "tpr_male", "fpr_female", "fpr_male",
                 "adversary_balanced_accuracy", "fit_seconds")


@functools.cache
def _adult():
    from ..datasets import adult_arrays
    arr = adult_arrays(include_sex=False)
    tr = arr.split == "train"
    return arr.X[tr], arr.y[tr], arr.sex[tr], arr.X[~tr], arr.y[~tr], arr.sex[~tr]


@validate(objective=choice(*OBJECTIVES, "unfair"), gamma=LOSS_WEIGHT,
          seed=integer(0, 2**32 - 1, example=0))
def gamma_sweep_row(objective, gamma, seed) -> dict:
    """Fit and score one model of the shipped γ sweep, exactly as the sweep was made.

    ``LAFTR(objective, gamma=gamma, **SWEEP_SETTINGS, rng=seed)`` is fitted on Adult's
    training split (:func:`dpteach.datasets.adult_arrays` without ``sex`` among the
    features: 30,162 rows, 102 features; A = sex, 1 = Female) and scored on the 15,060
    held-out rows. ``objective="unfair"`` is the baseline: the same encoder and classifier
    with ``gamma=0`` (required) and ``adversary_steps=0`` (no adversary at all).

    Returns a dict of the columns :data:`SWEEP_COLUMNS`: accuracy, the gaps (``dp_gap``,
    ``eo_gap`` = ΔTPR + ΔFPR, ``eopp_gap`` on Y = 0 as [MCPZ18]_, ``eopp_gap_y1`` on Y = 1),
    the per-group selection rate, TPR and FPR, the balanced accuracy of a fresh adversary
    (:func:`adversary_accuracy` with ``rng=seed``) predicting sex from the held-out rows' Z,
    and the fit's wall-clock seconds.
    """
    from .metrics import (
        demographic_parity_difference,
        equal_opportunity_difference,
        equalized_odds_sum,
        group_table,
        laftr_equal_opportunity_difference,
    )

    if objective == "unfair" and gamma != 0:
        raise refuse("gamma", gamma, "0 for the unfair baseline")
    X, y, a, X_test, y_test, a_test = _adult()
    settings = dict(SWEEP_SETTINGS)
    if objective == "unfair":
        settings["adversary_steps"] = 0
    model = LAFTR(objective="dp" if objective == "unfair" else objective, gamma=gamma,
                  **settings, rng=seed).fit(X, y, sensitive_features=a)
    pred = model.predict(X_test)
    kw = {"sensitive_features": a_test}
    table = group_table(y_test, pred, **kw)
    adv = adversary_accuracy(model.transform(X_test), a_test, rng=seed)
    row = {"objective": objective, "gamma": gamma, "seed": seed,
           "accuracy": float(np.mean(pred == y_test)),
           "dp_gap": demographic_parity_difference(y_test, pred, **kw),
           "eo_gap": equalized_odds_sum(y_test, pred, **kw),
           "eopp_gap": laftr_equal_opportunity_difference(y_test, pred, **kw),
           "eopp_gap_y1": equal_opportunity_difference(y_test, pred, **kw)}
    for rate, column in (("selection_rate", "selection_rate"), ("tpr", "true_positive_rate"),
                         ("fpr", "false_positive_rate")):
        row[f"{rate}_female"] = float(table.loc[1, column])
        row[f"{rate}_male"] = float(table.loc[0, column])
    row["adversary_balanced_accuracy"] = adv.balanced_accuracy
    row["fit_seconds"] = model.fit_seconds_
    return row

