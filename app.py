"""dpteach instructor app: page navigation only.

Run it with ``make app`` (http://localhost:8501) or
``streamlit run app.py``.

Adding a page
-------------
1. Write ``dpapp/<name>.py`` with a function ``render()`` that draws the page (widgets,
   numbers from the dpteach math modules, figures from ``dpteach.plots``). Use the app's
   helpers: the ``bound_*`` widgets and ``log_slider``/``epsilon_slider``/``delta_slider``
   of ``dpapp/widgets.py`` (their values live in the address, so a copied link reopens
   the same view; keys unique across pages), ``secondary()`` for controls a lecture can
   fold away and ``tradeoff()`` for the page's trade-off in one sentence
   (``dpapp/frame.py``), ``show_chart`` for the charts, each with a
   "Download this figure" button (``dpapp/charts.py``), and ``friendly_errors``
   (``dpapp/messages.py``). Optionally a module-level ``PRESETS`` dict (name → widget
   key → value): the lesson's prepared views, offered above the page; and a module-level
   ``NOTEBOOK`` (the file stem of the notebook the page goes with, e.g.
   ``"04_laplace_and_gaussian"``), named in one caption line under the bar.
2. Add ONE line to ``PAGES`` below: ``(title, module, icon)``. The URL of the page is the
   last part of the module name with ``_`` replaced by ``-`` (``dpapp.many_queries`` →
   ``/many-queries``), except for the first page, which Streamlit serves at ``/`` only
   (``/noise-calibration`` shows "Page not found" over it).
3. Add a test in ``tests/app/test_<name>.py`` (see ``tests/app/test_basics.py``);
   ``tests/app/test_url_state.py`` and ``tests/browser/test_browser_classroom.py`` cover
   every page of ``PAGES`` (links, presets, presentation mode) by themselves.

The first entry of ``PAGES`` is the page shown at ``/``. Every page runs inside the
classroom bar (``dpapp.frame.classroom_frame``): presentation mode (``?present=true``),
the page's presets and "Share this view".
"""

from __future__ import annotations

import importlib

import streamlit as st

from dpapp.frame import classroom_frame, presentation_requested
from dpapp.memory import freeze_long_lived_objects

PAGES = [
    # (title in the navigation bar, module exposing render(), icon: an emoji or a Material
    #  Symbol ":material/<name>:", which renders offline with Streamlit's own font)
    ("Noise calibration", "dpapp.noise_calibration", ":material/straighten:"),
    ("Randomized response", "dpapp.randomized_response", ":material/casino:"),
    ("Composition & budget", "dpapp.composition", ":material/stacked_line_chart:"),
    ("DP-SGD planner", "dpapp.dpsgd_planner", ":material/calculate:"),
    ("DP-SGD playground", "dpapp.dpsgd_playground", ":material/model_training:"),
    ("Private logistic regression", "dpapp.private_lr", ":material/show_chart:"),
    ("PATE votes", "dpapp.pate_votes", ":material/how_to_vote:"),
    ("Fairness metrics", "dpapp.fairness_metrics", ":material/balance:"),
    ("Fair representations", "dpapp.fair_representations", ":material/diversity_3:"),
    ("Many queries", "dpapp.many_queries", ":material/query_stats:"),
    ("Audit a mechanism", "dpapp.audit_mechanism", ":material/fact_check:"),
    ("Reconstruction attack", "dpapp.reconstruction_attack", ":material/lock_open:"),
]


#: The pages by course part (the library's folders), for presentation mode's page menu;
#: every title of PAGES once.
PARTS = {
    "Mechanisms": ("Noise calibration", "Randomized response"),
    "Accounting": ("Composition & budget", "DP-SGD planner"),
    "Learning": ("DP-SGD playground", "Private logistic regression", "PATE votes"),
    "Fairness": ("Fairness metrics", "Fair representations"),
    "Queries & attacks": ("Many queries", "Audit a mechanism", "Reconstruction attack"),
}


def _page(title: str, module: str, icon: str, default: bool) -> st.Page:
    """The page whose ``render()`` is in ``module``, imported when it is first shown: a
    server starts by importing only the page it opens on (every page at start-up took the
    first page from about 2 s to 4 s once twelve pages existed; benchmarks/README.md)."""

    def render() -> None:
        importlib.import_module(module).render()

    url_path = module.rsplit(".", 1)[-1].replace("_", "-")
    return st.Page(render, title=title, icon=icon, url_path=url_path, default=default)


#: title → the page's module (for its PRESETS)
MODULES = {title: module for title, module, _ in PAGES}


# Navigation at the top: the pages get the full width of the screen, which makes
# the figures larger on a projector. In presentation mode Streamlit's top bar (which folds
# all but a few pages behind "N more") is hidden and the frame draws every page as a link,
# grouped by course part (dpapp.frame.page_menu): any page in one click.
st.set_page_config(page_title="dpteach: differential privacy, live",
                   page_icon=":material/shield_lock:", layout="wide")
pages = {title: _page(title, module, icon, default=(i == 0))
         for i, (title, module, icon) in enumerate(PAGES)}
navigation = st.navigation(list(pages.values()),
                           position="hidden" if presentation_requested() else "top")
# The page inside the classroom bar: presentation mode, the page's presets, "Share this view",
# and the notebook it goes with.
page_module = importlib.import_module(MODULES[navigation.title])
classroom_frame(navigation.run, presets=getattr(page_module, "PRESETS", {}),
                url_path=navigation.url_path, notebook=getattr(page_module, "NOTEBOOK", None),
                menu={part: [pages[title] for title in titles] for part, titles in PARTS.items()})
# Modules imported by this run (a page shown for the first time): take the long-lived
# objects out of the garbage collector's full passes (see freeze_long_lived_objects).
freeze_long_lived_objects()
