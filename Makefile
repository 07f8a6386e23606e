# The two commands a newcomer needs: `make compare` and `make test`.
# Both set up a virtual environment in .venv first (once, and again when pyproject.toml changes);
# make test runs the static checks (ruff, mypy) before the tests.

VENV ?= .venv
N ?= 5

.PHONY: compare test tools clean

compare: tools
	$(VENV)/bin/harness compare --n $(N)

test: tools
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

# The tools the ports need beyond Python, as each port's manifest names them in [[requires]]: where
# one is missing and this machine can install it (Debian's apt as root or through sudo, Homebrew on
# macOS), it is installed; otherwise harness doctor says how, and that port's cells are skipped.
# The test suite's own small programs (tests/contributed) are set up the same way.
tools: $(VENV)/.installed
	@$(VENV)/bin/harness --root . doctor --install || true
	@$(VENV)/bin/harness --root tests/contributed doctor --install || true

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
