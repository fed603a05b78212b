"""Benchmarks, run on demand: ``python -m benchmarks.<name>`` (never in the test suite)."""
