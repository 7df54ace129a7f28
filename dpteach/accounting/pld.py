"""Privacy-loss-distribution (PLD) accounting, through Google's ``dp_accounting``.

The PLD of a mechanism is the distribution of its privacy loss
ln(P(o)/Q(o)) for o ∼ P; composing mechanisms convolves their PLDs, and δ(ε)
of the composition is read off exactly from the result ([SMM19]_, [KJH20]_).
``dp_accounting`` discretizes the loss on a grid of width
``value_discretization_interval`` and rounds *pessimistically*, so the ε it
reports is an upper bound that tightens as the interval shrinks ([DGKKM22]_).
It is tighter than RDP: for the subsampled Gaussian about 8 % lower ε for
a typical 15,000-step DP-SGD run, and several times lower for a few steps
(RDP's conversion to (ε, δ) is loose when little has been composed).

Neighbouring relation: add/remove one record, as for :class:`RDPAccountant`.

References
----------
.. [SMM19] D. Sommer, S. Meiser, E. Mohammadi. "Privacy loss classes: The
   central limit theorem in differential privacy." PoPETs 2019.
.. [KJH20] A. Koskela, J. Jälkö, A. Honkela. "Computing tight differential
   privacy guarantees using FFT." AISTATS 2020.
.. [DGKKM22] V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi.
   "Connect the Dots: Tighter Discrete Approximations of Privacy Loss
   Distributions." PoPETs 2022.
"""

from __future__ import annotations

from .._validation import check_delta, check_in_range, check_int, check_positive, check_probability
from .rdp import Step

__all__ = ["PLDAccountant"]


class PLDAccountant:
    """PLD accountant for (Poisson-subsampled) Gaussian steps; same API as RDPAccountant.

    A thin wrapper around ``dp_accounting.pld.PLDAccountant`` that composes
    ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), steps)``
    (or a plain ``GaussianDpEvent`` when q = 1).

    Parameters
    ----------
    value_discretization_interval : float, default 1e-4
        Grid width of the privacy-loss discretization, > 0. Smaller is tighter
        and slower (15,000 DP-SGD steps take ~0.3 s at 1e-4, ~0.04 s at 1e-3);
        the reported ε is an upper bound either way.

    Attributes
    ----------
    history : list of Step

    References
    ----------
    See the module docstring.
    """

    def __init__(self, value_discretization_interval: float = 1e-4):
        # imported here: dp_accounting takes ~0.5 s to import, and most users of
        # dpteach.accounting (and of dpteach.plots) never need the PLD.
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant

        self._dpa = dp_accounting
        self.value_discretization_interval = check_positive(
            "value_discretization_interval", value_discretization_interval)
        self._acc = pld_privacy_accountant.PLDAccountant(
            neighboring_relation=dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE,
            value_discretization_interval=self.value_discretization_interval)
        self.history: list[Step] = []
        self._nonempty = False

    def step(self, *, noise_multiplier: float, sample_rate: float, steps: int = 1) -> None:
        """Account for ``steps`` Poisson-subsampled Gaussian steps (q = 1: plain Gaussian)."""
        sigma = check_positive("noise_multiplier", noise_multiplier)
        q = check_probability("sample_rate", sample_rate)
        steps = check_int("steps", steps, minimum=1)
        if q > 0:
            dpa = self._dpa
            event = dpa.GaussianDpEvent(sigma)
            if q < 1:
                event = dpa.PoissonSampledDpEvent(q, event)
            self._acc.compose(dpa.SelfComposedDpEvent(event, steps))
            self._nonempty = True
        self.history.append(Step(sigma, q, steps))

    def compose_laplace(self, scale: float, sensitivity: float = 1.0, count: int = 1) -> None:
        """Account for ``count`` Laplace mechanisms with scale b and ℓ1 sensitivity Δ.

        Composes ``SelfComposedDpEvent(LaplaceDpEvent(b/Δ), count)``.
        """
        scale = check_positive("scale", scale)
        sensitivity = check_positive("sensitivity", sensitivity)
        count = check_int("count", count, minimum=1)
        self._acc.compose(self._dpa.SelfComposedDpEvent(
            self._dpa.LaplaceDpEvent(scale / sensitivity), count))
        self._nonempty = True

    def get_epsilon(self, delta: float) -> float:
        """ε such that everything composed so far is (ε, δ)-DP (upper bound)."""
        delta = check_delta("delta", delta, allow_zero=False)
        if not self._nonempty:
            return 0.0
        return max(float(self._acc.get_epsilon(delta)), 0.0)

    def get_delta(self, epsilon: float) -> float:
        """δ such that everything composed so far is (ε, δ)-DP (upper bound)."""
        epsilon = check_in_range("epsilon", epsilon, 0.0, float("inf"), high_inclusive=False)
        if not self._nonempty:
            return 0.0
        return min(max(float(self._acc.get_delta(epsilon)), 0.0), 1.0)

    def __repr__(self) -> str:
        return (f"PLDAccountant(value_discretization_interval="
                f"{self.value_discretization_interval}, {len(self.history)} step calls)")
