/*
 * bench_workers.c - cold compiles of op set instantiations through the compile workers
 * (issue 14): in series in the application's process, in series through one worker, and
 * in parallel through K workers (rocjit_prefetch); and what the worker itself costs.
 *
 *   bench_workers --target T [--kernels N|all] [--workers K[,K...]] [--reps R] [--json F]
 *
 * Each measurement is a new process (this program again) with an empty cache folder: it
 * registers the op set (the rocjit_ops objects), takes N instantiations spread over the
 * set's files (round robin, so that every file is in it), and times from before
 * rocjit_open to the last one compiled.  The cases:
 *   inprocess  ROCJIT_COMPILE_INPROCESS=1, one request after another (the application
 *              asking for each instantiation in turn, with no workers)
 *   serial     one request after another, each compiled in the one worker
 *   K workers  rocjit_prefetch of the N items with K threads and ROCJIT_WORKERS=K
 * The worker's share is rocjit_stats.worker_overhead_ms (what a compile cost beyond the
 * compiler's own time, as the worker timed it) over the compile time, with the first
 * compile (which includes starting the worker and loading the compiler in it) apart.
 *
 * With CUDA targets on a machine with a driver, set CUDA_CACHE_DISABLE=1: the driver's
 * compute cache would otherwise serve NVRTC's compiles (bench/RESULTS.md).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_set.h"
#include "bench_util.h"
#include "rocjit.h"

const char *bench_prog = "bench_workers";

struct item_list {
	rocjit_prefetch_item *items;
	rocjit_registered_options *ro;
	const char **exprs;
	int n;
};

/* n instantiations, round robin over the files (all of them for n <= 0). */
static void pick(struct item_list *l, const char *target, int n)
{
	int taken = 0, round = 0;

	if (n <= 0 || n > total_kernels)
		n = total_kernels;
	l->items = bench_calloc((size_t)n, sizeof *l->items);
	l->ro = bench_calloc((size_t)n, sizeof *l->ro);
	l->exprs = bench_calloc((size_t)n, sizeof *l->exprs);
	while (taken < n) {
		int any = 0;
		for (int f = 0; f < nfiles && taken < n; f++) {
			rocjit_registered_options init = ROCJIT_REGISTERED_OPTIONS_INIT;
			if (round >= files[f].nk)
				continue;
			any = 1;
			l->exprs[taken] = files[f].kernels[round];
			l->ro[taken] = init;
			l->ro[taken].name_expressions = &l->exprs[taken];
			l->ro[taken].num_name_expressions = 1;
			l->items[taken].registered = files[f].name;
			l->items[taken].registered_options = &l->ro[taken];
			l->items[taken].target = target;
			taken++;
		}
		if (!any)
			break;
		round++;
	}
	l->n = taken;
}

