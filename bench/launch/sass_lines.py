"""Counts a cubin's SASS instructions by the source line they came from.

At batch 1 an unrolled kernel streams its code once, so where its instructions come from says where its time
goes. Compile a kernel with line information, then count:

    nvcc -cubin -O3 -arch=sm_90 -std=c++17 -lineinfo -I kernels -I ROBOT_DIR unit.cu -o k.cubin
    python3 bench/launch/sass_lines.py k.cubin                      # by innermost file and by opcode
    python3 bench/launch/sass_lines.py k.cubin --focus aba.cuh      # by line of one template file

``--focus FILE`` attributes each instruction to the innermost line of FILE on its inline stack (the template
line whose inlined callees produced it) and names the callee line under it. Needs ``nvdisasm`` on PATH (a CUDA
toolkit, or PyPI's ``nvidia-cuda-nvdisasm`` wheel); the stacks are the compiler's after scheduling, so read
the counts per line, not per instruction.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys

LINE = re.compile(r'\s*//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?')
INSTRUCTION = re.compile(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)")

Frame = tuple[str, int]


def instructions(sass: str) -> list[tuple[str, list[Frame]]]:
    """(opcode, inline stack innermost first) for every instruction of nvdisasm -gi's output."""
    out: list[tuple[str, list[Frame]]] = []
    stack: list[Frame] = []
    fresh = True
    for line in sass.splitlines():
        m = LINE.match(line)
        if m:
            if fresh:
                stack, fresh = [], False
            frame = (m.group(1).rsplit("/", 1)[-1], int(m.group(2)))
            if not stack or stack[-1] != frame:
                stack.append(frame)
            if m.group(3):
                stack.append((m.group(3).rsplit("/", 1)[-1], int(m.group(4))))
            continue
        m = INSTRUCTION.match(line)
        if m:
            fresh = True
            out.append((m.group(2).split(".")[0], stack))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cubin")
    parser.add_argument("--focus", help="a source file name (e.g. aba.cuh): count by its lines")
    parser.add_argument("--top", type=int, default=25, help="rows to print per table")
    args = parser.parse_args(argv)
    nvdisasm = shutil.which("nvdisasm")
    if nvdisasm is None:
        print("nvdisasm is not on PATH: install a CUDA toolkit or `pip install nvidia-cuda-nvdisasm`", file=sys.stderr)
        return 2
    sass = subprocess.run([nvdisasm, "-gi", "-c", args.cubin], check=True, capture_output=True, text=True).stdout
    ins = instructions(sass)
    print(f"{len(ins)} instructions in {args.cubin}")
    ops = collections.Counter(op for op, _ in ins)
    files = collections.Counter(stack[0][0] if stack else "?" for _, stack in ins)
    print("by opcode:", ", ".join(f"{op} {n}" for op, n in ops.most_common(args.top)))
    print("by innermost file:", ", ".join(f"{f} {n}" for f, n in files.most_common(args.top)))
    if args.focus:
        by_line: collections.Counter[tuple[int, str]] = collections.Counter()
        for _, stack in ins:
            at = [k for k, (f, _) in enumerate(stack) if f == args.focus]
            if not at:
                by_line[(0, "not inlined from " + args.focus)] += 1
                continue
            k = at[0]
            callee = "%s:%d" % stack[k - 1] if k > 0 else "(the line itself)"
            by_line[(stack[k][1], callee)] += 1
        per_line = collections.Counter()
        for (line, _), n in by_line.items():
            per_line[line] += n
        print(f"by line of {args.focus} (line: instructions):")
        for line, n in sorted(per_line.items()):
            print(f"  {line}: {n}")
        print("largest (line, callee):")
        for (line, callee), n in by_line.most_common(args.top):
            print(f"  {args.focus}:{line} via {callee}: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
