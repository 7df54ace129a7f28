"""Tests of dpteach.mechanisms.l2_laplace at the ends of its teaching domain.

The distribution itself (the norm is Gamma(d, 1/β), the direction uniform and independent
of it, one dimension is the Laplace distribution) is tested with the private ERM that uses
it: tests/learning/test_erm.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpteach._validation import ParameterError
from dpteach.mechanisms import l2_laplace as l2


def test_size_times_dim_is_bounded():
    # the result holds size × dim doubles: at most 10**7 (80 MB)
    with pytest.raises(ParameterError,
                       match=r"size must be ≤ 10,000 with dim=1000 \(size·dim ≤ 1e7\); "
                             r"got size=10001"):
        l2.sample_l2_laplace(1000, 1.0, size=10_001, rng=0)
    assert l2.sample_l2_laplace(1000, 1.0, size=10, rng=0).shape == (10, 1000)


@pytest.mark.parametrize("beta", [1e-15, 1.0, 1e15])
def test_ends_of_beta(beta):
    # mean norm d/β, from 3e15 down to 3e-15: finite, and the sampler's mean matches it
    # within 5 SE (the norm is Gamma(d, 1/β): sd √d/β; 2,000 draws)
    dist = l2.l2_laplace_norm_distribution(3, beta)
    assert dist.mean() == pytest.approx(3 / beta, rel=1e-14)
    norms = np.linalg.norm(l2.sample_l2_laplace(3, beta, size=2000, rng=1), axis=1)
    assert np.all(np.isfinite(norms))
    assert abs(norms.mean() - 3 / beta) <= 5 * np.sqrt(3) / beta / np.sqrt(2000)
