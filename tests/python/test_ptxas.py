"""bench.ptxas reads ptxas's verbose report per generated kernel (a log in ptxas 13.0's format)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.ptxas import parse_ptxas  # noqa: E402

LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN4grid23inverse_dynamics_kernelIdEEvPT_PKS1_S3_S3_NS_4Vec3IS1_EEi' for 'sm_90'
ptxas info    : Function properties for _ZN4grid23inverse_dynamics_kernelIdEEvPT_PKS1_S3_S3_NS_4Vec3IS1_EEi
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 384 bytes cmem[0]
ptxas info    : Compiling entry function '_ZN4grid17idsva_so_kernelIfEEvPT_i' for 'sm_90'
ptxas info    : Function properties for _ZN4grid17idsva_so_kernelIfEEvPT_i
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 96 bytes smem, 384 bytes cmem[0]
ptxas info    : Compiling entry function '_Z6helperPd' for 'sm_90'
ptxas info    : Used 8 registers
"""


def test_parse_ptxas_reads_every_generated_kernel():
    assert parse_ptxas(LOG) == [
        {"algorithm": "inverse_dynamics", "dtype": "float64", "arch": "sm_90", "stack_bytes": 16,
         "spill_store_bytes": 8, "spill_load_bytes": 4, "registers": 40, "static_smem_bytes": 0},
        {"algorithm": "idsva_so", "dtype": "float32", "arch": "sm_90", "stack_bytes": 0,
         "spill_store_bytes": 0, "spill_load_bytes": 0, "registers": 255, "static_smem_bytes": 96},
    ]
