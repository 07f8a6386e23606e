"""The HTML page of a run (compare and merge --html) in a real browser: Debian's chromium driven by its
chromium-driver through selenium, which `make test` installs where it can; skipped, saying why,
where one is missing. The run has a failing fake port. One screenshot a run is kept for a person to
look at: in $HANOI_ARTIFACTS if set, else in pytest's temporary folder; its path is printed."""

import functools
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import harness_here, suite
from harness.model import METHODS, Cell, Outcome, Reason, Rerun
from harness.report import Report
from harness.report import html as page_form
from harness.report.json import to_json
from harness.settings import RunPlan
from harness.verify import Board, describe


def board_text(pegs):
    return "|".join(" ".join(map(str, peg)) for peg in pegs)


def reference_boards(method, n):
    """data-board after each move of the reference, from the start."""
    board = Board(n, METHODS[method])
    states, moves = [board_text(board.pegs)], list(METHODS[method].reference(n))
    for move in moves:
        board.play(move)
        states.append(board_text(board.pegs))
    return states, moves


def move_line(moves, n, k):
    """The move line under the board after k of the reference's moves."""
    return f"move {k} of {len(moves)}: " + (describe(moves[k - 1]) if k else f"the start, {n} discs on peg 0")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The pages of one compare run over the python port and two faulty fakes, and of its merge."""
    folder = tmp_path_factory.mktemp("page")
    root = suite(folder, "illegal", "wrong-disk", real=("python",))
    done = harness_here("--root", str(root), "compare", "--n", "0-6", "--json", str(folder / "r.json"), "--html", str(folder / "r.html"))
    assert done.returncode == 1, done.stdout + done.stderr
    merged = harness_here("merge", str(folder / "r.json"), "--html", str(folder / "m.html"))
    assert merged.returncode == 1, merged.stdout + merged.stderr
    return json.loads((folder / "r.json").read_text()), {"compare": folder / "r.html", "merge": folder / "m.html"}


def _browser():
    """The browser's binaries, or why there are none."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return None, "selenium is not installed (pip install -e '.[test]')"
    binary = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    driver = shutil.which("chromedriver")
    if not binary or not driver:
        return None, "chromium or chromedriver is not installed (Debian: apt-get install chromium chromium-driver; make test does)"
    return (binary, driver), None


@pytest.fixture(scope="module")
def browser():
    found, why = _browser()
    if found is None:
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,1200"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    yield driver
    driver.quit()


def load(browser, path, address=""):
    browser.get(path.as_uri() + address)
    browser.get_log("browser")  # a fresh page: what the console says from here on is this page's


def visit(browser, address):
    """Follow an address within the loaded page, as a person editing the location would."""
    browser.execute_async_script(
        """const [address, done] = arguments;
        if (location.hash === address) return done();
        window.addEventListener('hashchange', () => done(), {once: true});
        location.hash = address;""",
        address,
    )


def shown(browser, board="port-board"):
    return browser.find_element("id", board).get_attribute("data-board"), browser.find_element("id", "move").text


def test_the_page_unfolds_the_same_reference_as_the_harness(browser, pages):
    _, files = pages
    load(browser, files["compare"])
    for method, rules in METHODS.items():
        for n in range(9):
            unfolded = browser.execute_script("return window.hanoi.reference(arguments[0], arguments[1])", rules.name, n)
            assert [(m["disk"], m["src"], m["dst"]) for m in unfolded] == [tuple(move) for move in rules.reference(n)], (method, n)


@pytest.mark.parametrize("which", ["compare", "merge"])
def test_every_cell_is_shown_and_replays_to_any_move_by_its_address(browser, pages, which):
    report, files = pages
    load(browser, files[which])
    for cell in report["cells"]:
        link = browser.find_element("css selector", f'td a[data-cell="{cell["id"]}"]')
        assert ("not offered" if cell["reason"] == "not-offered" else cell["outcome"]) in link.text
        if cell["outcome"] != "pass":
            continue
        states, moves = reference_boards(cell["method"], cell["n"])
        line = functools.partial(move_line, moves, cell["n"])
        middle = len(moves) // 2
        visit(browser, f"#{cell['id']}@{middle}")
        assert shown(browser) == (states[middle], line(middle)), cell["id"]
        assert browser.find_element("id", "viewer-title").text == f"{cell['port']}/{cell['method']} n={cell['n']}"
        browser.find_element("id", "first").click()
        assert shown(browser) == (states[0], line(0))
        for k in range(1, len(moves) + 1) if cell["n"] <= 3 else ():
            browser.find_element("id", "forward").click()
            assert shown(browser) == (states[k], line(k)), (cell["id"], k)
        browser.find_element("id", "last").click()
        assert shown(browser) == (states[-1], line(len(moves)))


