"""Attacks: why anonymisation and aggregation fail, and what differential privacy buys.

* :mod:`~dpteach.attacks.linkage` — re-identification by linking quasi-identifiers;
* :mod:`~dpteach.attacks.kanonymity` — k-anonymity (Mondrian) and the attacks that break it;
* :mod:`~dpteach.attacks.differencing` — differencing attacks on aggregates;
* :mod:`~dpteach.attacks.reconstruction` — Dinur–Nissim reconstruction from noisy sums;
* :mod:`~dpteach.attacks.tracing` — tracing a person in released means;
* :mod:`~dpteach.attacks.membership` — membership inference (loss threshold, shadow models,
  LiRA);
* :mod:`~dpteach.attacks.roc` — ROC curves of an attack and the ceiling DP puts on them;
* :mod:`~dpteach.attacks.floating_point` — Mironov's attack on floating-point Laplace noise.
"""
