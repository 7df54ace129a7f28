"""Sphinx configuration of the course book (scripts/build_book.py copies it next to the
chapters it prepares; `make book` builds the site into build/book/)."""

project = "dpteach: differential privacy and fairness in ML"
author = "the dpteach authors"
copyright = "the dpteach authors, MIT licence"

extensions = [
    "myst_nb",                  # notebooks as chapters, MyST Markdown pages
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",   # MathJax 3 copied into the site: math without a network
]

# the chapters arrive executed (one run per notebook, cached by scripts/build_book.py):
# MyST-NB only reads them
nb_execution_mode = "off"
# no widget manager from a CDN: the widgets' outputs are replaced by a note in the chapter
nb_ipywidgets_js = {}
# a warning a cell printed stays in the chapter (the browser test fails on one)
nb_output_stderr = "show"
nb_merge_streams = True

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

exclude_patterns = ["_build", "**.ipynb_checkpoints"]
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

html_theme = "sphinx_book_theme"
html_title = "dpteach: the course book"
html_static_path = ["_static"]
html_css_files = ["book.css"]
html_last_updated_fmt = None
# an explicit colour mode: without one the theme logs "invalid theme mode" in the console
html_context = {"default_mode": "auto"}
html_theme_options = {
    "repository_url": "https://github.com/dpteach-course/dpteach",
    "use_repository_button": True,
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "navigation_with_keys": False,
}
# the theme's download button offers each chapter's notebook (the student edition, executed)
html_copy_source = True
html_show_sourcelink = False
