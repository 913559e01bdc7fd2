"""Benchmarks (``make bench``): printed figures with the raw reference beside them, medians of runs."""
