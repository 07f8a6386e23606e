"""The gallery (harness gallery) of this repository's ports, in the browser the page's tests use
(Debian's chromium through selenium; skipped, saying why, where it is missing): every port's every
method shows its code, its verdict and its time; the compare view opens by address and links to
the cells on the report page beside it; a cell replays on the page's own board; nothing is
requested from the network, the console stays clean, and it fits a phone. axe-core, from npm (``make
test`` installs it where npm is), finds no serious or critical violation on the gallery or on the
report page. Without a browser: what ports write reaches the site as text, never as markup, and a
port started with ``new-language`` appears with no change to the harness."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from test_page import browser, load, shown, visit  # noqa: F401  (browser is a fixture)

from conftest import ROOT, harness, suite
from harness.discover import discover, load_port
from harness.gallery import Sample, gallery
from harness.model import METHODS, Cell, Outcome, Reason
from harness.port import Port
from harness.regions import read_code
from harness.report import Report
from harness.settings import RunPlan

AXE_PLACES = ("node_modules/axe-core/axe.min.js", ".venv/axe/node_modules/axe-core/axe.min.js")
"""Where ``make test`` puts axe-core (npm install --prefix .venv/axe axe-core), relative to the checkout."""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The gallery of this repository's ports from a compare run's JSON report (as CI builds it from
    the merged one), its samples run afresh; and that report."""
    folder = tmp_path_factory.mktemp("gallery")
    done = harness("--root", str(ROOT), "compare", "--n", "0-4", "--json", str(folder / "r.json"))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    built = harness("--root", str(ROOT), "gallery", "--report", str(folder / "r.json"), "--out", str(folder / "site"))
    assert built.returncode == 0, built.stdout + built.stderr
    return folder / "site", json.loads((folder / "r.json").read_text())


def card(browser, method, port, within="section.method"):  # noqa: F811
    from selenium.webdriver.common.by import By

    return browser.find_element(By.CSS_SELECTOR, f'{within} article.entry[data-method="{method}"][data-port="{port}"]')


