"""Tests for dpteach.attacks.membership (LiRA, loss attack) and dpteach.attacks.roc (ROC tools,
the DP ceiling)."""

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score, roc_curve

from dpteach._validation import ParameterError
from dpteach.attacks import membership, roc
from dpteach.attacks.membership import (
    ShadowExperiment,
    cross_entropy_from_proba,
    lira_attack,
    lira_scores,
    logit_confidence,
    loss_attack,
    loss_threshold_attack,
    membership_matrix,
    run_shadow_experiment,
)
from dpteach.attacks.roc import dp_advantage_bound, dp_auc_bound, dp_roc_bound, roc_from_scores
from dpteach.datasets import load_mnist_5k
from dpteach.learning.dpsgd import DPSGDClassifier
from dpteach.mechanisms.noise import gaussian_delta

P_FAIL = 1e-6
Z = stats.norm.isf(P_FAIL / 2)   # ≈ 4.9 standard errors


# ------------------------------------------------------------------ ROC
def test_roc_tools_have_one_home():
    # one public name, one place: the ROC tools live in roc, and membership lists only its own
    for name in ("AttackResult", "roc_from_scores", "dp_roc_bound", "dp_advantage_bound",
                 "dp_auc_bound"):
        assert name in roc.__all__
        assert name not in membership.__all__


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_roc_matches_sklearn_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    n = 300
    labels = rng.random(n) < 0.4
    scores = np.round(rng.standard_normal(n) + labels, 1)            # many ties
    w = rng.uniform(0.1, 3.0, n)
    for weights in (None, w):
        res = roc_from_scores(scores, labels, sample_weight=weights)
        fpr, tpr, _ = roc_curve(labels, scores, sample_weight=weights, drop_intermediate=False)
        np.testing.assert_allclose(res.fpr, fpr, atol=1e-12)
        np.testing.assert_allclose(res.tpr, tpr, atol=1e-12)
        assert res.auc == pytest.approx(roc_auc_score(labels, scores, sample_weight=weights),
                                        abs=1e-12)
        assert res.advantage == pytest.approx(np.max(tpr - fpr), abs=1e-12)
        # TPR at low FPR: best TPR among points with FPR ≤ α (brute force over thresholds)
        for a in (0.01, 0.1):
            best = max(t for f, t in zip(fpr, tpr) if f <= a)
            assert res.tpr_at_fpr.get(a, None) in (None, pytest.approx(best))
    assert res.n_members == labels.sum() and res.n_nonmembers == (~labels).sum()


def test_roc_extremes():
    perfect = roc_from_scores([3.0, 2.0, 1.0, 0.0], [1, 1, 0, 0], low_fprs=(0.01,))
    assert perfect.auc == 1.0 and perfect.advantage == 1.0 and perfect.tpr_at_fpr[0.01] == 1.0
    wrong = roc_from_scores([0.0, 1.0], [1, 0])
    assert wrong.auc == 0.0 and wrong.advantage == 0.0
    tied = roc_from_scores(np.zeros(10), np.arange(10) % 2)
    assert tied.auc == 0.5 and tied.tpr_at_fpr[0.01] == 0.0


def test_loss_threshold_attack():
    mem, non = np.array([0.1, 0.2, 0.3, 2.0]), np.array([0.25, 1.0, 3.0])
    res = loss_threshold_attack(mem, non, threshold=0.3)
    ref = roc_from_scores(-np.r_[mem, non], [1] * 4 + [0] * 3)
    np.testing.assert_array_equal(res.tpr, ref.tpr)
    assert res.operating_point == (1 / 3, 3 / 4)
    # AUC = P(member loss < non-member loss) + ½ P(tie)  (Mann–Whitney)
    wins = np.mean([(m < o) + 0.5 * (m == o) for m in mem for o in non])
    assert res.auc == pytest.approx(wins)


