# The two commands a newcomer needs: `make compare` and `make test`.
# Both set up a virtual environment in .venv first (once, and again when pyproject.toml changes).

VENV ?= .venv
N ?= 5

.PHONY: compare test prolog clean

compare: $(VENV)/.installed prolog
	$(VENV)/bin/harness compare --n $(N)

test: $(VENV)/.installed prolog
	$(VENV)/bin/pytest

# SWI-Prolog, where it is missing and this machine can install it (Debian's apt as root or through
# sudo, Homebrew on macOS); otherwise say how, and the Prolog cells are skipped.
prolog:
	@command -v swipl >/dev/null || { \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq swi-prolog-nox; \
	  elif command -v apt-get >/dev/null && command -v sudo >/dev/null; then \
	    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq swi-prolog-nox; \
	  elif command -v brew >/dev/null; then \
	    brew install swi-prolog; \
	  fi; \
	  command -v swipl >/dev/null || echo "SWI-Prolog is missing: the Prolog cells will be skipped (Debian: apt-get install swi-prolog-nox; macOS: brew install swi-prolog)"; \
	}

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
