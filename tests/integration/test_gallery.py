"""The gallery (harness gallery) of a catalogue of twenty-five ports that the tests make (fake ports
named after languages, one small program behind them all, each method's code in its own language's
comments), built from a report as CI builds it, in the browser the page's tests use (Debian's chromium
through selenium; skipped, saying why, where it is missing). It opens on an index of the languages,
a row a port with each method's verdict, time and lines of code; any method's code is shown in the
languages a reader picks, side by side, by an address that can be shared and by a picker used from
the keyboard; a cell replays on the report page's own board; nothing is requested from the network,
the console stays clean, it fits a phone, and the whole site stays under 3 MB. axe-core, from npm
(``make test`` installs it where npm is), finds no serious or critical violation on the gallery or on
the report page. Without a browser: the site is the same bytes from the same report, what ports
write reaches it as text, never as markup, and a port started with ``new-language`` appears with no
change to the harness."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from markupsafe import escape

from conftest import ROOT, harness_here, suite
from harness.discover import discover, load_port
from harness.gallery import Sample, Verdict, _verdict, gallery
from harness.model import METHODS, Cell, Outcome, Parting, Reason, Rerun
from harness.port import Port
from harness.regions import read_code
from harness.report import Report, port_info
from harness.report import json as json_form
from harness.settings import RunPlan
from harness.verify import describe
from integration.conftest import needs_bubblewrap, reference_digest
from integration.test_page import browser, load, shown, visit  # noqa: F401  (browser is a fixture)

AXE_PLACES = ("node_modules/axe-core/axe.min.js", ".venv/axe/node_modules/axe-core/axe.min.js")
"""Where ``make test`` puts axe-core (npm install --prefix .venv/axe axe-core), relative to the checkout."""
MOST_BYTES = 3_000_000
"""The most the gallery of twenty-five ports and four methods may weigh, its report page included."""
NS = range(11)
"""The n of the catalogue's report: CI's, 0 to 10."""
CATALOGUE = {
    "ada": ("hanoi.adb", "--", ""), "awk": ("hanoi.awk", "#", ""), "bash": ("hanoi.sh", "#", ""), "c": ("hanoi.c", "//", ""),
    "clojure": ("hanoi.clj", ";;", ""), "cobol": ("hanoi.cob", "*>", ""), "cpp": ("hanoi.cpp", "//", ""), "csharp": ("Hanoi.cs", "//", ""),
    "dart": ("hanoi.dart", "//", ""), "elixir": ("hanoi.ex", "#", ""), "erlang": ("hanoi.erl", "%", ""), "fortran": ("hanoi.f90", "!", ""),
    "go": ("hanoi.go", "//", ""), "haskell": ("Hanoi.hs", "--", ""), "java": ("Hanoi.java", "//", ""), "javascript": ("hanoi.js", "//", ""),
    "julia": ("hanoi.jl", "#", ""), "kotlin": ("Hanoi.kt", "//", ""), "lua": ("hanoi.lua", "--", ""), "ocaml": ("hanoi.ml", "(*", " *)"),
    "perl": ("hanoi.pl", "#", ""), "php": ("hanoi.php", "//", ""), "prolog": ("hanoi.prolog", "%", ""), "python": ("hanoi.py", "#", ""),
    "ruby": ("hanoi.rb", "#", ""),
}
"""Each port of the catalogue: the file of its code, and its language's comment, as its markers are written."""
NOT_OFFERED = ("cobol", "cyclic")
FAILING = ("erlang", "iterative")
"""It breaks a rule at the two largest n."""
TIMED_OUT = ("julia", "cyclic")
"""It runs out of time at the largest n."""
FOLLOWS = ("python", '[[source]]\ntitle = "Tower of Hanoi"\nauthor = "a test"\npublished = "nowhere"\nterms = "none"\nmethods = ["recursive"]\n')
"""The one port that names a document it follows, for one method."""
PROGRAM = '''"""The one program behind every port of the catalogue: the optimal moves, in words."""
import sys


def classic(n, src=0, dst=2, spare=1):
    if n:
        yield from classic(n - 1, src, spare, dst)
        yield n, src, dst
        yield from classic(n - 1, spare, dst, src)


def cyclic(n, src=0, dst=1):
    if n:
        on, after = (src + 1) % 3, (src + 2) % 3
        if dst == on:
            yield from cyclic(n - 1, src, after)
            yield n, src, dst
            yield from cyclic(n - 1, after, dst)
        else:
            yield from cyclic(n - 1, src, dst)
            yield n, src, on
            yield from cyclic(n - 1, dst, src)
            yield n, on, dst
            yield from cyclic(n - 1, src, dst)


method, n = sys.argv[1], int(sys.argv[2])
for disk, src, dst in (cyclic if method == "cyclic" else classic)(n):
    print(f"Move disc {disk} from {src} to {dst}")
'''
BODY = (
    "{c} The {method} method, as the {name} port of the catalogue writes it{e}",
    "function {method}_moves(n, source, target, spare)",
    "  if n == 0 then return end",
    "  local moves, count = {{}}, 0",
    "  for step = 1, 2 ^ n - 1 do",
    "    local disk = trailing_zeros(step) + 1   {c} the disc of move {k}{e}",
    "    local from = (step & (step - 1)) % 3",
    "    local to = ((step | (step - 1)) + 1) % 3",
    '    print(string.format("Move disc %d from %d to %d", disk, from, to))',
    "  end",
    "end",
)
"""A method's code, four times over: 44 lines, more than most real ports' (6 to 66)."""