def focused(browser, element_id):  # noqa: F811
    """Wait for the focus to reach the element (the view changes on hashchange, which comes after the key)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 5).until(lambda _: browser.switch_to.active_element.get_attribute("id") == element_id)


def verdict(report, port, method):
    outcomes = {cell["outcome"] for cell in report["cells"] if cell["port"] == port and cell["method"] == method}
    return "✓ pass" if outcomes == {"pass"} else None


def test_every_port_shows_its_code_verdict_and_time_for_every_method(browser, site):  # noqa: F811
    folder, report = site
    ports = discover(ROOT)
    assert len(ports) * len(METHODS) == 20
    load(browser, folder / "index.html")
    for method in METHODS:
        visit(browser, f"#method/{method}")
        sections = browser.find_elements("css selector", "section.method")
        assert [section.is_displayed() for section in sections] == [section.get_attribute("data-method") == method for section in sections]
        for port in ports:
            entry = card(browser, method, port.name)
            assert entry.is_displayed(), (port.name, method)
            code = entry.find_element("css selector", ".code")
            expected = port.code[method]
            numbers = [int(re.match(r"\s*(\d+)", line)[1]) for line in code.text.splitlines() if line != "⋮"]
            assert numbers == [number for part in expected.spans for number in range(part.first, part.last + 1)], (port.name, method)
            assert expected.spans[0].lines[0].strip() in code.text
            assert code.find_elements("css selector", ".highlight span"), "highlighted"
            facts = entry.find_element("css selector", ".facts").text
            wanted = verdict(report, port.name, method)
            if wanted:
                assert f"verdict\n{wanted} for n = 0-4 (5 cells)" in facts, facts
            assert re.search(r"time at n = 4\n\d+\.\d{3} s", facts), facts
            assert f"code\n{expected.lines} lines: {expected.path}, lines " in facts


def test_a_sample_shows_what_a_port_prints_beside_the_moves_read(browser, site):  # noqa: F811
    folder, _ = site
    load(browser, folder / "index.html", "#method/iterative")
    entry = card(browser, "iterative", "python")
    entry.find_element("css selector", "details.sample summary").click()
    printed, moves = (pre.text for pre in entry.find_elements("css selector", "details.sample pre"))
    assert printed.splitlines()[:2] == ["Move smallest disk from position 0 to position 2", "Move disk of size 2 from position 0 to position 1"]
    assert moves.splitlines()[:2] == ["1 0 2", "2 0 1"]


@pytest.mark.parametrize("ports", [["python", "prolog"], ["bash", "cpp", "sql"]])
def test_the_compare_view_opens_by_address_side_by_side_linking_to_the_report(browser, site, ports):  # noqa: F811
    folder, _ = site
    load(browser, folder / "index.html", f"#compare/cyclic/{','.join(ports)}")
    assert browser.find_element("id", "compare").is_displayed()
    assert not any(section.is_displayed() for section in browser.find_elements("css selector", "section.method"))
    copies = browser.find_elements("css selector", "#compare-view article.entry")
    assert [copy.get_attribute("data-port") for copy in copies] == ports
    assert len({copy.rect["y"] for copy in copies}) == 1, "side by side"
    assert all(copy.find_element("css selector", ".code").is_displayed() for copy in copies)
    link = copies[0].find_element("link text", "its cells on the report page")
    assert link.get_attribute("href") == (folder / "report.html").as_uri() + f"#{ports[0]}/cyclic/4"
    link.click()
    assert browser.find_element("id", "viewer-title").text == f"{ports[0]}/cyclic n=4"
    assert shown(browser)[1].startswith("move 0 of ")


def test_the_compare_form_writes_the_address(browser, site):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    folder, _ = site
    load(browser, folder / "index.html", "#compare")
    Select(browser.find_element("id", "compare-method")).select_by_value("binary")
    Select(browser.find_element("id", "compare-port-0")).select_by_value("sql")
    Select(browser.find_element("id", "compare-port-1")).select_by_value("bash")
    browser.find_element("css selector", "#compare-form button").click()
    assert browser.execute_script("return location.hash") == "#compare/binary/sql,bash"
    assert [copy.get_attribute("data-port") for copy in browser.find_elements("css selector", "#compare-view article.entry")] == ["sql", "bash"]
    focused(browser, "compare-title")


def test_a_cell_replays_on_the_pages_board_in_the_gallery_by_keyboard(browser, site):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    folder, _ = site
    load(browser, folder / "index.html", "#method/recursive")
    replay = card(browser, "recursive", "prolog").find_element("css selector", "a[data-replay]")
    replay.send_keys(Keys.ENTER)
    assert browser.find_element("id", "viewer").is_displayed()
    assert browser.find_element("id", "viewer-title").text == "prolog/recursive n=4"
    assert shown(browser) == ("4 3 2 1||", "move 0 of 15: the start, 4 discs on peg 0")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    assert shown(browser)[1] == "move 1 of 15: disc 1 from peg 0 to peg 1"
    assert card(browser, "recursive", "prolog").is_displayed(), "the method stays shown beside the board"
    visit(browser, "#method/binary")
    assert not browser.find_element("id", "viewer").is_displayed()


def test_the_keyboard_reaches_every_view(browser, site):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    folder, _ = site
    load(browser, folder / "index.html")
    body = browser.find_element("css selector", "body")
    body.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Skip to the code"
    for _ in range(3):  # the skip link, the report page's link, then "all methods", "binary"
        browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "binary"
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    focused(browser, "method-binary-title")
    assert card(browser, "binary", "sql").is_displayed() and not card(browser, "cyclic", "sql").is_displayed()


def test_no_request_leaves_the_gallery_the_console_is_clean_and_it_fits_a_phone(browser, site, tmp_path_factory):  # noqa: F811
    folder, _ = site
    folder_shots = Path(os.environ.get("HANOI_ARTIFACTS") or tmp_path_factory.mktemp("artifacts"))
    folder_shots.mkdir(parents=True, exist_ok=True)
    for address in ("", "#method/iterative", "#compare/recursive/python,bash,sql", "#sql/cyclic/3@5"):
        load(browser, folder / "index.html", address)
        assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
        policy = browser.find_element("css selector", 'meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
        assert policy.startswith("default-src 'none';")
        assert [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")] == [], address
        browser.set_window_size(360, 800)
        try:
            assert browser.execute_script("return document.documentElement.scrollWidth") <= 360, address
            if address.startswith("#compare"):
                shot = folder_shots / "gallery.png"
                assert browser.save_screenshot(str(shot))
                print(f"screenshot of the gallery: {shot}")
        finally:
            browser.set_window_size(1000, 1200)


def _axe() -> Path | None:
    given = os.environ.get("HANOI_AXE")
    places = [Path(given)] if given else [ROOT / place for place in AXE_PLACES] + [Path("/usr/share/nodejs/axe-core/axe.min.js")]
    return next((place for place in places if place.is_file()), None)


@pytest.mark.parametrize("page, address", [("index.html", ""), ("index.html", "#compare/cyclic/cpp,prolog,python"), ("report.html", "#python/recursive/3@2")])
def test_axe_core_finds_no_serious_or_critical_violation(browser, site, page, address):  # noqa: F811
    axe = _axe()
    if axe is None:
        pytest.skip("axe-core is not installed (make test: npm install --prefix .venv/axe axe-core; or set HANOI_AXE to its axe.min.js)")
    folder, _ = site
    load(browser, folder / page, address)
    for details in browser.find_elements("css selector", "details"):
        browser.execute_script("arguments[0].open = true", details)  # the samples too
    browser.execute_script(axe.read_text(encoding="utf-8"))
    found = browser.execute_async_script(
        """const done = arguments[0];
        axe.run(document, {resultTypes: ['violations']}).then(
            (result) => done(result.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
            (error) => done([{id: 'axe failed', impact: 'critical', nodes: [String(error)]}]));"""
    )
    assert [violation for violation in found if violation["impact"] in ("serious", "critical")] == [], found


HOSTILE = "</script><script>alert(1)</script><b>bold</b>"


def test_what_ports_write_reaches_the_gallery_as_text_never_markup(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "hanoi.sh").write_text(f"# region recursive\necho '{HOSTILE}'\n# endregion recursive\n")
    port = Port(
        name=f"x{HOSTILE}", folder=folder.resolve(), methods=("recursive",), code={"recursive": read_code(folder.resolve(), "hanoi.sh#recursive")},
    )
    cell = Cell(port.name, "recursive", 1, Outcome.FAIL, detail=HOSTILE, reason=Reason.VIOLATION, diff=[HOSTILE])
    report = Report("compare", "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:01+00:00", HOSTILE, RunPlan((port.name,), ("recursive",), (1,)), {}, {},
                    [], ["recursive"], [cell])
    html = gallery(report, [port], {(port.name, "recursive"): Sample(1, printed=[HOSTILE], moves=[], why=HOSTILE)})
    assert "<script>alert" not in html and "<b>" not in html
    assert html.count("</script>") == 3  # the data's, and the two scripts of the site's own


def test_a_port_whose_name_is_not_utf8_gets_its_card_and_its_links(tmp_path):
    """A folder's name may hold any bytes (git carries them): its cells' addresses are written as the
    report page writes them, never a UnicodeEncodeError that ends the gallery."""
    root = tmp_path / "ports"
    root.mkdir()
    (root / os.fsdecode(b"b\xffad")).symlink_to(ROOT / "bash")
    done = harness("--root", str(root), "gallery", "--out", str(tmp_path / "site"), "-n", "1", "--no-samples")
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'href="report.html#b%5Cxffad/binary/1"' in (tmp_path / "site" / "index.html").read_text()


def test_a_port_started_with_new_language_appears_once_its_manifest_names_its_code(tmp_path):
    root = suite(tmp_path, real=("python",))
    assert harness("--root", str(root), "new-language", "awk", "--interpreter", "awk -f").returncode == 0
    assert load_port(root / "awk" / "language.toml").code["recursive"].lines == 2
    built = harness("--root", str(root), "gallery", "--n", "0-1", "--no-samples", "--out", str(tmp_path / "site"))
    assert built.returncode == 0, built.stdout + built.stderr
    html = (tmp_path / "site" / "index.html").read_text()
    entry = re.search(r'<article class="entry" data-port="awk" data-method="recursive".*?</article>', html, re.S)
    assert entry and "The recursive method: its code goes here" in entry[0] and "2 lines: hanoi.awk, lines 11–12" in entry[0]
    assert '<article class="entry" data-port="awk" data-method="binary"' in html and "The port does not offer this method." in html


def test_a_report_that_cannot_be_read_is_a_usage_error(tmp_path):
    (tmp_path / "r.json").write_text("{}")
    done = harness("--root", str(ROOT), "gallery", "--report", str(tmp_path / "r.json"), "--out", str(tmp_path / "site"))
    assert done.returncode == 2 and "Traceback" not in done.stderr and not (tmp_path / "site").exists()


def test_the_site_has_no_address_outside_itself():
    """Nothing in the gallery's own files names a place on the network: the page is whole without it."""
    for name in ("gallery.html", "gallery.css", "gallery.js"):
        assert not re.search(r"https?://", (ROOT / "harness" / "web" / name).read_text()), name


def test_a_verdict_says_each_outcome_in_words_beside_its_sign():
    from harness.gallery import _verdict

    cells = [Cell("p", "recursive", n, Outcome.PASS) for n in range(3)] + [Cell("p", "recursive", 3, Outcome.FAIL)]
    assert _verdict(cells) == ("✗ fail: pass for n = 0-2; fail for n = 3 (4 cells)", "fail")
    assert _verdict(cells[:3]) == ("✓ pass for n = 0-2 (3 cells)", "pass")
    assert _verdict([Cell("p", "binary", 1, Outcome.SKIPPED, reason=Reason.NOT_OFFERED)]) == ("– not offered", "skipped")
