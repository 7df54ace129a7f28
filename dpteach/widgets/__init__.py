"""ipywidgets front ends for the notebooks; they call dpteach.plots."""
