# Two commands do all the set-up: `make app` / `make lab` run the course,
# `make test` runs every test. Each creates and reuses .venv by itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8501

.PHONY: app lab student grade book render test test-fast clean venv

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "dpteach needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: $(BIN)/python requirements.txt pyproject.toml
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.test: $(VENV)/.runtime requirements-test.txt
	$(BIN)/pip install --quiet -r requirements-test.txt
	touch $@

$(VENV)/.book: $(VENV)/.runtime requirements-book.txt
	$(BIN)/pip install --quiet -r requirements-book.txt
	touch $@

venv: $(VENV)/.runtime

# MALLOC_ARENA_MAX=2: glibc gives every thread that allocates its own memory arena and keeps
# what they free; the app runs each session's script in a thread, and after a class of 30 the
# server held 1.19-1.24x its one-session memory, 1.09x with two arenas (benchmarks/README.md)
app: $(VENV)/.runtime      ## the Streamlit app on http://localhost:8501
	MALLOC_ARENA_MAX=2 $(BIN)/streamlit run app.py --server.port $(PORT) --server.headless true

# Jupyter refuses to run as root unless told to (containers, WSL as root)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(VENV)/.runtime      ## JupyterLab on notebooks/
	$(BIN)/jupyter lab notebooks/ $(ROOT_FLAG)

# the student editions (solutions and hidden tests removed by otter assign) into student/
student: $(VENV)/.runtime  ## student/: the notebooks as students get them (docs/exercises.md)
	$(BIN)/python scripts/build_student_editions.py

# a class's submissions: every file in SUBMISSIONS graded against ASSIGNMENT's autograder
# (public and hidden tests, a time limit each) -> $(OUT)/grades.csv and $(OUT)/feedback/
OUT ?= grades
grade: $(VENV)/.runtime    ## make grade ASSIGNMENT=01_differencing_attacks SUBMISSIONS=folder [OUT=grades]
	@test -n "$(ASSIGNMENT)" -a -n "$(SUBMISSIONS)" || { echo "usage: make grade ASSIGNMENT=<notebook> SUBMISSIONS=<folder> [OUT=grades] [TIME_LIMIT=seconds]"; exit 2; }
	$(BIN)/python scripts/grade_class.py "$(ASSIGNMENT)" "$(SUBMISSIONS)" --out "$(OUT)" $(if $(TIME_LIMIT),--time-limit $(TIME_LIMIT),)


# the course book: every notebook executed once (cached in build/book-cache/), as students get
# it, into a static site that reads offline (scripts/build_book.py, docs/book/)
book: $(VENV)/.book        ## the course book, a static site, into build/book/
	$(BIN)/python scripts/build_book.py

# every master (or NOTEBOOKS="00_why_anonymization_fails 03_randomized_response") executed
# headless, a time limit per cell, into build/render/<name>.html without its check cells;
# fails if a cell errors (scripts/render_notebooks.py)
render: $(VENV)/.runtime   ## make render [NOTEBOOKS="00_why_anonymization_fails 03_randomized_response"]
	$(BIN)/python scripts/render_notebooks.py $(NOTEBOOKS)

test: $(VENV)/.test $(VENV)/.book  ## every test: the library's doctests, unit, statistical, notebooks, app, browser
	@bash scripts/ensure-chromium.sh
	$(BIN)/python -m pytest -q --doctest-modules dpteach
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --nbval-lax --nbval-cell-timeout=120 tests notebooks

test-fast: $(VENV)/.test   ## library tests only
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder tests -m "not browser"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
