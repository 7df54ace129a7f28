"""show_with_sliders: the default view as a plain figure, then the same figure with sliders."""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from dpteach.plots import sliders


def test_the_default_figure_is_shown_plainly_before_the_sliders(monkeypatch):
    shown, drawn = [], []

    def draw(epsilon):
        drawn.append(epsilon)
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, epsilon])
        return fig

    import IPython.display
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    sliders.show_with_sliders(draw, epsilon=widgets.FloatSlider(value=0.5, min=0.1, max=2))
    plain = [o for o in shown if isinstance(o, Figure)]
    boxes = [o for o in shown if isinstance(o, widgets.interactive)]
    # the plain figure is the default view, and it comes before the interactive box
    assert plain and boxes and shown.index(plain[-1]) < shown.index(boxes[0])
    assert plain[-1].axes[0].lines[0].get_ydata()[1] == 0.5
    assert drawn.count(0.5) >= 1 and not plt.get_fignums()       # every figure closed
    # moving the slider redraws with the new value
    boxes[0].children[0].value = 1.5
    assert drawn[-1] == 1.5
