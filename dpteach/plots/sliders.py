"""A figure with sliders, that still shows when nothing moves them.

:func:`show_with_sliders` shows the figure at the sliders' starting values as a plain
output first — what a headless run, a preview on GitHub, a PDF and the course book show —
and then the same figure with its sliders (ipywidgets), which redraw it in a live notebook.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._validation import function, validate

__all__ = ["show_with_sliders"]


@validate(draw=function("a function of the controls' names that returns a matplotlib Figure"))
def show_with_sliders(draw: Callable[..., Any], **controls: Any) -> None:
    """Show ``draw(**defaults)`` as a plain figure, then the figure with sliders.

    Parameters
    ----------
    draw : callable
        Returns a matplotlib ``Figure`` for keyword arguments named like ``controls``
        (typically a ``dpteach.plots`` function or a small wrapper around one).
    **controls
        What ``ipywidgets.interactive`` accepts for each argument: a widget (e.g. a
        ``FloatLogSlider``), a ``(min, max, step)`` tuple, a list of options, or a fixed
        value wrapped in ``ipywidgets.fixed``. The widget's starting value is the default.

    Examples
    --------
    ``show_with_sliders(lambda epsilon: plot_privacy_loss(1.0, epsilon),
    epsilon=widgets.FloatLogSlider(value=1.0, min=-2, max=1))``
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    def redraw(**values):
        figure = draw(**values)
        display(figure)
        plt.close(figure)

    box = widgets.interactive(redraw, **controls)
    defaults = {k: v for k, v in box.kwargs.items()}
    figure = draw(**defaults)
    display(figure)                         # the default view, as a plain output
    plt.close(figure)
    display(box)