# --------------------------------------------------------- confidences
def test_logit_confidence_closed_form_and_stability():
    proba = np.array([[0.7, 0.2, 0.1], [0.25, 0.25, 0.5], [1.0, 1e-20, 0.0]])
    y = np.array([0, 2, 0])
    phi = logit_confidence(proba, y)
    np.testing.assert_allclose(phi[:2], [math.log(0.7 / 0.3), 0.0], atol=1e-12)
    # 1 − p_y is taken as the sum of the other classes: 1e-20, not 0
    assert phi[2] == pytest.approx(-math.log(1e-20))
    np.testing.assert_allclose(cross_entropy_from_proba(proba, y), -np.log([0.7, 0.5, 1.0]))


def test_membership_matrix_is_fair_and_independent():
    m = membership_matrix(40, 500, rng=0)
    k = m.size
    assert abs(m.mean() - 0.5) < Z * math.sqrt(0.25 / k)
    # agreement of two different models' memberships ~ Binomial(N, 1/2)
    agree = np.mean(m[0] == m[1])
    assert abs(agree - 0.5) < Z * math.sqrt(0.25 / 500)


# ---------------------------------------------------------------- LiRA
def test_lira_scores_formula():
    rng = np.random.default_rng(3)
    S, N = 12, 6
    shadows = rng.standard_normal((S, N))
    member = rng.random((S, N)) < 0.5
    member[:2], member[2:4] = True, False                     # ≥ 2 of each per example
    phi = rng.standard_normal(N)
    on = lira_scores(phi, shadows, member, mode="online", fix_variance=False)
    off = lira_scores(phi, shadows, member, mode="offline", fix_variance=False)
    for i in range(N):
        x_in, x_out = shadows[member[:, i], i], shadows[~member[:, i], i]
        lr = (stats.norm.logpdf(phi[i], x_in.mean(), x_in.std(ddof=1))
              - stats.norm.logpdf(phi[i], x_out.mean(), x_out.std(ddof=1)))
        assert on[i] == pytest.approx(lr)
        assert off[i] == pytest.approx(stats.norm.logcdf(phi[i], x_out.mean(), x_out.std(ddof=1)))
    # fixed variance: one pooled within-example variance per world
    on_fixed = lira_scores(phi, shadows, member, mode="online", fix_variance=True)
    resid_in = np.concatenate([shadows[member[:, i], i] - shadows[member[:, i], i].mean()
                               for i in range(N)])
    df_in = member.sum() - N
    sd_in = math.sqrt(np.sum(resid_in ** 2) / df_in)
    mu_in0 = shadows[member[:, 0], 0].mean()
    x_out0 = shadows[~member[:, 0], 0]
    resid_out = np.concatenate([shadows[~member[:, i], i] - shadows[~member[:, i], i].mean()
                                for i in range(N)])
    sd_out = math.sqrt(np.sum(resid_out ** 2) / ((~member).sum() - N))
    assert on_fixed[0] == pytest.approx(stats.norm.logpdf(phi[0], mu_in0, sd_in)
                                        - stats.norm.logpdf(phi[0], x_out0.mean(), sd_out))


