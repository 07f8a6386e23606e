# The two commands a newcomer needs: `make compare` and `make test`; and `make check`, the fast tier a
# contributor runs before every commit (ruff, mypy and the in-process tests of tests/unit: under a minute on
# an idle machine, longer on a busy one, as docs/development.md says).
# `make compare` installs only what it runs: the harness (no test tool) and the tools of the headline
# ports. `make compare-all` installs and runs every port of the catalogue, failing on one that cannot be
# installed. Each sets up a virtual environment in .venv first (once, and again when pyproject.toml
# changes); make test adds the test tools, runs make check, then the tests of tests/integration, which
# run real processes, over every port.

VENV ?= .venv
N ?= 5
HEADLINE ?= python,bash,sql,prolog,cpp

.PHONY: compare compare-all test check tools tools-all isolation-tools axe gallery site clean

compare: tools
	$(VENV)/bin/harness compare --n $(N) --lang $(HEADLINE)

compare-all: tools-all
	$(VENV)/bin/harness compare --n $(N) --strict

# Every method's code in every port, side by side, verified and replayable: gallery/index.html.
gallery: tools-all
	$(VENV)/bin/harness gallery --n 0-$(N) --out gallery

# The site CI publishes on GitHub Pages, at harness.SITE: the documentation built from docs/, the
# schemas at the addresses their $id give (schemas/), and the gallery (gallery/) made from the JSON
# report REPORT names (CI's merged one), or from a run here without one; GALLERY_OPTIONS are more of
# harness gallery's (--no-samples).
SITE_DIR ?= site
GALLERY_OPTIONS ?=

site: $(VENV)/.tested
	rm -rf $(SITE_DIR)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir $(SITE_DIR)
	mkdir -p $(SITE_DIR)/schemas
	cp harness/language.schema.json harness/report.schema.json harness/list.schema.json harness/bench.schema.json $(SITE_DIR)/schemas/
	$(VENV)/bin/harness gallery $(if $(REPORT),--report $(REPORT),--n 0-$(N)) $(GALLERY_OPTIONS) --out $(SITE_DIR)/gallery

# The integration tests run TEST_JOBS at once, a test file each: most of their time is spent waiting
# on real processes, servers and engines, and each test looks only at what it started.
TEST_JOBS ?= 2

# The sandbox's tools come before the ports': where bubblewrap works, harness doctor --install also
# installs a system copy of a tool found only where the sandbox does not look (rustup's rustc in a home).
test: check isolation-tools tools-all axe
	$(VENV)/bin/pytest -n $(TEST_JOBS) --dist loadfile tests/integration

check: $(VENV)/.tested
	$(VENV)/bin/python -m compileall -q harness
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest -q tests/unit

# The tools the ports need beyond Python, as each port's manifest names them in [[requires]]: where
# one is missing and this machine can install it (Debian's apt as root or through sudo, Homebrew on
# macOS), it is installed; otherwise harness doctor says how, and that port's cells say it is not
# installed here (an error under --strict). `tools` sets up the headline ports; `tools-all` every
# port, and the test suite's own small programs (tests/contributed).
tools: $(VENV)/.installed
	@$(VENV)/bin/harness --root . doctor --install --lang $(HEADLINE) || true

tools-all: $(VENV)/.installed
	@$(VENV)/bin/harness --root . doctor --install || true
	@$(VENV)/bin/harness --root tests/contributed doctor --install || true

# On Linux, what the containers and the sandbox need, each as COMMAND:DEBIAN-PACKAGE: a Docker engine
# (started by the tests where none answers), mmdebstrap for the base image with no registry,
# compose for docker-compose.yml, bubblewrap for --isolation sandbox; chromium with its driver, in
# which tests/integration/test_page.py and tests/integration/test_gallery.py open the page and the gallery; and npm, which
# installs axe-core (below). Installed with apt where it can be; otherwise the tests that need one
# are skipped, saying why.
ISOLATION_TOOLS = dockerd:docker.io docker-compose:docker-compose mmdebstrap:mmdebstrap bwrap:bubblewrap \
	chromium:chromium chromedriver:chromium-driver npm:npm

# apt waits for another apt (the machine's own updates, an install beside this one) to let go of its lock.
APT_WAITS = --option=DPkg::Lock::Timeout=600

isolation-tools:
	@[ "$$(uname -s)" = Linux ] || exit 0; \
	missing=""; for tool in $(ISOLATION_TOOLS); do \
	  command -v $${tool%%:*} >/dev/null || missing="$$missing $${tool#*:}"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  apt-get $(APT_WAITS) update -qq && DEBIAN_FRONTEND=noninteractive apt-get $(APT_WAITS) install -y -qq $$missing; \
	elif command -v apt-get >/dev/null && command -v sudo >/dev/null; then \
	  sudo apt-get $(APT_WAITS) update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get $(APT_WAITS) install -y -qq $$missing; \
	else \
	  echo "missing for --isolation sandbox/container and the HTML page's tests:$$missing (Debian packages); those tests are skipped"; \
	fi

# axe-core, the accessibility checker tests/integration/test_gallery.py runs in chromium on the gallery and the
# report page: from npm, into the virtual environment, where npm is; otherwise that test is skipped.
AXE = $(VENV)/axe/node_modules/axe-core/axe.min.js

axe: $(VENV)/.installed
	@[ -f $(AXE) ] || ! command -v npm >/dev/null || npm install --silent --no-audit --no-fund --prefix $(VENV)/axe axe-core@4 || \
	  echo "axe-core could not be installed from npm; the accessibility test is skipped"

# The harness with every extra (PostgreSQL, the Docker SDK, rich, pygments, pexpect); the test tools
# only where tests run. Its bytecode is compiled here and by make check, as pip compiles an installed
# package's: an editable install leaves that to Python's first import, which a machine that sets
# PYTHONDONTWRITEBYTECODE never does, so each command compiled the harness anew (0.7 s of CPU).
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[all]'
	$(VENV)/bin/python -m compileall -q harness
	touch $@

$(VENV)/.tested: $(VENV)/.installed
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
