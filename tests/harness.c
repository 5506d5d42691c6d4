/*
 * harness.c - the test runner behind harness.h: `test_x NAME` runs one test in a fresh
 * temporary folder, `test_x` with no argument lists the names.
 */
#include "harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rocjit.h"

struct rj_test *rj_tests;
char rj_test_dir[4096];
char rj_test_cache_dir[4200];

const char rj_test_axpy[] =
	"#include <hip/hip_runtime.h>\n"
	"extern \"C\" __global__ void axpy(int n, float a, const float *x, float *y)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] = a * x[i] + y[i];\n"
	"}\n";

int rj_test_have_nvrtc(void)
{
	static const char *const names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
					     "/usr/local/cuda/lib64/libnvrtc.so" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			dlclose(h);
			return 1;
		}
	}
	return 0;
}

int rj_test_try_variant(const rocjit_code **c, rocjit_ctx *ctx, const char *target,
			const char *macro, int i)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	char opt[96];
	const char *o[1] = { opt };

	snprintf(opt, sizeof opt, "-D%s=%d", macro, i);
	p.source = rj_test_axpy;
	p.options = o;
	p.num_options = 1;
	return rocjit_compile(c, ctx, target, &p);
}

const rocjit_code *rj_test_compile_variant(rocjit_ctx *ctx, const char *target,
					   const char *macro, int i)
{
	const rocjit_code *c = NULL;

	ASSERT_INT(rj_test_try_variant(&c, ctx, target, macro, i), 0);
	return c;
}

rocjit_stats rj_test_stats(rocjit_ctx *ctx)
{
	rocjit_stats st;

	memset(&st, 0, sizeof st);
	st.version = ROCJIT_STATS_VERSION;
	ASSERT_INT(rocjit_stats_get(&st, ctx), 0);
	return st;
}

rocjit_ctx *rj_test_open(void)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_ctx *ctx;
	o.cache_dir = rj_test_cache_dir;
	ASSERT_INT(rocjit_open(&ctx, &o), 0);
	return ctx;
}

void rj_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: assertion failed: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  (test folder kept: %s)\n", rj_test_dir);
	exit(1);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw);

