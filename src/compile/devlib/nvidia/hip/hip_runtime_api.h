/*
 * hip/hip_runtime_api.h as rocjit serves it to NVRTC.  In device code everything it would
 * contribute is in rocjit's pre-included hip/hip_runtime.h; the host API it declares does
 * not exist in device code.
 */
#pragma once

#include <hip/hip_runtime.h>
