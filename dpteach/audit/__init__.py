"""Auditing: testing a privacy claim from samples of a mechanism's output.

A proof says "this mechanism is ε-DP"; an *audit* runs it many times on two neighbouring
datasets and turns the counts of an output event into a certified **lower bound** on ε.
An audit can refute a claim, never prove one.

* :mod:`~dpteach.audit.bounds` — the bounds: Clopper–Pearson, ε from (δ, counts), μ-GDP,
  and the number of runs an audit needs;
* :mod:`~dpteach.audit.runs` — the auditor: runs a mechanism, chooses a test on half the
  runs and certifies the bound on the other half;
* :mod:`~dpteach.audit.one_run` — the one-run audit of Steinke, Nasr and Jagielski (2023);
* :mod:`~dpteach.audit.cases` — every audited mechanism of dpteach on neighbouring inputs,
  with its claim and its exact true ε;
* :mod:`~dpteach.audit.bugs` — planted bugs (never to be used on data).
"""

from .bounds import epsilon_lower_bound, gdp_mu_lower_bound
from .cases import AuditCase, audit_case
from .one_run import one_run_audit, one_run_audit_bound
from .runs import AuditResult, audit_mechanism

__all__ = [
    "epsilon_lower_bound", "gdp_mu_lower_bound", "AuditResult", "audit_mechanism",
    "one_run_audit", "one_run_audit_bound", "AuditCase", "audit_case",
]