/* The child: one case, printed as key=value fields. */
static int child(const char *mode, const char *target, int n, int workers, const char *dir)
{
	struct item_list l;
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_stats st;
	rocjit_ctx *ctx;
	int64_t t0 = bench_now_ns();
	double first_ms = 0, first_over = 0, wall;
	int failed = 0;

	load_set();
	pick(&l, target, n);
	o.cache_dir = dir;
	if (rocjit_open(&ctx, &o) != 0)
		bench_die("rocjit_open: %s", rocjit_last_error());
	if (strcmp(mode, "prefetch") == 0) {
		rocjit_prefetch_options po = ROCJIT_PREFETCH_OPTIONS_INIT;
		rocjit_prefetch_status ps = ROCJIT_PREFETCH_STATUS_INIT;
		rocjit_prefetch *pf;
		po.threads = (unsigned int)workers;
		if (rocjit_prefetch_start(&pf, ctx, l.items, (size_t)l.n, &po) != 0)
			bench_die("rocjit_prefetch_start: %s", rocjit_last_error());
		rocjit_prefetch_wait(pf, -1);
		if (rocjit_prefetch_status_get(&ps, pf) != 0)
			bench_die("rocjit_prefetch_status_get: %s", rocjit_last_error());
		failed = (int)ps.failed;
		rocjit_prefetch_free(pf);
	} else {
		for (int i = 0; i < l.n; i++) {
			const rocjit_code *code;
			int64_t t1 = bench_now_ns();
			if (rocjit_compile_registered_v2(&code, ctx, target, l.items[i].registered,
							 l.items[i].registered_options) != 0) {
				fprintf(stderr, "%s %s: %s\n", l.items[i].registered, l.exprs[i],
					rocjit_last_error());
				failed++;
			}
			if (i == 0) {
				rocjit_stats s1;
				memset(&s1, 0, sizeof s1);
				s1.version = ROCJIT_STATS_VERSION;
				rocjit_stats_get(&s1, ctx);
				first_ms = bench_ms_since(t1);
				first_over = s1.worker_overhead_ms;
			}
		}
	}
	wall = bench_ms_since(t0);
	memset(&st, 0, sizeof st);
	st.version = ROCJIT_STATS_VERSION;
	rocjit_stats_get(&st, ctx);
	printf("wall_ms=%.3f compiles=%llu failed=%d compile_ms=%.3f overhead_ms=%.3f "
	       "first_ms=%.3f first_overhead_ms=%.3f worker_compiles=%llu workers_started=%llu "
	       "remote_hits=%llu remote_waits=%llu remote_puts=%llu\n",
	       wall, (unsigned long long)st.compiles, failed, st.compile_ms, st.worker_overhead_ms,
	       first_ms, first_over, (unsigned long long)st.worker_compiles,
	       (unsigned long long)st.workers_started, (unsigned long long)st.remote_hits,
	       (unsigned long long)st.remote_waits, (unsigned long long)st.remote_puts);
	rocjit_close(ctx);
	return failed ? 1 : 0;
}

struct result {
	const char *label;
	int workers;
	double wall[64], compile[64], overhead[64], first[64], first_over[64];
	int n;
};

static void run_case(struct result *r, const char *mode, const char *target, int n,
		     int workers, int rep)
{
	char t0s[32], out[4096], dir[4200], nstr[16], wstr[16];
	const char *argv[] = { "bench_workers", "--child", mode, target, nstr, wstr, dir, NULL };
	int status;

	snprintf(dir, sizeof dir, "%s/%s-%d-%d", bench_scratch("bench_workers"), mode, workers,
		 rep);
	snprintf(nstr, sizeof nstr, "%d", n);
	snprintf(wstr, sizeof wstr, "%d", workers);
	unsetenv("ROCJIT_COMPILE_INPROCESS");
	if (strcmp(mode, "inprocess") == 0)
		setenv("ROCJIT_COMPILE_INPROCESS", "1", 1);
	snprintf(t0s, sizeof t0s, "%d", workers);
	setenv("ROCJIT_WORKERS", t0s, 1);
	status = bench_run_self(argv, t0s, sizeof t0s, out, sizeof out);
	if (status != 0)
		bench_die("the %s child (%d workers) failed (%d): %s", mode, workers, status, out);
	r->wall[r->n] = bench_field(out, "wall_ms");
	r->compile[r->n] = bench_field(out, "compile_ms");
	r->overhead[r->n] = bench_field(out, "overhead_ms");
	r->first[r->n] = bench_field(out, "first_ms");
	r->first_over[r->n] = bench_field(out, "first_overhead_ms");
	r->n++;
	fprintf(stderr, "bench_workers: %s, %d worker(s), rep %d: %s", r->label, workers, rep, out);
}

/* The worker's share of the compile time: its overhead over the compiler's own time. */
static double share(double comp, double over)
{
	return comp > over && over >= 0 ? 100.0 * over / (comp - over) : 0;
}