def write_catalogue(root: Path, names: tuple[str, ...] = tuple(CATALOGUE)) -> Path:
    """The catalogue's ports, ``names`` of them, each a folder with its manifest, its code and the program."""
    root.mkdir(parents=True)
    for name in names:
        file, leader, end = CATALOGUE[name]
        methods = [method for method in METHODS if (name, method) != NOT_OFFERED]
        lines = []
        for method in methods:
            body = [line.format(c=leader, e=end, method=method, name=name, k=k) for k in range(4) for line in BODY]
            lines += [f"{leader} region {method}{end}", *body, f"{leader} endregion {method}{end}", ""]
        folder = root / name
        folder.mkdir()
        (folder / file).write_text("\n".join(lines))
        (folder / "hanoi_moves.py").write_text(PROGRAM)
        quoted = ", ".join(f'"{method}"' for method in methods)
        (folder / "language.toml").write_text(
            f'summary = "{name.capitalize()}, a fake port of the catalogue the tests make"\n'
            f'command = ["python3", "hanoi_moves.py", "{{method}}", "{{n}}"]\nmethods = [{quoted}]\n\n[code]\n'
            + "".join(f'{method} = "{file}#{method}"\n' for method in methods)
            + '\n[[requires]]\nexecutable = "python3"\nversion = ["python3", "--version"]\n\n'
            "[output]\npatterns = ['Move disc (?P<disk>\\d+) from (?P<src>\\d) to (?P<dst>\\d)']\npegs = [\"0\", \"1\", \"2\"]\n"
            + ("\n" + FOLLOWS[1] if name == FOLLOWS[0] else "")
        )
    return root


