"""Fairness in machine learning: definitions, individual fairness and fair representations.

One module per idea:

* :mod:`~dpteach.fairness.metrics` — group rates and the gaps of the common group-fairness
  definitions (demographic parity, equalized odds in each convention, equal opportunity,
  calibration within groups), with fairlearn's names where fairlearn has the metric, and the
  measures of Zemel et al. (2013): yAcc, yDiscrim, yNN (consistency);
* :mod:`~dpteach.fairness.awareness` — fairness through awareness (Dwork et al. 2012): the
  loss-minimising randomized mapping under a Lipschitz condition, as a linear program;
  :mod:`~dpteach.fairness.awareness_parity` — when it implies statistical parity (the
  Earthmover bound) and the demonstration on Adult;
* :mod:`~dpteach.fairness.lfr` — Learning Fair Representations (Zemel et al. 2013);
* :mod:`~dpteach.fairness.lfr_grid` — how the shipped A_z sweep of LFR on Adult and German
  credit was made (read by :func:`dpteach.tables.load_lfr_grid`);
* :mod:`~dpteach.fairness.mmd` — the maximum mean discrepancy (Gretton et al. 2012) and an
  MMD-regularised representation (the VFAE idea, Louizos et al. 2016), a non-adversarial baseline;
* :mod:`~dpteach.fairness.laftr` — adversarially fair and transferable representations (Madras et
  al. 2018) for demographic parity, equalized odds and equal opportunity, and how the shipped
  γ sweep on Adult was made (read by :func:`dpteach.tables.load_gamma_sweep`);
* :mod:`~dpteach.fairness.representation` — what the learned representations share: their
  teaching domains and the scikit-learn base class;
  :mod:`~dpteach.fairness.representation_eval` — judging a representation: a fresh
  adversary's accuracy at predicting the group from Z, and fair transfer to a task the
  encoder never saw;
* :mod:`~dpteach.fairness.dp_impact` — who pays for differential privacy (Bagdasaryan et al.
  2019): per-group accuracy of DP-SGD and objective perturbation across ε on Adult (the
  shipped sweep: :func:`dpteach.tables.load_dp_fairness_sweep`);
  :mod:`~dpteach.fairness.dp_diagnostics` — why: per-group gradient norms and clipping,
  objective-perturbation noise against the margin, membership advantage per group.

Nothing is re-exported here: import from the modules.
"""
