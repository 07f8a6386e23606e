# The two commands a newcomer needs: `make compare` and `make test`.
# Both set up a virtual environment in .venv first (once, and again when pyproject.toml changes).

VENV ?= .venv
N ?= 5

.PHONY: compare test clean

compare: $(VENV)/.installed
	$(VENV)/bin/harness compare --n $(N)

test: $(VENV)/.installed
	$(VENV)/bin/pytest

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
