"""dpteach: a course kit for differential privacy and fairness in machine learning.

One folder per part of the course, one module per idea; import from the module you would
open to read the algorithm, e.g. ``from dpteach.mechanisms.noise import laplace_mechanism``.

=================  ==========================================================================
``attacks``        why anonymisation and aggregation fail: linkage, k-anonymity, differencing,
                   reconstruction, tracing, membership inference, floating point
``mechanisms``     adding noise (Laplace, Gaussian), randomized response, private selection,
                   the sparse vector technique, stability (subsample-and-aggregate, PTR)
``exact``          floating-point-safe noise: exact discrete samplers, snapping, secure
                   Laplace and Gaussian mechanisms
``accounting``     composition and privacy accounting: RDP, zCDP, privacy-loss distributions
``queries``        answering many queries: linear queries, independent noise, PMW and MWEM
``learning``       private learning: logistic regression (ERM), a small network, DP-SGD
``pate``           PATE: teachers, noisy aggregators, answer laws, privacy analysis, release
``fairness``       fairness: definitions and metrics, awareness, fair representations, who
                   pays for DP
``audit``          testing a privacy claim: bounds, audit runs, one-run audits, cases, bugs
``plots``          the figures of the notebooks and the app
``datasets``       the shipped data (Adult, German credit, MNIST subset) and toy generators
``tables``         the shipped precomputed results
``exercises``      the notebooks' own-work check
=================  ==========================================================================
"""

__version__ = "0.1.0"
