"""The contract check: every function of the operator spec is defined in kernels/glass and exercised by a
harness call. Sections listed in COMPLETE must be fully covered; the coverage of all sections is printed at
the end of the run (see conftest.pytest_terminal_summary)."""

from __future__ import annotations

import contract

# sections whose every function is implemented and tested; a section joins when its family lands
COMPLETE: tuple[str, ...] = (
    "SO(3): exp / log / Jacobians",
    "SE(3): retract + derivatives",
    "Planar angles",
    "Spatial 6-D cross products",
    "Spatial coordinate transforms",
    "Spatial inertia (10 parameters)",
    "Quaternions",
    "Pose errors",
    "Cones & projections",
    "Interval / AL / barrier scalars",
    "Geometry distances",
    "Fused Gauss-Newton / LM step",
    "Sampling reductions (L1)",
)

COVERAGE: dict[str, tuple[int, int, int]] = {}  # section -> (functions, in headers, tested)
SCOPE_COVERAGE: dict[str, tuple[int, int]] = {}  # section -> (function·scope units, tested)


def test_spec_is_parsed():
    functions = contract.spec_functions()
    assert len(functions) >= 100, f"only {len(functions)} functions parsed from {contract.SPEC}"
    assert any(f.name == "motion_cross_mul" for f in functions)


def test_coverage(harness):
    text = contract.header_text()
    tested = harness.functions()
    scopes: dict[str, set[str]] = {}
    for name in harness.names:
        parts = name.split("/")
        scopes.setdefault(parts[0].split("[")[0], set()).add(parts[1] if len(parts) > 1 else "")
    missing: list[str] = []
    for f in contract.spec_functions():
        units = contract.scope_units(f)
        have = scopes.get(f.name, set())
        done = [u for u in units if (u == "any" and have) or u in have]
        n_units, n_done = SCOPE_COVERAGE.get(f.section, (0, 0))
        SCOPE_COVERAGE[f.section] = (n_units + len(units), n_done + len(done))
        if f.section in COMPLETE and len(done) < len(units):
            missing.append(f"{f.section}: {f.name} not exercised in scope(s) {sorted(set(units) - set(done))}")
        defined = contract.defined_in_headers(f.name, text)
        covered = f.name in tested
        n, d, t = COVERAGE.get(f.section, (0, 0, 0))
        COVERAGE[f.section] = (n + 1, d + int(defined), t + int(defined and covered))
        if f.section in COMPLETE and not (defined and covered):
            missing.append(f"{f.section}: {f.name} ({'untested' if defined else 'not in the headers'})")
    assert not missing, "sections declared complete have gaps:\n" + "\n".join(missing)

    unknown = sorted(set(COMPLETE) - {f.section for f in contract.spec_functions()})
    assert not unknown, f"COMPLETE names sections the spec does not have: {unknown}"
