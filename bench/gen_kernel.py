#!/usr/bin/env python3
"""gen_kernel.py KERNELS STATEMENTS: a HIP source of KERNELS kernels, each STATEMENTS
lines of dependent arithmetic (no includes: it compiles on every hipRTC and NVRTC).  The
code object grows with both: the remote tier's benchmark makes its 16 KB and 1.8 MB objects
with it (bench/remote_bench.sh)."""
import sys

kernels, statements = int(sys.argv[1]), int(sys.argv[2])
for k in range(kernels):
    print(f'extern "C" __global__ void k{k}(float *x)\n{{')
    print('\tfloat a = x[threadIdx.x], b = x[threadIdx.x + 1];')
    for i in range(statements):
        print(f'\ta = a * x[{(i * 7 + k) % 4096}] + b; b = b * {1 + i % 13}.5f - a;')
    print('\tx[threadIdx.x] = a + b;\n}')
