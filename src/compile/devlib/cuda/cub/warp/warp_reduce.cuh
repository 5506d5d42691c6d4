/* <cub/warp/warp_reduce.cuh> on AMD: rocjit's CUB subset over rocPRIM (cub/rocjit_cub.cuh). */
#include <cub/rocjit_cub.cuh>
