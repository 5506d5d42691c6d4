/* <cub/cub.cuh> on AMD: every part of rocjit's CUB subset over rocPRIM (cub/rocjit_cub.cuh
   says which); the device-wide and host parts of CUB are not in it. */
#include <cub/rocjit_cub.cuh>