def catalogue_report(ports: list[Port]) -> Report:
    """A run of every cell of the catalogue over NS, as compare would report it: all pass but a
    method not offered, one that breaks a rule, and one that runs out of time."""
    digests = {(method, n): reference_digest(n, method) for method in METHODS for n in NS}
    counts = {(method, n): sum(1 for _ in METHODS[method].reference(n)) for method in METHODS for n in NS}
    cells = []
    for index, port in enumerate(ports):
        for method in METHODS:
            for n in NS:
                moves = counts[method, n]
                rerun = Rerun(f"harness run {port.name} {method} -n {n}", f"python3 hanoi_moves.py {method} {n}")
                if (port.name, method) == NOT_OFFERED:
                    cell = Cell(port.name, method, n, Outcome.SKIPPED, reason=Reason.NOT_OFFERED, detail="the port does not offer this method")
                elif (port.name, method) == FAILING and n >= NS[-2]:
                    cell = Cell(port.name, method, n, Outcome.FAIL, moves=moves, seconds=0.02, reason=Reason.VIOLATION,
                                detail="move 2: puts disc 2 on smaller disc 1", diff=["@@ -2 +2 @@", "-2 0 1", "+2 0 2"],
                                parting=Parting(2, ((2, 0, 2),)), rerun=rerun)
                elif (port.name, method) == TIMED_OUT and n == NS[-1]:
                    cell = Cell(port.name, method, n, Outcome.ERROR, seconds=120.0, reason=Reason.TIMEOUT, detail="no end after 120 s", rerun=rerun)
                else:
                    cell = Cell(port.name, method, n, Outcome.PASS, moves=moves, digest=digests[method, n], seconds=0.01 + index / 1000 + n / 10000)
                cells.append(cell)
    names = tuple(port.name for port in ports)
    return Report("compare", "2024-01-01T00:00:00+00:00", "2024-01-01T00:01:00+00:00", "0123abc", RunPlan(names, tuple(METHODS), tuple(NS)),
                  {}, {}, [port_info(port, {port.name: {"python3": "Python 3.11.7"}}) for port in ports], list(METHODS), cells)


@dataclass
class Catalogue:
    root: Path
    report_file: Path
    site: Path
    ports: dict[str, Port]
    report: Report


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Catalogue:
    """The gallery of the twenty-five ports, from a JSON report of them (as CI builds it from the
    merged one), without samples, which would run a hundred cells; the slow test below runs them."""
    folder = tmp_path_factory.mktemp("catalogue")
    root = write_catalogue(folder / "ports")
    ports = discover(root)
    report = catalogue_report(ports)
    (folder / "r.json").write_text(json_form.report_text(report))
    built = harness_here("--root", str(root), "gallery", "--report", str(folder / "r.json"), "--no-samples", "--out", str(folder / "site"))
    assert built.returncode == 0, built.stdout + built.stderr
    return Catalogue(root, folder / "r.json", folder / "site", {port.name: port for port in ports}, report)


def opened(browser, path, address=""):  # noqa: F811
    """The page loaded afresh at ``address``, not reached from the one before by a change of address."""
    browser.get("about:blank")
    load(browser, path, address)


def cards(browser):  # noqa: F811
    """The cards the compare view shows, in order."""
    return browser.find_elements("css selector", "#compare-view article.entry")


def card(browser, port):  # noqa: F811
    return browser.find_element("css selector", f'#compare-view article.entry[data-port="{port}"]')


def picked(browser):  # noqa: F811
    """The method and the ports the picker has checked."""
    return browser.execute_script(
        """const form = document.getElementById('compare-form');
        return [form.querySelector('input[name=method]:checked').value, [...form.querySelectorAll('input[name=port]:checked')].map((i) => i.value)];"""
    )


def hash_of(browser):  # noqa: F811
    return browser.execute_script("return location.hash")


