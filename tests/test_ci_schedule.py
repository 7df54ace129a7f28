"""How `make test` cuts the suite into units for its two xdist workers (tests/conftest.py)."""

from conftest import work_unit


def test_a_notebook_and_a_file_are_one_unit_each():
    cells = {work_unit(f"notebooks/01_differencing_attacks.ipynb::Cell {i}") for i in range(30)}
    assert cells == {"notebooks/01_differencing_attacks.ipynb"}
    tests = {work_unit("tests/test_domains.py::test_bad_values_are_refused_by_name[a-b-1]"),
             work_unit("tests/test_domains.py::test_the_walk_finds_the_library_modules")}
    assert tests == {"tests/test_domains.py"}


def test_each_student_edition_run_and_each_graded_notebook_is_a_unit_of_its_own():
    run = ("tests/notebooks/test_student_editions.py::"
           "test_student_edition_runs_and_every_check_says_not_done[{}.ipynb]")
    runs = {work_unit(run.format(n)) for n in ("00_a", "01_b")}
    assert len(runs) == 2
    # the edition's other tests stay with their file
    assert work_unit("tests/notebooks/test_student_editions.py::"
                     "test_every_master_has_a_student_edition") \
        == "tests/notebooks/test_student_editions.py"
    graded = {work_unit(f"tests/notebooks/test_grading.py::{t}[{n}]")
              for t in ("test_every_submission_gets_its_status_and_score", "test_the_notes_say_why")
              for n in ("01_differencing_attacks", "02_what_dp_promises")}
    assert graded == {"tests/notebooks/test_grading.py[01_differencing_attacks]",
                      "tests/notebooks/test_grading.py[02_what_dp_promises]"}
