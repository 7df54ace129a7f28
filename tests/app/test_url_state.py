"""AppTest tests of the app in a lecture hall: links, presets, presentation mode, downloads.

Every page of ``app.py``'s ``PAGES`` is run inside the classroom bar
(:func:`dpapp.frame.classroom_frame`, what app.py does), so new pages are
covered as soon as they are listed:

* its widgets are bound to the address, with keys unique across the pages;
* a link (query parameters) restores every value, and a value the widget cannot take
  falls back to the default with a friendly note, never an exception;
* each preset sets its widgets, is highlighted, and its "Share this view" link reopens
  the same view in a fresh session;
* presentation mode renders the page (larger charts, secondary controls folded) with no
  exception or error element;
* every chart has a "Download this figure" button.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpapp import charts as app_charts
from dpapp import frame, widgets

from dpteach import _validation
from dpteach.plots.figure import FONT_SIZES, FigureData, Series, to_matplotlib, to_vega_lite

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120        # seconds per run: the machine is shared; a run normally takes < 2 s


def _pages() -> list[tuple[str, str, str]]:
    """(title, module, url path) of every page in app.py's PAGES (read without running it)."""
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(ast.literal_eval(n.value) for n in tree.body
                 if isinstance(n, ast.Assign) and [t.id for t in n.targets] == ["PAGES"])
    return [(title, module, "" if i == 0 else module.rsplit(".", 1)[-1].replace("_", "-"))
            for i, (title, module, _) in enumerate(pages)]


PAGES = _pages()
IDS = [module.rsplit(".", 1)[-1] for _, module, _ in PAGES]


def _framed_script(module: str, url_path: str) -> None:
    """One page inside the classroom bar, as app.py runs it."""
    import importlib

    from dpapp.frame import classroom_frame

    page = importlib.import_module(module)
    classroom_frame(page.render, presets=getattr(page, "PRESETS", {}), url_path=url_path,
                    notebook=getattr(page, "NOTEBOOK", None))


