/*
 * fake_hiprtc.c - a library named libhiprtc.so.5 that answers hipRTC's entry points with a
 * version no real hipRTC has (77.7) and refuses every compile.  test_env puts it beside a
 * HIP runtime named by ROCJIT_HIP_LIBRARY to prove that rocjit takes hipRTC from that
 * folder (ROCm >= 5.3 ships hipRTC as its own library there).
 */
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int hiprtcVersion(int *major, int *minor);
EXPORT int hiprtcCreateProgram(void **prog, const char *src, const char *name, int n,
			       const char **headers, const char **names);
EXPORT int hiprtcCompileProgram(void *prog, int n, const char **options);
EXPORT int hiprtcDestroyProgram(void **prog);
EXPORT int hiprtcGetProgramLogSize(void *prog, size_t *size);
EXPORT int hiprtcGetProgramLog(void *prog, char *log);
EXPORT int hiprtcGetCodeSize(void *prog, size_t *size);
EXPORT int hiprtcGetCode(void *prog, char *code);
EXPORT const char *hiprtcGetErrorString(int result);

static const char log_text[] = "fake hipRTC: this library compiles nothing";
static int program;

int hiprtcVersion(int *major, int *minor)
{
	*major = 77;
	*minor = 7;
	return 0;
}

int hiprtcCreateProgram(void **prog, const char *src, const char *name, int n,
			const char **headers, const char **names)
{
	(void)src, (void)name, (void)n, (void)headers, (void)names;
	*prog = &program;
	return 0;
}

int hiprtcCompileProgram(void *prog, int n, const char **options)
{
	(void)prog, (void)n, (void)options;
	return 6; /* HIPRTC_ERROR_COMPILATION */
}

int hiprtcDestroyProgram(void **prog)
{
	*prog = NULL;
	return 0;
}

int hiprtcGetProgramLogSize(void *prog, size_t *size)
{
	(void)prog;
	*size = sizeof log_text - 1;
	return 0;
}

int hiprtcGetProgramLog(void *prog, char *log)
{
	(void)prog;
	for (size_t i = 0; i < sizeof log_text - 1; i++)
		log[i] = log_text[i];
	return 0;
}

int hiprtcGetCodeSize(void *prog, size_t *size)
{
	(void)prog;
	*size = 0;
	return 0;
}

int hiprtcGetCode(void *prog, char *code)
{
	(void)prog, (void)code;
	return 0;
}

const char *hiprtcGetErrorString(int result)
{
	return result ? "HIPRTC_ERROR_COMPILATION" : "HIPRTC_SUCCESS";
}
