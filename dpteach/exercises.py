"""Checks shared by the notebooks' exercises (the otter-grader test cells).

Many exercises ask a student to write, by hand, a function the library already has
(``expected_unique`` against :func:`dpteach.attacks.linkage.expected_fraction_unique`, the
exponential mechanism's probabilities against
:func:`dpteach.mechanisms.selection.exponential_mechanism_probabilities`, ...), and the check
compares the two. Without a further check the shortest passing answer is a call to the library
function itself. :func:`assert_own_work` is that check: it reads which names the student's
function (and every helper it calls from the same notebook) refers to, and fails with a
message that says which one gives the answer away.

It reads code, it does not run it: names are taken from the function's code objects
(``co_names``, nested functions and lambdas included) and resolved in the notebook's
namespace. A determined student can hide a call (``getattr`` with a built string, ``exec``);
the check is there to stop the accidental shortcut and to say so clearly, and the
instructor's hidden tests and reading remain the grade.
"""

from __future__ import annotations

import builtins
import html
import re
import types
from collections.abc import Callable, Iterator

from ._validation import Domain, refuse, validate

__all__ = ["assert_own_work", "names_used", "peak_memory_mib", "show_feedback_first"]

#: a package name such as "dpteach" or "sklearn.metrics"
DOTTED = r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*"
#: the student's function (a ``functools.partial`` or a bound method is unwrapped)
STUDENT_FUNCTION = Domain("a Python function (def or lambda)",
                          lambda name, value: _student_function(name, value),
                          bad=["not a function", None, 3, len])
EXERCISE = Domain("a string: how the message names the exercise",
                  lambda name, value: _text(name, value),
                  example="exercise 3", bad=[None, 3, b"exercise"])


@validate(func=STUDENT_FUNCTION)
def names_used(func: Callable) -> dict[str, object]:
    """Every global or attribute name ``func`` refers to, with what it resolves to.

    Includes the variables ``func`` closes over and the functions and modules among its
    default argument values (``def f(n, g=L.expected_fraction_unique)``), and follows,
    transitively, the plain
    Python functions it refers to that were defined in the same namespace (a notebook's
    other cells). An attribute name (``L.expected_fraction_unique`` gives ``L`` and
    ``expected_fraction_unique``) that is not also a global maps to ``None``.

    Returns
    -------
    dict
        name → the object it names in the function's globals or builtins (``None`` if
        none).
    """
    func = _unwrap(func)
    found: dict[str, object] = {}
    todo, seen = [func], set()
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        namespace = f.__globals__
        builtins = namespace.get("__builtins__", {})
        if isinstance(builtins, types.ModuleType):
            builtins = vars(builtins)
        names = [(n, namespace.get(n, builtins.get(n))) for n in _code_names(f.__code__)]
        names += [(n, c.cell_contents) for n, c in zip(f.__code__.co_freevars,
                                                       f.__closure__ or ()) if _has_contents(c)]
        defaults = list(f.__defaults__ or ()) + list((f.__kwdefaults__ or {}).values())
        names += [(getattr(d, "__name__", f"<default {i}>"), d) for i, d in enumerate(defaults)
                  if callable(d) or isinstance(d, types.ModuleType)]
        for name, obj in names:
            found.setdefault(name, obj)
            if isinstance(obj, types.FunctionType) and obj.__globals__ is func.__globals__:
                todo.append(obj)                       # a helper from the same notebook
    return found


@validate(func=STUDENT_FUNCTION, exercise=EXERCISE)
def assert_own_work(func: Callable, *answers, exercise: str = "this exercise") -> None:
    """Fail if ``func`` computes its result with one of ``answers``.

    Parameters
    ----------
    func : callable
        The student's function.
    *answers : callable or str
        A function that gives the answer away, matched by name (so that
        ``module.function`` is caught as well as an imported alias of it) and by
        identity; or a package name such as ``"dpteach"`` or ``"fairlearn"``, which
        matches every module, function and class from that package (constants, such as
        a tuple of orders imported from it, stay allowed).

    Raises
    ------
    AssertionError
        Naming the function, the name it used and what to do instead.
    ParameterError
        If no answer is given, or one is neither callable nor a dotted package name.
    """
    used = names_used.__wrapped__(func)
    name = getattr(_unwrap(func), "__name__", "your function")
    unusable = [a for a in answers
                if not (callable(a) or isinstance(a, str) and re.fullmatch(DOTTED, a))]
    if not answers or unusable:
        raise refuse("answers", answers, "one or more functions or package names ('dpteach')")
    for answer in answers:
        if isinstance(answer, str):
            for ref, obj in used.items():
                if _from_package(obj, answer):
                    verdict = (f"{name} uses {ref} from {answer}: {exercise} asks you to write "
                               f"this without {answer}; compute it with NumPy (or plain "
                               f"Python) instead")
                    raise AssertionError(verdict)
        else:
            target = _unwrap(answer)
            label = getattr(target, "__name__", repr(answer))
            for ref, obj in used.items():
                if ref == label or (obj is not None and obj is target):
                    verdict = (f"{name} calls {label}, the library function that gives the "
                               f"answer: {exercise} asks you to compute it yourself (compare "
                               f"the two outside {name} if you like)")
                    raise AssertionError(verdict)