def test_lira_recovers_the_likelihood_ratio_test_on_synthetic_gaussians():
    """Examples of varying difficulty: LiRA ≈ the oracle test, a global threshold does worse.

    Example i has confidence N(μ_i, 1) when out and N(μ_i + Δ, 1) when in, with
    μ_i ~ N(0, 3²). The oracle (per-example) likelihood-ratio test has
    AUC Φ(Δ/√2); thresholding φ globally only reaches Φ(Δ/√(2(1 + 9))).
    """
    rng = np.random.default_rng(4)
    M, N, delta = 64, 2000, 1.0
    mu = 3.0 * rng.standard_normal(N)
    member = membership_matrix(M, N, rng)
    conf = mu + delta * member + rng.standard_normal((M, N))
    exp = ShadowExperiment(membership=member, confidences=conf, losses=-conf,
                           train_accuracy=np.ones(M), test_accuracy=np.ones(M),
                           epsilons=np.full(M, np.inf))
    lira = lira_attack(exp, targets=[0, 1, 2, 3], mode="online")
    offline = lira_attack(exp, targets=[0, 1, 2, 3], mode="offline")
    glob = loss_attack(exp, targets=[0, 1, 2, 3])
    oracle, naive = stats.norm.cdf(delta / math.sqrt(2)), stats.norm.cdf(delta / math.sqrt(20))
    # AUC standard error ≤ sqrt(AUC(1−AUC)/min(#members, #non-members)) (Hanley & McNeil 1982);
    # 4 targets × ≈1000 per class. Estimating μ_in, μ_out from ≈31 shadows each adds noise of
    # sd ≈ 1/√31 ≈ 0.18 to the statistic, lowering the AUC by ≈ 0.005; we allow 0.02.
    se = math.sqrt(0.25 / (4 * 900))
    assert oracle - 0.02 - Z * se < lira.auc < oracle + Z * se
    assert oracle - 0.02 - Z * se < offline.auc < oracle + Z * se
    assert abs(glob.auc - naive) < Z * se
    # at FPR = 1%: the oracle reaches Φ(Φ⁻¹(0.01) + Δ) ≈ 0.092, any global threshold
    # only Φ(Φ⁻¹(0.01) + Δ/√10) ≈ 0.022 (out ~ N(0, 10), in ~ N(Δ, 10) exactly).
    # The estimate has two error sources (≈3600 members and ≈3600 non-members): the
    # TPR at a fixed threshold, sd ≤ sqrt(0.1·0.9/3600), and the empirical 1% quantile
    # of the non-members, FPR sd sqrt(0.01·0.99/3600), times the ROC slope there
    # (φ(z + Δ/√10)/φ(z) ≈ 1.7 < 3 at z = Φ⁻¹(0.01)).
    tpr_naive = stats.norm.cdf(stats.norm.ppf(0.01) + delta / math.sqrt(10))
    tpr_sd = math.sqrt(0.1 * 0.9 / 3600 + 3 ** 2 * 0.01 * 0.99 / 3600)
    assert abs(glob.tpr_at_fpr[0.01] - tpr_naive) < Z * tpr_sd
    assert lira.tpr_at_fpr[0.01] > tpr_naive + Z * tpr_sd


def test_run_shadow_experiment_with_sklearn_estimator():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((120, 3))
    y = (X[:, 0] + 0.5 * rng.standard_normal(120) > 0).astype(int)
    exp = run_shadow_experiment(LogisticRegression(), X, y, n_models=4, rng=0)
    assert exp.confidences.shape == exp.losses.shape == exp.membership.shape == (4, 120)
    assert np.all((exp.train_accuracy > 0.6) & (exp.test_accuracy > 0.6))
    assert np.all(np.isnan(exp.epsilons))
    # a model's loss is −log p_y and its confidence log(p_y / (1 − p_y)) for the same p_y
    p = np.exp(-exp.losses)
    np.testing.assert_allclose(exp.confidences, np.log(p / (1 - p)), rtol=1e-6)
    res = lira_attack(exp, mode="offline")
    assert 0.0 <= res.auc <= 1.0


def test_pooled_roc_averages_the_targets_with_equal_weight():
    """Pooling targets: at every threshold, TPR = mean_m TPR_m and FPR = mean_m FPR_m."""
    rng = np.random.default_rng(6)
    M, N = 3, 40
    member = np.zeros((M, N), dtype=bool)
    member[0, :4] = True                    # very unbalanced targets: 4, 20 and 36 members
    member[1, :20] = True
    member[2, :36] = True
    losses = rng.exponential(1.0, (M, N)) - 0.5 * member
    exp = ShadowExperiment(membership=member, confidences=-losses, losses=losses,
                           train_accuracy=np.ones(M), test_accuracy=np.ones(M),
                           epsilons=np.full(M, np.inf))
    res = loss_attack(exp)
    for t, fpr, tpr in zip(res.thresholds[1:], res.fpr[1:], res.tpr[1:]):
        called = -losses >= t
        tprs = [called[m][member[m]].mean() for m in range(M)]
        fprs = [called[m][~member[m]].mean() for m in range(M)]
        assert tpr == pytest.approx(np.mean(tprs), abs=1e-12)
        assert fpr == pytest.approx(np.mean(fprs), abs=1e-12)


