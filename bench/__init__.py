"""Benchmarks of grid-rbd against peer implementations of the same algorithms."""