def test_an_address_opens_the_cell_on_load_and_the_keys_step_and_play(browser, pages):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    _, files = pages
    states, moves = reference_boards("recursive", 5)
    load(browser, files["compare"], "#python/recursive/5@12")
    assert shown(browser) == (states[12], f"move 12 of 31: {describe(moves[11])}")
    keys = ActionChains(browser)
    keys.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_LEFT).perform()
    assert shown(browser)[0] == states[14]
    WebDriverWait(browser, 5).until(lambda _: browser.execute_script("return location.hash") == "#python/recursive/5@14")
    browser.find_element("id", "back").click()
    assert shown(browser)[0] == states[13]
    Select(browser.find_element("id", "speed")).select_by_value("64")
    browser.find_element("id", "viewer-title").click()
    ActionChains(browser).send_keys(Keys.SPACE).perform()
    assert browser.find_element("id", "play").text == "⏸ pause"
    WebDriverWait(browser, 10).until(lambda _: shown(browser)[1].startswith("move 31 of 31"))
    assert shown(browser)[0] == "||5 4 3 2 1"
    assert browser.find_element("id", "play").text == "▶ play"
    ActionChains(browser).send_keys(Keys.HOME).perform()
    assert shown(browser) == (states[0], "move 0 of 31: the start, 5 discs on peg 0")


@pytest.mark.parametrize("which", ["compare", "merge"])
def test_a_failing_cell_replays_the_port_to_its_fault_beside_the_reference(browser, pages, which):
    report, files = pages
    load(browser, files[which])
    failing = [cell for cell in report["cells"] if cell["outcome"] == "fail"]
    assert {cell["port"] for cell in failing} == {"illegal", "wrong-disk"}
    for cell in failing:
        at = cell["parting"]["at"]
        states, moves = reference_boards(cell["method"], cell["n"])
        visit(browser, f"#{cell['id']}@{at}")
        board, line = shown(browser)
        assert board == states[at - 1], cell["id"]  # the refused move is shown, not made
        rule = cell["detail"].split(": ", 2)[2]  # "line 2: move 2 (…): puts disc 2 on smaller disc 1"
        assert line.endswith(f", refused: {rule} (the first difference)"), (line, cell["detail"])
        assert line.startswith(f"move {at} of {at}: ")
        assert shown(browser, "reference-board")[0] == states[at]
        assert browser.find_element("id", "reference-move").text == f"the reference's move {at}: {describe(moves[at - 1])}"
        assert "first-difference" in browser.find_element("id", "port-figure").get_attribute("class")
        assert browser.find_element("id", "diff").text == "\n".join(cell["diff"])
        visit(browser, f"#{cell['id']}@{at - 1}")
        assert shown(browser)[0] == shown(browser, "reference-board")[0] == states[at - 1]
        assert "first-difference" not in browser.find_element("id", "port-figure").get_attribute("class")