# ------------------------------------------------------------ DP ceiling
def test_dp_roc_bound_shape():
    eps, d = 1.0, 1e-3
    f = np.linspace(0, 1, 10001)
    b = dp_roc_bound(f, eps, d)
    assert b[0] == pytest.approx(d) and b[-1] == 1.0
    assert np.all(np.diff(b) >= 0) and np.all(b >= f - 1e-15)
    # symmetric region: if (f, b(f)) is feasible, so is (1 − b(f), 1 − f)
    assert np.all(1 - f <= dp_roc_bound(np.clip(1 - b, 0, 1), eps, d) + 1e-12)
    # without the symmetric condition only the first line (capped at 1) remains
    np.testing.assert_allclose(dp_roc_bound(f, eps, d, symmetric=False),
                               np.minimum(1, math.e * f + d))
    assert dp_advantage_bound(eps, d) == pytest.approx(np.max(b - f), abs=1e-4)
    assert dp_advantage_bound(eps) == pytest.approx(math.tanh(eps / 2))      # δ = 0
    assert dp_auc_bound(eps, d) == pytest.approx(np.trapezoid(b, f), abs=1e-7)
    # at the smallest ε of the teaching domain, 1e-6, the attacker is at chance
    assert dp_auc_bound(1e-6) == pytest.approx(math.exp(1e-6) / (1 + math.exp(1e-6)), abs=1e-15)
    assert dp_advantage_bound(1e-6) == pytest.approx(math.tanh(5e-7), rel=1e-9)
    assert isinstance(dp_roc_bound(0.5, 1.0), float)


def test_dp_bounds_at_the_top_of_the_domain():
    # e^ε overflows from ε ≈ 709.8 on, inside the domain (ε ≤ 1000): the bounds are then 1,
    # and e^ε·FPR is evaluated in log space: 5e-324·e^700 ≈ 5e-20, far from 1
    for eps in (700.0, 800.0, 1000.0):
        assert dp_advantage_bound(eps) == 1.0
        assert dp_auc_bound(eps) == pytest.approx(1.0, abs=1e-12)
        assert dp_roc_bound(0.0, eps) == 0.0 and dp_roc_bound(1e-3, eps) == 1.0
    assert dp_roc_bound(5e-324, 700.0, symmetric=False) == pytest.approx(
        math.exp(700.0 + math.log(5e-324)), rel=1e-9)
    f = np.array([0.0, 5e-324, 1e-310, 1e-300, 1e-200, 0.5, 1.0])
    for eps in (699.0, 700.0, 745.0, 1000.0):
        b = dp_roc_bound(f, eps)
        assert np.all(np.diff(b) >= 0) and b[0] == 0.0 and b[-1] == 1.0


def test_weights_at_the_top_of_the_domain_and_scaled_by_powers_of_two():
    ref = roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0])
    res = roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0], sample_weight=[1e15] * 4)
    np.testing.assert_array_equal(res.tpr, ref.tpr)
    assert res.auc == ref.auc
    w = np.array([0.3, 1.7, 2.9, 0.01])
    a = roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0], sample_weight=w)
    b = roc_from_scores([1.0, 2.0, 3.0, 4.0], [1, 0, 1, 0], sample_weight=w * 2.0**-600)
    np.testing.assert_array_equal(a.tpr, b.tpr)
    np.testing.assert_array_equal(a.fpr, b.fpr)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_gaussian_mechanism_roc_touches_the_bound(sigma, eps):
    """The exact ROC of N(0,σ²) vs N(1,σ²) is Φ(Φ⁻¹(FPR) + 1/σ) (Dong, Roth & Su 2022).

    With δ = δ(ε) of the exact Gaussian (Balle & Wang 2018, Thm 8) the ROC stays
    below e^ε·FPR + δ and touches it: δ(ε) is exactly that line's tightest intercept.
    """
    d = gaussian_delta(sigma, 1.0, eps)
    f = np.logspace(-12, 0, 20001)
    roc = stats.norm.cdf(stats.norm.ppf(f) + 1.0 / sigma)
    gap = dp_roc_bound(f, eps, d) - roc
    assert gap.min() > -1e-9
    assert gap.min() < 1e-4