def show_feedback_first() -> bool:
    """Show a failed exercise check as its tests' own messages, first and once.

    otter-grader shows a failed test case as ``Error at line N in test q1:``, then the
    test's source line (an ``assert`` with its message written as an f-string), then the
    message. In a notebook (the student edition's first cell calls this:
    ``scripts/build_student_editions.py``), this function tells IPython how to show otter's
    check results (what ``grader.check("q1")`` returns), as plain text and as HTML alike:
    one line per failed test case with its message (for an error other than a failed
    ``assert``: the error, then the test's line that raised it), then a tally such as
    ``q1 results: 0 of 1 test passed``. A check that passes is shown as otter shows it.
    Only the display changes: otter's results, the grades and the grading feedback files
    keep otter's messages.

    Returns
    -------
    bool
        Whether the display was installed (``False`` outside IPython, where there is
        nothing to install).
    """
    # IPython makes get_ipython a builtin in its shells (and kernels): no IPython import here
    shell = getattr(builtins, "get_ipython", lambda: None)()
    if shell is None:
        return False
    formatters = shell.display_formatter.formatters
    for mime, show in (("text/plain", lambda r, p, cycle: p.text(_feedback_text(r))),
                       ("text/html", _feedback_html)):
        formatters[mime].for_type_by_name(*_OTTER_RESULT, show)
    return True


def peak_memory_mib() -> float:
    """The largest resident memory of this process (a notebook's kernel) so far, in MiB.

    On Linux this is the high-water mark of the process's own address space (``VmHWM`` in
    ``/proc/self/status``), which starts afresh when the kernel is started. It is not
    ``resource.getrusage(...).ru_maxrss``: Linux carries that over from the parent through
    ``fork`` and ``execve``, so a kernel started by a large process (a test runner deep in
    a long run) would report its parent's peak. Elsewhere, ``ru_maxrss`` is the fallback.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024            # kB → MiB
    except OSError:
        pass
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024     # bytes or KiB


# ------------------------------------------------------------------------ helpers
def _code_names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:                       # nested functions, lambdas, classes
        if isinstance(const, types.CodeType):
            yield from _code_names(const)


def _has_contents(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:                                 # an empty cell
        return False
    return True


def _student_function(name: str, value):
    if isinstance(_unwrap(value), types.FunctionType):
        return value
    raise STUDENT_FUNCTION.refuse(name, value)


def _text(name: str, value):
    if isinstance(value, str):
        return value
    raise EXERCISE.refuse(name, value)


def _unwrap(func):
    while True:
        if isinstance(func, types.MethodType):
            func = func.__func__
        elif hasattr(func, "func") and hasattr(func, "args"):   # functools.partial
            func = func.func
        else:
            return func


def _from_package(obj: object, package: str) -> bool:
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
    elif callable(obj):
        name = getattr(obj, "__module__", None) or ""
    else:
        return False                                   # a constant (e.g. a tuple of orders)
    return name == package or name.startswith(package + ".")


# what grader.check returns: an otter TestFile (otter/test_files/abstract_test.py)
_OTTER_RESULT = ("otter.test_files.abstract_test", "TestFile")
# a failed exception-based test case's message, as ExceptionTestFile._generate_error_message
# writes it (otter-grader 7.0.0, otter/test_files/exception_test.py): the test's line that
# raised, then the error's type and message
_OTTER_FAILURE = re.compile(r"❌ Test case failed\nError at line \d+ in test [^\n]*:\n"
                            r"(?P<line>[^\n]*)\n(?P<kind>\w+): (?P<message>.*)", re.DOTALL)


def _failures(result) -> list[str] | None:
    """The failed test cases' messages, or None where otter's own display stays (all
    passed, or a message not in the format above)."""
    found = []
    for case in result.test_case_results:
        if case.passed:
            continue
        m = _OTTER_FAILURE.fullmatch(case.message or "")
        if m is None:
            return None
        text = m["message"].strip() or "a check failed (it has no message)"
        if m["kind"] != "AssertionError":          # the student's code raised: say where
            text = f"{m['kind']}: {text}"
            if not m["line"].strip().startswith("assert"):
                text += f"\n(raised by the test's line: {m['line'].strip()})"
        if case.test_case.failure_message:
            text += "\n" + case.test_case.failure_message
        found.append(text)
    return found or None


def _tally(result) -> str:
    n = len(result.test_case_results)
    passed = sum(case.passed for case in result.test_case_results)
    return f"{result.name} results: {passed} of {n} test{'s' if n != 1 else ''} passed"


def _feedback_text(result) -> str:
    failures = _failures(result)
    if failures is None:
        return repr(result)
    return "\n".join("❌ " + f.replace("\n", "\n   ") for f in failures) + "\n" + _tally(result)


def _feedback_html(result) -> str:
    failures = _failures(result)
    if failures is None:
        return result._repr_html_()
    shown = "".join(f"<p style='white-space: pre-wrap; margin: 0 0 0.4em 0'>❌ "
                    f"{html.escape(f)}</p>" for f in failures)
    return shown + f"<p style='color: #555'>{html.escape(_tally(result))}</p>"
