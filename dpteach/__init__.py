"""dpteach: a course kit for differential privacy in machine learning.

Import the topic modules directly, e.g. ``from dpteach import mechanisms``.
"""

__version__ = "0.1.0"
