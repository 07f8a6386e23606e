# The two commands a newcomer needs: `make compare` and `make test`.
# Both set up a virtual environment in .venv first (once, and again when pyproject.toml changes);
# make test runs the static checks (ruff, mypy) before the tests.

VENV ?= .venv
N ?= 5

.PHONY: compare test tools clean

compare: $(VENV)/.installed tools
	$(VENV)/bin/harness compare --n $(N)

test: $(VENV)/.installed tools
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

# The tools the ports need beyond Python and Bash, each as COMMAND:DEBIAN-PACKAGE:HOMEBREW-FORMULA.
# Where one is missing and this machine can install it (Debian's apt as root or through sudo,
# Homebrew on macOS), it is installed; otherwise make says how, and that port's cells are skipped.
TOOLS = swipl:swi-prolog-nox:swi-prolog c++:g++:gcc

# On Linux, what the containers and the sandbox need, each as COMMAND:DEBIAN-PACKAGE: a Docker engine
# (started by the tests where none answers), mmdebstrap for the base image with no registry,
# compose for docker-compose.yml, bubblewrap for --isolation sandbox. Installed with apt where it can
# be; otherwise the tests that need one are skipped, saying why.
LINUX_TOOLS = dockerd:docker.io docker-compose:docker-compose mmdebstrap:mmdebstrap bwrap:bubblewrap

tools:
	@if [ "$$(uname -s)" = Linux ]; then tools="$(TOOLS) $(LINUX_TOOLS)"; else tools="$(TOOLS)"; fi; \
	missing=""; for tool in $$tools; do \
	  set -- $$(echo $$tool | tr : ' '); command -v $$1 >/dev/null || missing="$$missing $$tool"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	debian=$$(for tool in $$missing; do echo $$tool | cut -d: -f2; done); \
	brew=$$(for tool in $$missing; do echo $$tool | cut -d: -f3; done); \
	if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$debian; \
	elif command -v apt-get >/dev/null && command -v sudo >/dev/null; then \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$debian; \
	elif command -v brew >/dev/null; then \
	  brew install $$brew; \
	fi; \
	for tool in $$missing; do \
	  set -- $$(echo $$tool | tr : ' '); \
	  command -v $$1 >/dev/null || echo "$$1 is missing: what needs it is skipped (Debian: apt-get install $$2$${3:+; macOS: brew install $$3})"; \
	done

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