def test_no_request_leaves_the_page_nothing_goes_wrong_and_it_fits_a_phone(browser, pages, tmp_path_factory):
    _, files = pages
    load(browser, files["compare"], "#python/cyclic/4@20")
    assert browser.find_element("id", "direction").is_displayed()
    visit(browser, "#illegal/recursive/3@2")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    policy = browser.find_element("css selector", 'meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert policy.startswith("default-src 'none';")
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []
    assert browser.find_element("id", "move").get_attribute("aria-live") == "polite"
    browser.set_window_size(360, 800)
    try:
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 360
        folder = Path(os.environ.get("HANOI_ARTIFACTS") or tmp_path_factory.mktemp("artifacts"))
        folder.mkdir(parents=True, exist_ok=True)
        shot = folder / "page.png"
        assert browser.save_screenshot(str(shot))
        print(f"screenshot of the page: {shot}")
    finally:
        browser.set_window_size(1000, 1200)


def test_what_ports_print_reaches_the_page_as_data_never_as_markup():
    hostile = "</script><script>alert(1)</script><!-- <b>"
    cell = Cell(
        f"x{hostile}", "recursive", 1, Outcome.FAIL, detail=hostile, reason=Reason.VIOLATION, diff=[hostile],
        rerun=Rerun(f"harness run {hostile}", hostile, (hostile,)),
    )
    plan = RunPlan((cell.port,), ("recursive",), (1,), None)
    report = Report("compare", "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:01+00:00", None, plan, {}, {}, [], ["recursive"], [cell])
    html = page_form.report_text(report)
    assert "<script>alert" not in html and "<b>" not in html
    assert html.count("</script>") == 2  # the data's and the page's own
    data = re.search(r'<script type="application/json" id="report">(.*?)</script>', html, re.S)
    assert data and json.loads(data.group(1)) == to_json(report)


def test_the_page_says_what_each_port_follows(browser, pages):
    """The ports' [[source]] tables: all of them in a section of their own, and, for the cell on the
    board, the documents its method follows."""
    data, files = pages
    titles = [source["title"] for source in data["ports"]["python"]["sources"]]
    assert titles == ["Tower of Hanoi", "The towers of Hanoi", "Cyclic Tower of Hanoi – analysis and implementation"]
    for which in files:
        load(browser, files[which], "#python/recursive/3@0")
        facts = browser.find_element("id", "facts").text.splitlines()
        assert facts[facts.index("follows") + 1] == "Tower of Hanoi, by unknown; The towers of Hanoi, by Eric Martin (CSE, UNSW)"
        section = browser.find_element("id", "sources").text.splitlines()
        assert section[0] == "What the ports follow"
        assert ('"The towers of Hanoi", by Eric Martin (CSE, UNSW); published: course notes of COMP9021 Principles of Programming, UNSW;'
                " terms: unknown; for recursive, iterative") in section
        assert section[section.index("illegal") + 1] == "no source named"
    load(browser, files["compare"], "#illegal/recursive/3@0")
    assert "follows" not in browser.find_element("id", "facts").text.splitlines()


CAPTURE_CLIPBOARD = """window.copiedText = [];
Object.defineProperty(navigator, "clipboard", {value: {writeText: (text) => { window.copiedText.push(text); return Promise.resolve(); }}});"""
"""The page's clipboard, replaced by one that keeps what is written: a headless browser has none to read."""


@pytest.mark.parametrize("which", ["compare", "merge"])
def test_a_cell_that_did_not_pass_shows_its_rerun_line_and_the_keyboard_copies_it(browser, pages, which):
    """On the board, the failing cell's rerun line, its program among the facts, and a copy button
    that Enter (on the board) and Space (in the problems) press; a passing cell has none."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    report, files = pages
    cell = next(cell for cell in report["cells"] if cell["id"] == "illegal/recursive/3")
    load(browser, files[which], "#illegal/recursive/3@0")
    assert browser.find_element("id", "rerun").is_displayed()
    assert browser.find_element("id", "rerun-command").text == cell["rerun"]["command"]
    assert cell["rerun"]["command"].startswith("harness --root ") and " run illegal recursive -n 3 --raw" in cell["rerun"]["command"]
    facts = browser.find_element("id", "facts").text.splitlines()
    assert facts[facts.index("program") + 1] == cell["rerun"]["program"] == "python3 ../fake.py illegal recursive 3"
    browser.execute_script(CAPTURE_CLIPBOARD)
    button = browser.find_element("css selector", "#rerun button.copy")
    button.send_keys(Keys.ENTER)
    WebDriverWait(browser, 5).until(lambda _: browser.execute_script("return window.copiedText.length") == 1)
    assert browser.execute_script("return window.copiedText") == [cell["rerun"]["command"]]
    assert browser.find_element("css selector", "#rerun .copied").text == "copied"
    assert shown(browser)[1].startswith("move 0 of ")  # the key copied; it did not step or play
    problems = browser.find_element("id", "problems")
    first = next(c for c in report["cells"] if c["port"] == "illegal" and c["outcome"] == "fail")
    assert first["rerun"]["command"] in problems.text.splitlines()
    problems.find_element("css selector", "button.copy").send_keys(Keys.SPACE)
    WebDriverWait(browser, 5).until(lambda _: browser.execute_script("return window.copiedText.length") == 2)
    assert browser.execute_script("return window.copiedText")[1] == first["rerun"]["command"]
    visit(browser, "#python/recursive/3@0")
    assert not browser.find_element("id", "rerun").is_displayed()
    assert "program" not in browser.find_element("id", "facts").text.splitlines()


def test_the_page_names_the_pegs_as_the_port_does(browser, tmp_path):
    """rings names its pegs left, middle and right: the page's board, its move lines and the
    reference's beside it name them so, each with its canonical number."""
    root = suite(tmp_path, "rings", real=())
    done = harness_here("--root", str(root), "compare", "--n", "3", "--method", "binary", "--html", str(tmp_path / "r.html"))
    assert done.returncode == 1, done.stdout + done.stderr
    load(browser, tmp_path / "r.html")
    visit(browser, "#rings/binary/3@1")
    assert shown(browser)[1].endswith(": disc 1 from peg left (0) to peg middle (1) (the first difference)"), shown(browser)
    assert browser.find_element("id", "reference-move").text == "the reference's move 1: disc 1 from peg left (0) to peg right (2)"
    names = [element.text for element in browser.find_elements("css selector", "#port-board + .peg-names .peg-name")]
    assert names == ["peg left (0)", "peg middle (1)", "peg right (2)"]
