"""The tier of tests that start nothing they do not test: `make check` runs it before every commit."""
