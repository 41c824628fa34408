"""The test suite (a package, so that `tests.*` helpers win over a `tests` package some dependencies install)."""
