"""Peer implementations the benchmarks measure grid-rbd against (and that double as extra oracles)."""