int rj_test_in_child(int (*fn)(int), int arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(60);
		_exit(fn(arg));
	}
	ASSERT(pid > 0 && waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void rj_test_skip(const char *fmt, ...)
{
	va_list ap;
	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	nftw(rj_test_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	exit(77);
}

char *rj_test_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;
	if (!f)
		rj_test_fail(__FILE__, __LINE__, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		rj_test_fail(__FILE__, __LINE__, "cannot read %s", path);
	buf[n] = 0;
	fclose(f);
	if (size)
		*size = (size_t)n;
	return buf;
}

void rj_test_write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		rj_test_fail(__FILE__, __LINE__, "cannot write %s", path);
}

void rj_test_exec(const char *const argv[], const char *const env[])
{
	char *args[64];
	size_t n = 0;

	for (size_t i = 0; env && env[i]; i++)
		putenv(strdup(env[i]));
	for (; argv[n] && n < 63; n++)
		args[n] = strdup(argv[n]);
	args[n] = NULL;
	execv(args[0], args);
	perror(args[0]);
	_exit(127);
}

int rj_test_compile(const rocjit_code **code, rocjit_ctx *ctx, const char *target,
		    const char *name, const char *src, const char *const *opts, size_t nopts,
		    const rocjit_header *headers, size_t nheaders, char *log, size_t log_size)
{
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	int rc;

	p.source = src;
	p.name = name;
	p.options = opts;
	p.num_options = nopts;
	p.headers = headers;
	p.num_headers = nheaders;
	rc = rocjit_compile(code, ctx, target, &p);
	if (log_size) /* this thread's log of that call (rocjit_last_log), cut to fit */
		snprintf(log, log_size, "%s", rocjit_last_log());
	return rc;
}

int rj_test_run(const char *const argv[], const char *const env[], char **output)
{
	int pipefd[2];
	pid_t pid;
	int status;
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);

	if (pipe(pipefd) != 0 || !out)
		rj_test_fail(__FILE__, __LINE__, "pipe");
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		rj_test_exec(argv, env);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t n;
		if (len + 1024 > cap) {
			cap *= 2;
			out = realloc(out, cap);
		}
		n = read(pipefd[0], out + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	out[len] = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (output)
		*output = out;
	else
		free(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	struct rj_test *t;

	if (argc < 2) {
		for (t = rj_tests; t; t = t->next)
			printf("%s\n", t->name);
		return 0;
	}
	for (t = rj_tests; t; t = t->next)
		if (strcmp(t->name, argv[1]) == 0)
			break;
	if (!t) {
		fprintf(stderr, "no test named %s\n", argv[1]);
		return 2;
	}
	snprintf(rj_test_dir, sizeof rj_test_dir, "%s/rocjit-test-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(rj_test_dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(rj_test_cache_dir, sizeof rj_test_cache_dir, "%s/cache", rj_test_dir);
	/* Never touch the user's real cache or config from a test. */
	setenv("HOME", rj_test_dir, 1);
	unsetenv("XDG_CACHE_HOME");
	/* Nor the machine's configuration files (ROCJIT_CONFIG: none, unless a test says). */
	unsetenv("XDG_CONFIG_HOME");
	setenv("ROCJIT_CONFIG", "", 1);
	unsetenv("ROCJIT_CACHE_DIR");
	unsetenv("ROCJIT_KERNEL_PATH");
	unsetenv("ROCJIT_DISABLE_CACHE");
	unsetenv("ROCJIT_NO_COMPILE");
	unsetenv("ROCJIT_ARCH");
	unsetenv("ROCJIT_PLATFORM");
	t->fn();
	nftw(rj_test_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	printf("PASS %s\n", t->name);
	return 0;
}

int rj_test_stderr_capture(const char *path)
{
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ASSERT(saved >= 0 && fd >= 0);
	fflush(stderr);
	ASSERT(dup2(fd, 2) == 2);
	close(fd);
	return saved;
}

char *rj_test_stderr_restore(int saved, const char *path)
{
	size_t size;

	fflush(stderr);
	ASSERT(dup2(saved, 2) == 2);
	close(saved);
	return rj_test_read_file(path, &size);
}

void rj_test_skip_without(int platform, const char *what)
{
	char buf[64];

	if (rocjit_compiler_targets_get(buf, sizeof buf, platform) != 0)
		rj_test_skip("%s is not installed: %s", what, rocjit_last_error());
}

int rj_test_has_kernel(const rocjit_codeobj_info *info, const char *name)
{
	for (size_t k = 0; k < info->num_kernels; k++)
		if (strcmp(info->kernels[k], name) == 0)
			return 1;
	return 0;
}

int rj_test_fixture_try(rocjit_ctx *ctx, const char *target, const char *dir, const char *file,
			const char *const *options, char *log, size_t log_size,
			const rocjit_code **code)
{
	char path[4096];
	size_t len, n = 0;
	char *src;
	int rc;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	src = rj_test_read_file(path, &len);
	while (options && options[n])
		n++;
	rc = rj_test_compile(code, ctx, target, path, src, options, n, NULL, 0, log, log_size);
	free(src);
	return rc;
}

rocjit_codeobj_info *rj_test_fixture(rocjit_ctx *ctx, const char *target, const char *dir,
				     const char *file, const char *const *options,
				     const char *const *want)
{
	char log[32768];
	const rocjit_code *code = NULL;
	int rc = rj_test_fixture_try(ctx, target, dir, file, options, log, sizeof log, &code);

	if (rc)
		printf("%s for %s:\n%s\n", file, target, log);
	ASSERT_INT(rc, 0);
	return rj_test_assert_kernels(code, file, target, want);
}

rocjit_codeobj_info *rj_test_assert_kernels(const rocjit_code *code, const char *what,
					    const char *target, const char *const *want)
{
	rocjit_codeobj_info *info = NULL;

	ASSERT_INT(rocjit_codeobj_inspect(&info, code->data, code->size), 0);
	for (size_t k = 0; want && want[k]; k++) {
		if (!rj_test_has_kernel(info, want[k]))
			printf("%s for %s: kernel %s missing\n", what, target, want[k]);
		ASSERT(rj_test_has_kernel(info, want[k]));
	}
	return info;
}

int rj_test_mapped_copies(const char *name)
{
	char line[4400], seen[8][4400];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	ASSERT(f != NULL);
	while (fgets(line, sizeof line, f)) {
		char *path = strchr(line, '/');
		const char *slash;
		int known = 0;
		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		slash = strrchr(path, '/');
		if (strncmp(slash + 1, name, strlen(name)) != 0)
			continue;
		for (int i = 0; i < n; i++)
			known |= !strcmp(seen[i], path);
		if (!known && n < 8)
			snprintf(seen[n++], sizeof seen[0], "%s", path);
	}
	fclose(f);
	return n;
}
