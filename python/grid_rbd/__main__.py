"""``python -m grid_rbd build ROBOT.urdf [--floating] [--roll=MODE] [--defer=WHEN]``: build a robot's kernels.

Generates and compiles them (cached) and prints the build folder, which ``JaxRobotHandle(folder)`` and
``RobotHandle(folder)`` load."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grid_rbd", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build a robot from its URDF (cached) and print its folder")
    build.add_argument("urdf", help="path to the URDF file")
    build.add_argument("--floating", action="store_true", help="add a free-flyer base")
    build.add_argument("--roll", default="auto", choices=("auto", "always", "never"),
                       help="rolled description (compiles in seconds, no second-order kernels), unrolled, or auto "
                            "(rolled above 64 bodies)")
    build.add_argument("--defer", choices=("background", "first-use", "no"),
                       help="when the derivative and rollout kernels compile: in a process started now (default), "
                            "on first use, or before this returns (default $GRID_RBD_DEFER, else background)")
    args = parser.parse_args(argv)
    from ._runtime_build import BuildError, build_from_urdf

    try:
        folder = build_from_urdf(args.urdf, floating=args.floating, roll=args.roll, defer=args.defer, quiet=False)
    except (OSError, ValueError, BuildError) as exc:
        print(f"grid_rbd build: {exc}", file=sys.stderr)
        return 1
    print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