# ------------------------------------------------------- real models
@pytest.fixture(scope="module")
def mnist_in_out():
    X, y = load_mnist_5k(scale=True)
    X = X.reshape(-1, 14, 2, 14, 2).mean(axis=(2, 4)).reshape(-1, 196)     # 14×14 pixels
    perm = np.random.default_rng(0).permutation(len(X))
    X, y = X[perm], y[perm]
    return X[:500], y[:500], X[500:1000], y[500:1000]


def _loss_attack_on(clf, Xin, yin, Xout, yout):
    return loss_threshold_attack(cross_entropy_from_proba(clf.predict_proba(Xin), yin),
                                 cross_entropy_from_proba(clf.predict_proba(Xout), yout))


def test_attack_succeeds_on_overfit_model_and_not_on_private_one(mnist_in_out):
    Xin, yin, Xout, yout = mnist_in_out
    n = len(Xin)
    # Under "no membership signal" the AUC is a Mann–Whitney U with sd
    # sqrt((n+m+1)/(12nm)), and the advantage is the two-sample Kolmogorov–Smirnov
    # statistic with P(D > t) ≤ 2 exp(−2t² nm/(n+m)) (DKW / Massart).
    auc_se = math.sqrt((2 * n + 1) / (12 * n * n))
    ks_t = math.sqrt(math.log(2 / P_FAIL) / n)                       # nm/(n+m) = n/2
    overfit = DPSGDClassifier(noise_multiplier=0.0, max_grad_norm=None, batch_size=32,
                              epochs=40, hidden=(128,), rng=0).fit(Xin, yin)
    assert overfit.score(Xin, yin) == 1.0
    attack = _loss_attack_on(overfit, Xin, yin, Xout, yout)
    assert attack.auc > 0.5 + Z * auc_se
    assert attack.advantage > ks_t

    private = DPSGDClassifier(target_epsilon=0.5, batch_size=128, epochs=10, learning_rate=1.0,
                              hidden=(128,), rng=0).fit(Xin, yin)
    assert private.epsilon_ <= 0.5
    attack_dp = _loss_attack_on(private, Xin, yin, Xout, yout)
    # the theorem: every ROC point lies under the (ε, δ) ceiling, up to sampling error.
    # DKW: each of the two empirical rates (members, non-members) is within
    # t = sqrt(ln(4/α)/(2n)) of the truth for all thresholds simultaneously with
    # prob. ≥ 1 − α/2 (union bound: both with prob. ≥ 1 − α), so TPR̂ ≤ bound(FPR̂ + t) + t.
    t = math.sqrt(math.log(4 / P_FAIL) / (2 * n))
    ceiling = dp_roc_bound(np.minimum(attack_dp.fpr + t, 1), private.epsilon_, private.delta_)
    assert np.all(attack_dp.tpr <= ceiling + t)
    assert attack_dp.advantage <= dp_advantage_bound(private.epsilon_, private.delta_) + 2 * t
    # and in practice, at ε = 0.5 this attack is indistinguishable from guessing
    assert abs(attack_dp.auc - 0.5) < Z * auc_se
    assert attack_dp.advantage < ks_t


