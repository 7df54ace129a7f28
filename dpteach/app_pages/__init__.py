"""Streamlit pages of the instructor app (``app.py``). One module per page,
each exposing ``render()``; they compute through the math modules of dpteach."""
