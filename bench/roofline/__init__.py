"""Roofline of the generated kernels.

count.py (with count.cpp): floating-point operations and compulsory global-memory bytes per sample of every
entry point, counted on the host build. peak.cu: the GPU's measured copy bandwidth and FMA rates.
model.py: achieved GFLOP/s, arithmetic intensity, the roofline limit and the percentage reached, per
benchmark row.
"""