# ------------------------------------------------------- rules between arguments
# Each argument alone is checked against its declared domain by tests/test_domains.py;
# these rules tie an argument to another one, or to the data.
def test_rules_between_arguments_are_refused_by_name():
    for scores, labels in (([1.0, 2.0], [1, 1]), ([1.0, 2.0, 3.0], [1, 0])):
        with pytest.raises(ParameterError, match="is_member"):     # one class; one per score
            roc_from_scores(scores, labels)
    with pytest.raises(ParameterError, match="sample_weight"):     # no weight on non-members
        roc_from_scores([1.0, 2.0], [1, 0], sample_weight=[1.0, 0.0])
    with pytest.raises(ParameterError, match="shadow_membership"):
        lira_scores([0.0], [[0.0], [1.0]], [[True]])
    with pytest.raises(ParameterError, match="shadow_membership"):  # no "out" shadow
        lira_scores([0.0], [[0.0], [1.0]], [[True], [True]])
    with pytest.raises(ParameterError, match="shadow_membership"):  # 2 was once read as True
        lira_scores([0.0], [[0.0], [1.0]], [[2], [0]])
    # offline LiRA needs "out" shadows only
    assert lira_scores([0.0], [[0.0], [1.0]], [[False], [False]], mode="offline").shape == (1,)
    with pytest.raises(ParameterError, match="y"):
        logit_confidence([[0.5, 0.5]], [2])
    with pytest.raises(ParameterError, match=r"n_examples must be ≤ 3,125"):  # 64·3,125 = 200,000
        membership_matrix(64, 10**4)
    exp = ShadowExperiment(membership=np.array([[True, False], [False, True]]),
                           confidences=np.zeros((2, 2)), losses=np.zeros((2, 2)),
                           train_accuracy=np.ones(2), test_accuracy=np.ones(2),
                           epsilons=np.ones(2))
    for bad in ([5], [0, 0]):
        with pytest.raises(ParameterError, match="targets"):
            loss_attack(exp, targets=bad)
    with pytest.raises(ParameterError, match="experiment"):
        lira_attack(ShadowExperiment(exp.membership[:1], exp.confidences[:1], exp.losses[:1],
                                     np.ones(1), np.ones(1), np.ones(1)))
    X = np.random.default_rng(0).standard_normal((20, 2))
    y = np.arange(20) % 2
    with pytest.raises(ParameterError, match="y"):
        run_shadow_experiment(LogisticRegression(), X, y[:5])
    # 64 models · N rows ≤ 200,000
    with pytest.raises(ParameterError, match=r"X.shape must be \(N, d\), 2 ≤ N ≤ 3,125"):
        run_shadow_experiment(LogisticRegression(), np.zeros((5000, 1)), np.arange(5000) % 2,
                              n_models=64)


# ---------------------------------------------------------------- plots
def test_plot_mia_roc_draws_curves_and_ceiling():
    from dpteach.plots.dpsgd import plot_mia_roc

    rng = np.random.default_rng(6)
    lab = rng.random(400) < 0.5
    res = roc_from_scores(rng.standard_normal(400) + lab, lab, name="toy")
    fig = plot_mia_roc([res], epsilon=[1.0, 4.0], delta=1e-5)
    ax = fig.axes[0]
    gids = {line.get_gid(): line for line in ax.lines}
    assert {"chance", "roc-0", "dp-bound-1", "dp-bound-4"} <= set(gids)
    x, yb = gids["dp-bound-1"].get_data()
    np.testing.assert_allclose(yb, dp_roc_bound(x, 1.0, 1e-5))
    assert ax.get_xscale() == "log" and "δ = 1e-05" in ax.get_title()
    lin = plot_mia_roc(res, log=False).axes[0]
    np.testing.assert_array_equal(lin.lines[-1].get_xdata(), res.fpr)
    with pytest.raises(TypeError, match="results"):
        plot_mia_roc([1, 2])
    with pytest.raises(ValueError, match="epsilon"):
        plot_mia_roc(res, epsilon=-1.0)