def framed(module: str, url_path: str = "x", query: dict | None = None) -> AppTest:
    at = AppTest.from_function(_framed_script, kwargs={"module": module, "url_path": url_path},
                               default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def assert_no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def view(at: AppTest) -> dict:
    """Bound widget key → (value, text in the address or None) of the last run."""
    return dict(at.session_state[widgets.VIEW_KEY])


BOUND_KINDS = ("select_slider", "slider", "radio", "selectbox", "toggle", "number_input")


def widget(at: AppTest, key: str):
    for kind in BOUND_KINDS:
        for w in getattr(at, kind):
            if w.key == key:
                return w
    raise KeyError(key)


def notes(at: AppTest) -> list[str]:
    return [i.value for i in at.info if "The link sets" in i.value]


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


# ------------------------------------------------------------------------ bound widgets
def test_every_page_binds_every_control_with_a_key_no_other_page_uses():
    owner: dict[str, str] = {}
    for title, module, path in PAGES:
        at = framed(module, path)
        assert_no_errors(at)
        bound = set(view(at)) - {frame.PRESENT_KEY}
        assert bound, f"{title}: no control is bound to the address"
        # every keyed control on the page is in the address (the preset pills are not:
        # the widgets they set are)
        keyed = {w.key for kind in BOUND_KINDS for w in getattr(at, kind)
                 if w.key and w.key != frame.PRESENT_KEY}
        assert keyed <= bound, f"{title}: not bound to the address: {sorted(keyed - bound)}"
        for key in bound:
            assert key.lower() not in ("embed", "embed_options"), key
            assert key not in owner, f"key {key!r} is used by {owner.get(key)} and {title}"
            owner[key] = title


def test_a_link_restores_each_kind_of_control():
    query = {"epsilon": "0.1", "delta": "0 (pure DP)", "sensitivity": "2",
             "view": "Privacy loss", "present": "true"}
    at = framed("dpapp.noise_calibration", "", query)
    assert_no_errors(at)
    assert not notes(at)
    assert at.select_slider(key="epsilon").value == 0.1
    assert at.select_slider(key="delta").value == 0.0
    assert at.select_slider(key="sensitivity").value == 2.0
    assert at.radio(key="view").value == "Privacy loss"
    assert at.toggle(key="present").value is True
    assert "ε = 0.1" in " ".join(charts(at)[0]["title"]["text"])

    at = framed("dpapp.randomized_response", "randomized-response",
                {"rr_parametrisation": "ε (privacy loss)", "rr_epsilon": "0.3",
                 "rr_n": "100000", "rr_rate": "0.42"})
    assert_no_errors(at)
    assert at.select_slider(key="rr_epsilon").value == 0.3
    assert at.select_slider(key="rr_n").value == 100_000
    assert at.slider(key="rr_rate").value == pytest.approx(0.42)

    at = framed("dpapp.composition", "composition",
                {"mechanism": "Gaussian (σ per query)", "sigma0": "2", "with_pld": "false"})
    assert_no_errors(at)
    assert at.select_slider(key="sigma0").value == 2.0
    assert at.toggle(key="with_pld").value is False

    at = framed("dpapp.private_lr", "private-lr", {"erm_R": "2.5"})
    assert_no_errors(at)
    assert at.number_input(key="erm_R").value == 2.5

    at = framed("dpapp.pate_votes", "pate-votes",
                {"pate_teachers": "300", "pate_threshold": "150"})
    assert_no_errors(at)
    assert (at.slider(key="pate_teachers").value, at.slider(key="pate_threshold").value) == \
        (300, 150)


BAD = [
    # (page module, key, what the link says, the default shown instead)
    ("noise_calibration", "epsilon", "banana", 1.0),
    ("noise_calibration", "epsilon", "0.25", 1.0),                  # between two positions
    ("noise_calibration", "epsilon", "1e400", 1.0),
    ("noise_calibration", "delta", "0.5", 1e-5),
    ("noise_calibration", "view", "Nonsense", "Output densities"),
    ("noise_calibration", "present", "yes", False),
    ("randomized_response", "rr_rate", "0.333", 0.3),               # off the 0.01 grid
    ("randomized_response", "rr_gamma", "7", 0.25),                 # out of range
    ("randomized_response", "rr_n", "123", 1000),
    ("composition", "with_pld", "maybe", True),
    ("pate_votes", "pate_teachers", "255", 250),                    # off the step of 10
    ("pate_votes", "pate_classes", "2.5", 2),
    ("pate_votes", "pate_threshold", "-inf", 300),
    ("private_lr", "erm_R", "-1", 3.0),
    ("private_lr", "erm_R", "nan", 3.0),
    ("fairness_metrics", "fair_gap", "nope", "equalized_odds_worst"),
    ("many_queries", "mq_k", "", 1000),
]


@pytest.mark.parametrize("module,key,text,default", BAD,
                         ids=[f"{k}={t or 'empty'}" for _, k, t, _ in BAD])
def test_a_bad_link_value_falls_back_to_the_default_with_a_note(module, key, text, default):
    at = framed(f"dpapp.{module}", module.replace("_", "-"), {key: text})
    assert_no_errors(at)
    w = widget(at, key)
    assert w.value == (pytest.approx(default) if isinstance(default, float) else default)
    (note,) = notes(at)
    assert w.label.split("\n")[0] in note and "default" in note
    assert key not in at.query_params                       # dropped from the address
    at.run()                                                # next run: bound, no note
    assert_no_errors(at)
    assert not notes(at)
    assert key in view(at) and view(at)[key][1] is None     # the default: not in the address


def test_a_repeated_link_value_falls_back_too():
    at = framed("dpapp.noise_calibration", "", {"epsilon": ["0.1", "0.2"]})
    assert_no_errors(at)
    assert at.select_slider(key="epsilon").value == 1.0 and len(notes(at)) == 1


def test_a_link_cannot_inject_markdown_into_the_note():
    at = framed("dpapp.noise_calibration", "",
                {"epsilon": "`[x](javascript:alert(1))` " + "y" * 100})
    assert_no_errors(at)
    (note,) = notes(at)
    assert note.count("`") == 2 and "…" in note                 # one code span, truncated


# ------------------------------------------------------------------- presets and sharing
PRESET_CASES = [(title, module, path, name) for title, module, path in PAGES
                for name in getattr(__import__(module, fromlist=["x"]), "PRESETS", {})]


def test_every_page_offers_presets():
    for title, module, _ in PAGES:
        presets = getattr(__import__(module, fromlist=["x"]), "PRESETS", None)
        assert isinstance(presets, dict) and 2 <= len(presets) <= 6, title
        for name, values in presets.items():
            assert isinstance(name, str) and name and values, (title, name)


@pytest.mark.parametrize("title,module,path,name", PRESET_CASES,
                         ids=[f"{m.rsplit('.', 1)[-1]}:{n}" for _, m, _, n in PRESET_CASES])
def test_a_preset_sets_its_widgets_and_its_link_reopens_the_view(title, module, path, name):
    presets = __import__(module, fromlist=["x"]).PRESETS
    at = framed(module, path)
    at.pills(key=frame.PRESET_KEY).set_value(name).run()
    assert_no_errors(at)
    shown = view(at)
    for key, value in presets[name].items():
        assert key in shown, f"{title}: preset {name!r} sets {key!r}, which is not drawn"
        assert frame._same(shown[key][0], value), (key, shown[key][0], value)
    assert at.pills(key=frame.PRESET_KEY).value == name          # highlighted
    link = at.code[-1].value                                       # "Share this view"
    assert link == frame.share_url(path, shown)
    parts = urlsplit(link)
    assert parts.path == "/" + path
    # a student opens the link in a fresh session: the same view
    again = framed(module, path, dict(parse_qsl(parts.query)))
    assert_no_errors(again)
    assert not notes(again)
    assert {k: v[0] for k, v in view(again).items()} == {k: v[0] for k, v in shown.items()}
    assert again.pills(key=frame.PRESET_KEY).value == name
    assert charts(again) == charts(at)


def test_moving_a_widget_leaves_the_preset():
    at = framed("dpapp.many_queries", "many-queries")
    at.pills(key=frame.PRESET_KEY).set_value("Small budget: ε = 0.1").run()
    assert at.select_slider(key="mq_epsilon").value == 0.1
    at.select_slider(key="mq_epsilon").set_value(0.2).run()
    assert_no_errors(at)
    assert at.pills(key=frame.PRESET_KEY).value is None
    assert at.code[-1].value == "/many-queries?mq_epsilon=0.2"


def test_share_url():
    shown = {"present": (True, "true"), "epsilon": (0.1, "0.1"), "delta": (1e-5, None),
             "view": ("Privacy loss", "Privacy loss")}
    assert frame.share_url("", shown) == "/?present=true&epsilon=0.1&view=Privacy+loss"
    assert frame.share_url("composition", {"k": (100, None)}) == "/composition"


def test_app_py_runs_every_page_in_the_classroom_frame():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update({"epsilon": "0.1", "present": "true"})
    at.run()
    assert_no_errors(at)
    assert at.title[0].value == PAGES[0][0]
    assert at.toggle(key=frame.PRESENT_KEY).value is True
    assert at.select_slider(key="epsilon").value == 0.1
    presets = __import__(PAGES[0][1], fromlist=["x"]).PRESETS
    assert at.pills(key=frame.PRESET_KEY).options == list(presets)
    assert at.code[-1].value == "/?present=true&epsilon=0.1"


# -------------------------------------------------------------------- presentation mode
@pytest.mark.parametrize("title,module,path", PAGES, ids=IDS)
def test_presentation_mode_renders_every_page(title, module, path):
    normal = framed(module, path)
    at = framed(module, path, {"present": "true"})
    assert_no_errors(at)
    assert at.toggle(key=frame.PRESENT_KEY).value is True
    assert at.title[0].value == title
    big, small = charts(at), charts(normal)
    assert big and len(big) == len(small)
    for b, s in zip(big, small):                                   # larger fonts and charts
        assert b["title"]["fontSize"] > s["title"]["fontSize"] >= FONT_SIZES["title"]
        assert b["height"] > s["height"]
        # the same layers, with a projector's fonts and whole legend labels in one column
        assert b["layer"] == app_charts._scaled(
            app_charts._readable(s["layer"], app_charts.TITLE_CHARACTERS[True], True),
            app_charts.FONT_SCALE)
    # the same controls, some folded away (still drawn, so still in the address)
    assert set(view(at)) == set(view(normal))
    assert len(at.expander) >= len(normal.expander)


def test_presentation_mode_folds_secondary_controls():
    at = framed("dpapp.noise_calibration", "", {"present": "true",
                                                            "sensitivity": "5"})
    assert_no_errors(at)
    (folded,) = [e for e in at.expander if e.select_slider]
    assert [s.key for s in folded.select_slider] == ["sensitivity"]
    assert at.select_slider(key="sensitivity").value == 5.0        # kept from the link
    assert not framed("dpapp.noise_calibration", "").expander


@pytest.mark.parametrize("title,module,path", PAGES, ids=IDS)
def test_presentation_mode_shows_at_most_four_tiles_and_folds_the_rest(title, module, path):
    # issue 24: a projected page shows ≤ 4 number tiles; every other tile is still there,
    # folded (so no number is lost), and outside presentation mode nothing is folded
    normal, at = framed(module, path), framed(module, path, {"present": "true"})
    assert_no_errors(at)
    folded = sum(len(e.metric) for e in at.expander)
    assert len(at.metric) - folded <= frame.MAX_TILES, f"{title}: {len(at.metric) - folded} tiles"
    assert sorted(m.label for m in at.metric) == sorted(m.label for m in normal.metric)


# -------------------------------------------------------------- what every page says
@pytest.mark.parametrize("title,module,path", PAGES, ids=IDS)
def test_every_page_states_its_trade_off_and_which_end_is_more_private(title, module, path):
    at = framed(module, path)
    assert_no_errors(at)
    lines = [m.value for m in at.markdown if "**The trade-off.**" in m.value]
    assert len(lines) == 1, f"{title}: {len(lines)} trade-off lines"
    assert any(ch.isdigit() for ch in lines[0]), "computed from the numbers on screen"
    # every ε slider is on a log scale (a select slider over decades) and says which end
    # is more private
    captions = [c.value for c in at.caption]
    for s in at.select_slider:
        if "ε" in s.label and "ε₀" not in s.label or s.key.endswith("epsilon"):
            values = [float(o) for o in s.options]
            assert values[-1] / values[0] >= 100, f"{title}: {s.label} spans no decades"
            assert any("more private" in c for c in captions), title
    for s in at.slider:
        assert "ε" not in s.label, f"{title}: {s.label} is a linear ε slider"


# ----------------------------------------------------------------------------- downloads
@pytest.mark.parametrize("title,module,path", PAGES, ids=IDS)
def test_every_chart_has_a_download_button(title, module, path):
    at = framed(module, path)
    assert_no_errors(at)
    buttons = at.download_button
    assert len(buttons) == len(at.get("vega_lite_chart")) > 0
    assert all(b.label == "Download this figure" for b in buttons)
    # a PNG for slides (drawn by matplotlib from the same numbers), never the bare spec
    assert all(b.proto.help.startswith("A PNG of this figure") for b in buttons), \
        [b.proto.help for b in buttons]


def _figure_data() -> FigureData:
    x = np.linspace(0, 1, 5)
    return FigureData(title="Laplace mechanism, ε = 1, δ = 1e-05", x_title="x", y_title="y",
                      series=(Series("a", "a", x, x ** 2),))


def test_the_png_is_drawn_from_the_same_data_and_closed():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    png = app_charts.figure_png(lambda: to_matplotlib(_figure_data()), dpi=50)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == before


def test_file_names_and_enlarged_specs():
    assert app_charts._slug("Laplace mechanism, ε = 1, δ = 1e-05") == \
        "laplace-mechanism-epsilon-1-delta-1e-05"
    assert app_charts._slug("Σ ✓ Ü") == "sigma-u"
    assert app_charts._slug("✓✓") == "figure"
    spec = to_vega_lite(_figure_data(), height=300)
    big = app_charts.enlarge(spec)
    assert big["height"] == 420 and big["title"]["fontSize"] == round(18 * 1.35, 1)
    assert big["config"]["axis"]["labelFontSize"] > spec["config"]["axis"]["labelFontSize"]
    assert big["layer"][0]["data"] is spec["layer"][0]["data"]      # data shared, not copied
    assert spec == to_vega_lite(_figure_data(), height=300)         # the original untouched


def _download_script() -> None:
    from dpapp.charts import download_figure

    download_figure("B chart", figure=lambda: None)


def test_a_download_is_a_png_of_a_matplotlib_figure_only():
    # the app draws FigureData only (no hand-written Vega-Lite): every download is a PNG
    at = AppTest.from_function(_download_script, default_timeout=TIMEOUT).run()
    assert_no_errors(at)
    (button,) = at.download_button
    assert button.proto.label == "Download this figure"
    assert button.proto.help.startswith("A PNG of this figure")
    with pytest.raises(_validation.ParameterError, match="figure="):
        app_charts.download_figure("x")


def test_a_chart_of_panels_grows_every_panel_on_a_projector():
    panels = FigureData("two panels", "", "", panels=(_figure_data(), _figure_data()))
    spec = to_vega_lite(panels, height=300)
    big = app_charts.enlarge(spec)
    assert [v["height"] for v in big["vconcat"]] == [420, 420]
    assert [v["height"] for v in spec["vconcat"]] == [300, 300]       # the original untouched