int main(int argc, char **argv)
{
	const char *target = NULL, *json = NULL, *workers_arg = "2";
	int n = 20, reps = 3, nres = 0, inprocess = 1;
	struct result res[10];
	FILE *jf = NULL;

	if (argc == 7 && strcmp(argv[1], "--child") == 0)
		return child(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]), argv[6]);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--target") == 0 && i + 1 < argc)
			target = argv[++i];
		else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc)
			n = strcmp(argv[++i], "all") == 0 ? 0 : atoi(argv[i]);
		else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc)
			workers_arg = argv[++i];
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
			json = argv[++i];
		else if (strcmp(argv[i], "--no-inprocess") == 0)
			inprocess = 0;
		else
			bench_die("usage: bench_workers --target T [--kernels N|all] "
				  "[--workers K[,K...]] [--reps R] [--json F] [--no-inprocess]");
	}
	if (!target || reps < 1 || reps > 64)
		bench_die("--target is required; --reps 1..64");
	load_set();
	if (n <= 0 || n > total_kernels)
		n = total_kernels;
	memset(res, 0, sizeof res);
	if (inprocess)
		res[nres++].label = "inprocess";
	res[nres].label = "serial";
	res[nres++].workers = 1;
	for (char *list = bench_strdup(workers_arg), *tok = strtok(list, ","); tok && nres < 10;
	     tok = strtok(NULL, ",")) {
		res[nres].label = "prefetch";
		res[nres++].workers = atoi(tok);
	}
	/* Cases alternate within each repetition, so drift hits them alike. */
	for (int rep = 0; rep < reps; rep++)
		for (int c = 0; c < nres; c++)
			run_case(&res[c], res[c].label, target, n, res[c].workers ? res[c].workers : 1,
				 rep);
	if (json && !(jf = fopen(json, "w")))
		bench_die("cannot write %s", json);
	printf("%d instantiations of the op set for %s, cold (a new process, an empty cache), "
	       "median of %d\n", n, target, reps);
	printf("  inprocess: ROCJIT_COMPILE_INPROCESS=1, one request after another\n"
	       "  serial:    one request after another, each in the one worker\n"
	       "  prefetch:  rocjit_prefetch with K threads, ROCJIT_WORKERS=K\n");
	printf("%-10s %7s %11s %10s %10s %13s %13s %10s\n", "case", "workers", "wall ms",
	       "vs serial", "vs inproc", "worker share", "share 2nd..", "first ms");
	{
		struct result *ser = &res[inprocess ? 1 : 0];
		double base_ser = bench_median(ser->wall, ser->n);
		double base_in = inprocess ? bench_median(res[0].wall, res[0].n) : 0;
		for (int c = 0; c < nres; c++) {
			struct result *r = &res[c];
			double wall = bench_median(r->wall, r->n), comp = bench_median(r->compile, r->n);
			double over = bench_median(r->overhead, r->n);
			double first = bench_median(r->first, r->n);
			double fo = bench_median(r->first_over, r->n);
			double rest = share(comp - first, over - fo);
			printf("%-10s %7d %11.1f %9.2fx %9.2fx %12.2f%% %12.2f%% %10.1f\n", r->label,
			       r->workers, wall, base_ser / wall, base_in > 0 ? base_in / wall : 0,
			       share(comp, over), strcmp(r->label, "serial") ? 0 : rest, first);
			if (jf)
				fprintf(jf, "{\"case\":\"%s\",\"workers\":%d,\"target\":\"%s\","
					"\"kernels\":%d,\"wall_ms\":%.3f,\"compile_ms\":%.3f,"
					"\"overhead_ms\":%.3f,\"first_ms\":%.3f,"
					"\"first_overhead_ms\":%.3f,\"reps\":%d}\n", r->label,
					r->workers, target, n, wall, comp, over, first, fo, r->n);
		}
	}
	if (jf)
		fclose(jf);
	return 0;
}