def focused(browser, element_id):  # noqa: F811
    """Wait for the focus to reach the element (the view changes on hashchange, which comes after the key)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 5).until(lambda _: browser.switch_to.active_element.get_attribute("id") == element_id)


def test_the_index_has_a_row_a_port_with_each_methods_verdict_time_and_lines(browser, catalogue):  # noqa: F811
    opened(browser, catalogue.site / "index.html")
    assert browser.find_element("id", "languages").is_displayed() and not browser.find_element("id", "compare").is_displayed()
    assert browser.find_elements("css selector", "article.entry") == [], "no card until it is picked"
    assert [th.text for th in browser.find_elements("css selector", "#index thead th")] == ["language", *METHODS]
    rows = browser.execute_script(
        """return [...document.querySelectorAll('#index tbody tr')].map((row) => ({
            name: row.querySelector('.name').textContent, summary: row.querySelector('.summary').textContent,
            cells: [...row.querySelectorAll('td')].map((td) => [td.innerText.split('\\n'), td.querySelector('a')?.getAttribute('href') ?? null])}))"""
    )
    assert [row["name"] for row in rows] == sorted(CATALOGUE)
    largest = {(cell.port, cell.method): cell for cell in catalogue.report.cells if cell.n == NS[-1]}
    for row in rows:
        port = catalogue.ports[row["name"]]
        assert row["summary"] == port.summary
        for method, (said, href) in zip(METHODS, row["cells"], strict=True):
            if (port.name, method) == NOT_OFFERED:
                assert (said, href) == (["– not offered"], None)
                continue
            lines = f"{port.code[method].lines} lines"
            assert href == f"#compare/{method}/{port.name}"
            if (port.name, method) == FAILING:
                assert said == ["✗ fail", "0.020 s", lines]
            elif (port.name, method) == TIMED_OUT:
                assert said == ["⚠ error", lines], "a time only where the cell ran to its end"
            else:
                assert said == ["✓ pass", f"{largest[port.name, method].seconds:.3f} s", lines]


@pytest.mark.parametrize("method, chosen", [("recursive", ["python", "c", "haskell"]), ("cyclic", ["prolog", "java"])])
def test_a_shared_address_shows_the_chosen_ports_code_side_by_side(browser, catalogue, method, chosen):  # noqa: F811
    opened(browser, catalogue.site / "index.html", f"#compare/{method}/{','.join(chosen)}")
    assert browser.find_element("id", "compare").is_displayed() and not browser.find_element("id", "languages").is_displayed()
    assert [copy.get_attribute("data-port") for copy in cards(browser)] == chosen
    assert len({copy.rect["y"] for copy in cards(browser)}) == 1, "side by side"
    assert picked(browser) == [method, sorted(chosen)]
    assert browser.find_element("id", "compare-status").text == f"{method}: {', '.join(chosen)}, side by side."
    for name in chosen:
        entry = card(browser, name)
        code = entry.find_element("css selector", ".code")
        expected = catalogue.ports[name].code[method]
        numbers = [int(re.match(r"\s*(\d+)", line)[1]) for line in code.text.splitlines() if line != "⋮"]
        assert numbers == [number for part in expected.spans for number in range(part.first, part.last + 1)], name
        assert expected.spans[0].lines[0].strip() in code.text
        assert code.find_elements("css selector", ".highlight span"), "highlighted"
        facts = entry.find_element("css selector", ".facts").text
        assert "verdict\n✓ pass for n = 0-10 (11 cells)" in facts, facts
        assert re.search(r"time at n = 10\n\d+\.\d{3} s", facts), facts
        assert f"code\n{expected.lines} lines: {expected.path}, lines " in facts
        follows = entry.find_elements("css selector", ".code + dl.facts")
        if (name, method) == ("python", "recursive"):
            assert follows[0].text == 'follows\n"Tower of Hanoi", by a test; published: nowhere; terms: none', "below the code, which starts level"
        else:
            assert follows == []
    link = card(browser, chosen[0]).find_element("link text", "its cells on the report page")
    assert link.get_attribute("href") == (catalogue.site / "report.html").as_uri() + f"#{chosen[0]}/{method}/10"
    link.click()
    assert browser.find_element("id", "viewer-title").text == f"{chosen[0]}/{method} n=10"
    assert shown(browser)[1].startswith("move 0 of ")


def test_the_picker_is_used_by_keyboard_and_the_address_follows_it(browser, catalogue):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    opened(browser, catalogue.site / "index.html", "#compare/recursive/python")
    browser.find_element("css selector", 'input[name="port"][value="c"]').send_keys(Keys.SPACE)
    assert hash_of(browser) == "#compare/recursive/python,c"
    assert [copy.get_attribute("data-port") for copy in cards(browser)] == ["python", "c"]
    browser.find_element("css selector", 'input[name="method"][value="recursive"]').send_keys(Keys.ARROW_RIGHT)
    assert hash_of(browser) == "#compare/iterative/python,c"
    assert [copy.get_attribute("data-method") for copy in cards(browser)] == ["iterative", "iterative"]
    assert browser.switch_to.active_element.get_attribute("value") == "iterative", "the focus stays in the picker"
    browser.find_element("css selector", 'input[name="port"][value="python"]').send_keys(Keys.SPACE)
    assert hash_of(browser) == "#compare/iterative/c" and picked(browser) == ["iterative", ["c"]]
    browser.find_element("id", "compare-clear").send_keys(Keys.ENTER)
    assert hash_of(browser) == "#compare/iterative/" and cards(browser) == []
    assert browser.find_element("id", "compare-status").text == "Choose languages to see their iterative code side by side."
    visit(browser, "#compare/binary/c,nosuch")
    assert [copy.get_attribute("data-port") for copy in cards(browser)] == ["c"]
    assert "No port named nosuch here." in browser.find_element("id", "compare-status").text


def test_an_index_link_opens_that_code_and_the_choice_stays_from_method_to_method(browser, catalogue):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    opened(browser, catalogue.site / "index.html")
    browser.find_element("css selector", '#index a[href="#compare/binary/haskell"]').send_keys(Keys.ENTER)
    focused(browser, "compare-title")
    assert [copy.get_attribute("data-port") for copy in cards(browser)] == ["haskell"]
    browser.find_element("css selector", 'input[name="port"][value="c"]').send_keys(Keys.SPACE)
    method_link = browser.find_element("css selector", 'nav a[data-method-link="cyclic"]')
    assert method_link.get_attribute("href").endswith("#compare/cyclic/haskell,c")
    method_link.click()
    assert [(copy.get_attribute("data-method"), copy.get_attribute("data-port")) for copy in cards(browser)] == [("cyclic", "haskell"), ("cyclic", "c")]
    browser.back()
    assert hash_of(browser) == "#compare/binary/haskell,c", "a tick changes the address in place"
    assert [copy.get_attribute("data-port") for copy in cards(browser)] == ["haskell", "c"]
    browser.back()
    assert browser.find_element("id", "languages").is_displayed() and not browser.find_element("id", "compare").is_displayed()


def test_a_cell_replays_on_the_pages_board_beside_the_chosen_code_by_keyboard(browser, catalogue):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    opened(browser, catalogue.site / "index.html", "#compare/recursive/prolog,python")
    card(browser, "prolog").find_element("css selector", "a[data-replay]").send_keys(Keys.ENTER)
    assert browser.find_element("id", "viewer").is_displayed()
    assert browser.find_element("id", "viewer-title").text == "prolog/recursive n=5"
    assert shown(browser) == ("5 4 3 2 1||", "move 0 of 31: the start, 5 discs on peg 0")
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
    assert shown(browser)[1] == f"move 1 of 31: {describe(next(iter(METHODS['recursive'].reference(5))))}"
    assert [copy.get_attribute("data-port") for copy in cards(browser)] == ["prolog", "python"], "the chosen code stays beside the board"
    ActionChains(browser).send_keys(Keys.SPACE).perform()  # it plays on
    visit(browser, "#method/binary")  # an older address: that method, in the languages chosen
    assert hash_of(browser) == "#compare/binary/prolog,python"
    assert not browser.find_element("id", "viewer").is_displayed()
    time.sleep(1)
    assert hash_of(browser) == "#compare/binary/prolog,python", "the replay stopped, out of sight, and wrote no address"
    opened(browser, catalogue.site / "index.html", "#julia/cyclic/3@2")
    assert browser.find_element("id", "viewer-title").text == "julia/cyclic n=3"
    assert [copy.get_attribute("data-port") for copy in cards(browser)] == ["julia"]


def test_the_keyboard_reaches_every_view(browser, catalogue):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    opened(browser, catalogue.site / "index.html")
    browser.find_element("css selector", "body").send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Skip to the content"
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    focused(browser, "views")
    assert hash_of(browser) == "" and browser.find_element("id", "languages").is_displayed()
    opened(browser, catalogue.site / "index.html")
    browser.find_element("css selector", "body").send_keys(Keys.TAB)
    for _ in range(3):  # the skip link, the report page's link, "languages", then "binary"
        browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "binary"
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    focused(browser, "compare-title")
    assert browser.find_element("id", "picker").get_attribute("open") is not None, "open while no language is chosen"
    for _ in range(3):  # the method, the picker's summary, then its first language
        browser.switch_to.active_element.send_keys(Keys.TAB)
    browser.switch_to.active_element.send_keys(Keys.SPACE)
    assert hash_of(browser) == "#compare/binary/ada" and [copy.get_attribute("data-port") for copy in cards(browser)] == ["ada"]


def test_no_request_leaves_the_gallery_the_console_is_clean_and_it_fits_a_phone(browser, catalogue, tmp_path_factory):  # noqa: F811
    folder_shots = Path(os.environ.get("HANOI_ARTIFACTS") or tmp_path_factory.mktemp("artifacts"))
    folder_shots.mkdir(parents=True, exist_ok=True)
    every = ",".join(CATALOGUE)
    for address in ("", "#compare/recursive/python,c,haskell", f"#compare/cyclic/{every}", "#erlang/iterative/9@2"):
        opened(browser, catalogue.site / "index.html", address)
        assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
        policy = browser.find_element("css selector", 'meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
        assert policy.startswith("default-src 'none';")
        assert [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")] == [], address
        browser.set_window_size(360, 800)
        try:
            assert browser.execute_script("return document.documentElement.scrollWidth") <= 360, address
            if address.startswith("#compare/recursive"):
                shot = folder_shots / "gallery.png"
                assert browser.save_screenshot(str(shot))
                print(f"screenshot of the gallery: {shot}")
        finally:
            browser.set_window_size(1000, 1200)
    for width, folded in ((360, True), (1000, False)):
        browser.set_window_size(width, 800)
        try:
            opened(browser, catalogue.site / "index.html", "#compare/binary/python,c")
            assert (browser.find_element("id", "picker").get_attribute("open") is None) == folded, "on a phone, chosen code comes first"
        finally:
            browser.set_window_size(1000, 1200)


def _axe() -> Path | None:
    given = os.environ.get("HANOI_AXE")
    places = [Path(given)] if given else [ROOT / place for place in AXE_PLACES] + [Path("/usr/share/nodejs/axe-core/axe.min.js")]
    return next((place for place in places if place.is_file()), None)


@pytest.mark.parametrize("page, address", [
    ("index.html", ""), ("index.html", "#compare/cyclic/cpp,prolog,python"), ("index.html", "#erlang/iterative/9@2"), ("report.html", "#python/recursive/3@2"),
])
def test_axe_core_finds_no_serious_or_critical_violation(browser, catalogue, page, address):  # noqa: F811
    axe = _axe()
    if axe is None:
        pytest.skip("axe-core is not installed (make test: npm install --prefix .venv/axe axe-core; or set HANOI_AXE to its axe.min.js)")
    opened(browser, catalogue.site / page, address)
    for details in browser.find_elements("css selector", "details"):
        browser.execute_script("arguments[0].open = true", details)  # the samples too
    browser.execute_script(axe.read_text(encoding="utf-8"))
    browser.set_script_timeout(300)  # the report page of the catalogue is a table of 1,100 cells
    found = browser.execute_async_script(
        """const done = arguments[0];
        axe.run(document, {resultTypes: ['violations']}).then(
            (result) => done(result.violations.map((v) => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
            (error) => done([{id: 'axe failed', impact: 'critical', nodes: [String(error)]}]));"""
    )
    assert [violation for violation in found if violation["impact"] in ("serious", "critical")] == [], found


def site_files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_the_gallery_of_25_ports_is_under_3_mb_and_the_same_bytes_from_the_same_report(catalogue, tmp_path):
    written = site_files(catalogue.site)
    assert list(written) == ["index.html", "report.html"], "one page and the report page beside it: nothing to fetch"
    size = sum(map(len, written.values()))
    print(f"the gallery of {len(catalogue.ports)} ports and {len(METHODS)} methods over n = 0-10: {size:,} bytes")
    assert size < MOST_BYTES
    again = harness_here("--root", str(catalogue.root), "gallery", "--report", str(catalogue.report_file), "--no-samples", "--out", str(tmp_path / "site"))
    assert again.returncode == 0, again.stdout + again.stderr
    assert site_files(tmp_path / "site") == written


@pytest.mark.slow
def test_with_every_sample_run_the_gallery_of_25_ports_stays_under_3_mb(catalogue, tmp_path):
    """A sample of every port's every method, run as a user builds the site: a hundred cells."""
    built = harness_here("--root", str(catalogue.root), "gallery", "--report", str(catalogue.report_file), "--out", str(tmp_path / "site"))
    assert built.returncode == 0, built.stdout + built.stderr
    size = sum(map(len, site_files(tmp_path / "site").values()))
    print(f"with its samples: {size:,} bytes")
    assert size < MOST_BYTES
    html = (tmp_path / "site" / "index.html").read_text()
    assert html.count('<details class="sample">') == len(CATALOGUE) * len(METHODS) - 1


def test_a_sample_shows_what_a_port_prints_beside_the_moves_read(browser, tmp_path):  # noqa: F811
    """A fresh run, samples and all, of one port of the catalogue."""
    root = write_catalogue(tmp_path / "ports", ("python",))
    built = harness_here("--root", str(root), "gallery", "-n", "0-1", "--out", str(tmp_path / "site"))
    assert built.returncode == 0, built.stdout + built.stderr
    opened(browser, tmp_path / "site" / "index.html", "#compare/iterative/python")
    entry = card(browser, "python")
    assert "verdict\n✓ pass for n = 0,1 (2 cells)" in entry.find_element("css selector", ".facts").text
    entry.find_element("css selector", "details.sample summary").click()
    printed, moves = (pre.text for pre in entry.find_elements("css selector", "details.sample pre"))
    assert printed.splitlines()[:2] == ["Move disc 1 from 0 to 2", "Move disc 2 from 0 to 1"]
    assert moves.splitlines()[:2] == ["1 0 2", "2 0 1"]


HOSTILE = "</script><script>alert(1)</script><b>bold</b>"


def test_what_ports_write_reaches_the_gallery_as_text_never_markup(tmp_path):
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / "hanoi.sh").write_text(f"# region recursive\necho '{HOSTILE}'\n# endregion recursive\n")
    port = Port(
        name=f"x{HOSTILE}", folder=folder.resolve(), summary=HOSTILE, methods=("recursive",),
        code={"recursive": read_code(folder.resolve(), "hanoi.sh#recursive")},
    )
    cell = Cell(port.name, "recursive", 1, Outcome.FAIL, detail=HOSTILE, reason=Reason.VIOLATION, diff=[HOSTILE])
    report = Report("compare", "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:01+00:00", HOSTILE, RunPlan((port.name,), ("recursive",), (1,)), {}, {},
                    [], ["recursive"], [cell])
    html = gallery(report, [port], {(port.name, "recursive"): Sample(1, printed=[HOSTILE], moves=[], why=HOSTILE)})
    assert "<script>alert" not in html and "<b>" not in html
    assert html.count("</script>") == 3  # the data's, and the two scripts of the site's own


def test_a_port_whose_name_is_not_utf8_gets_its_row_its_card_and_its_links(tmp_path):
    """A folder's name may hold any bytes (git carries them): its cells' addresses are written as the
    report page writes them, and its compare address as the gallery's script reads it back, never a
    UnicodeEncodeError that ends the gallery."""
    ports = write_catalogue(tmp_path / "catalogue", ("bash",))
    root = tmp_path / "ports"
    root.mkdir()
    (root / os.fsdecode(b"b\xffad")).symlink_to(ports / "bash")
    done = harness_here("--root", str(root), "gallery", "--out", str(tmp_path / "site"), "-n", "1", "--no-samples")
    assert done.returncode == 0, done.stdout + done.stderr
    html = (tmp_path / "site" / "index.html").read_text()
    assert 'href="report.html#b%5Cxffad/binary/1"' in html
    assert 'href="#compare/binary/b%5Cxffad"' in html and '<template data-port="b\\xffad" data-method="binary">' in html


def test_a_port_started_with_new_language_appears_once_its_manifest_names_its_code(tmp_path):
    root = suite(tmp_path, real=())
    assert harness_here("--root", str(root), "new-language", "awk", "--interpreter", "awk -f").returncode == 0
    assert load_port(root / "awk" / "language.toml").code["recursive"].lines == 2
    built = harness_here("--root", str(root), "gallery", "--n", "0-1", "--no-samples", "--out", str(tmp_path / "site"))
    assert built.returncode == 0, built.stdout + built.stderr
    html = (tmp_path / "site" / "index.html").read_text()
    entry = re.search(r'<article class="entry" data-port="awk" data-method="recursive".*?</article>', html, re.S)
    assert entry and "The recursive method: its code goes here" in entry[0] and "2 lines: hanoi.awk, lines 11–12" in entry[0]
    assert '<article class="entry" data-port="awk" data-method="binary"' in html and "The port does not offer this method." in html
    assert re.search(r'<th scope="row"><span class="name">awk</span>', html), "a row in the index"


def test_the_site_has_no_address_outside_itself():
    """Nothing in the gallery's own files names a place on the network: the page is whole without it."""
    for name in ("gallery.html", "gallery.css", "gallery.js"):
        assert not re.search(r"https?://", (ROOT / "harness" / "web" / name).read_text()), name


def test_a_verdict_says_each_outcome_in_words_beside_its_sign():
    cells = [Cell("p", "recursive", n, Outcome.PASS) for n in range(3)] + [Cell("p", "recursive", 3, Outcome.FAIL)]
    assert _verdict(cells) == Verdict("✗ fail", "✗ fail: pass for n = 0-2; fail for n = 3 (4 cells)", "fail")
    assert _verdict(cells[:3]) == Verdict("✓ pass", "✓ pass for n = 0-2 (3 cells)", "pass")
    assert _verdict([Cell("p", "binary", 1, Outcome.SKIPPED, reason=Reason.NOT_OFFERED)]) == Verdict("– not offered", "– not offered", "skipped")


@needs_bubblewrap
def test_the_gallerys_run_and_samples_run_in_the_walls_asked_for(tmp_path):
    """A port that writes beside its folder whenever it runs: with --isolation sandbox, neither the
    gallery's fresh run nor its samples let it, as compare would not."""
    folder = tmp_path / "ports" / "python"
    folder.parent.mkdir()
    shutil.copytree(ROOT / "python", folder)
    written = tmp_path / "written-by-the-port"
    program = folder / "hanoi.py"
    program.write_text(program.read_text().replace('"""', f'import pathlib; pathlib.Path({str(written)!r}).touch()\n"""', 1))
    done = harness_here("--root", str(folder.parent), "gallery", "--out", str(tmp_path / "site"), "-n", "1", "--isolation", "sandbox")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not written.exists(), "the gallery ran the port outside the walls it was asked for"


def test_a_fresh_gallery_runs_the_cells_compare_runs_and_a_failed_one_has_its_rerun_line(tmp_path):
    """The gallery's fresh run is compare's own run: the same cells with the same outcomes, and each
    one that did not pass with the very rerun line compare gives it, on the report page beside the gallery."""
    root = tmp_path / "ports"
    root.mkdir()
    shutil.copytree(ROOT / "python", root / "python")
    shutil.copytree(ROOT / "tests" / "fake_ports" / "illegal", root / "illegal")
    shutil.copy(ROOT / "tests" / "fake_ports" / "fake.py", root)
    compared = harness_here("--root", str(root), "compare", "-n", "2", "--json", str(tmp_path / "r.json"))
    assert compared.returncode == 1, compared.stdout + compared.stderr
    built = harness_here("--root", str(root), "gallery", "-n", "2", "--no-samples", "--out", str(tmp_path / "site"))
    assert built.returncode == 0, built.stdout + built.stderr
    page = (tmp_path / "site" / "report.html").read_text(encoding="utf-8")
    shown = json.loads(re.search(r'<script type="application/json" id="report">(.*?)</script>', page, re.S).group(1))
    expected = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))

    def cells(report):
        return [(cell["port"], cell["method"], cell["n"], cell["outcome"], cell.get("rerun")) for cell in report["cells"]]

    assert cells(shown) == cells(expected)
    failed = [cell for cell in shown["cells"] if cell["outcome"] != "pass"]
    assert "fail" in {cell["outcome"] for cell in failed} and all(cell["rerun"]["command"].startswith("harness --root ") for cell in failed)
    assert all(str(escape(cell["rerun"]["command"])) in page for cell in failed)
