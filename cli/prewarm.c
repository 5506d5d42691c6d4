/*
 * prewarm.c - `rocjit prewarm`: compile kernels into the cache for one or more targets,
 * so that applications find exactly the keys they look up.
 *
 * Steps: read the inputs into kernel sets (kernelset.c); make one job per program and
 * target (identical programs once): a program is a source file compiled whole, or with
 * the name expressions that --name-expr or a manifest's expr= lines give (one program per
 * expr= line, as the application asks for each); skip at once the jobs whose key is
 * already cached (a context opened with ROCJIT_OPEN_NO_COMPILE answers ROCJIT_ENOTCACHED
 * for a missing key, and READONLY keeps these look-ups out of the cache's hit counters;
 * an empty cache needs no look-up); run the rest --jobs at a time (workers.c; each
 * compile runs in one of the library's compile worker processes), largest first; a
 * target the compiler refuses fails its remaining jobs untried; look up at the end which
 * compiled keys the cache still holds (a small size limit evicts what this run stored);
 * print a summary with every failure's compiler log and every reason something was not
 * stored.
 * Exit status 1 unless everything asked for is in the cache.
 *
 * `rocjit export` is prewarm, then the entries it stored or found written to a new bundle.
 *
 * Owns the jobs and sets of one run.  Uses the files below the commands (kernelset.c,
 * workers.c, progress.c, cache.c, ...), never another command's file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

#define JOB_PENDING 0
#define JOB_CACHED 1
#define JOB_COMPILED 2
#define JOB_FAILED 3
#define JOB_DUPLICATE 4 /* the same program as an earlier job: done by that one */
#define JOB_UNSTORED 5  /* compiled, but not in the cache (res.message says why) */
#define JOB_STATES 6

struct pjob {
	const struct cli_set *set;
	const struct cli_source *file;
	const char *const *exprs; /* the program's name expressions (NULL: none)       */
	size_t nexprs;
	const char *target;
	size_t t;       /* index of target in run.targets */
	int state;
	uint64_t hash;
	double ms;
	struct cli_job_result res;
};

struct run {
	struct cli_targets targets;
	struct cli_set *sets;
	size_t nsets;
	const char *const *options;
	size_t noptions;
	struct pjob *jobs;
	size_t njobs;
	long workers;   /* --jobs: the most worker processes                            */
	long used;      /* worker processes this run needed: min(workers, jobs to run)  */
	double timeout; /* --timeout: a job's time limit in seconds, or -1: the default  */
	int json, progress;
	double t0;
	const char *output; /* export: the bundle to write, else NULL */
	const char **inputs;  /* the PATHs and manifests, loaded once the options are read */
	int *as_manifest;
	size_t ninputs;
	const char **headers; /* --header: folder members that are headers by name */
	size_t nheaders;
	int language;         /* --lang: ROCJIT_LANG_* for every source; AUTO by name */
	char **exprs;         /* --name-expr: for every source no expr= line names    */
	size_t nexprs;
	int any_exprs;        /* some job has name expressions: jobs are "programs"  */
	int push;             /* --push: put every entry of the run on the remote tier    */
	int pushed_done;      /* the push ran: the counts below are its                   */
	size_t pushed, present, push_failed;
	char push_error[1024];
	char remote_url[512];
};

enum { OPT_ARCH = 1, OPT_JOBS, OPT_MANIFEST, OPT_JSON, OPT_NO_PROGRESS, OPT_OUTPUT,
       OPT_TIMEOUT, OPT_HEADER, OPT_LANG, OPT_PUSH, OPT_NAME_EXPR };

static const struct cli_opt prewarm_opts[] = {
	{ "arch", 'a', 1, OPT_ARCH },	      { "jobs", 'j', 1, OPT_JOBS },
	{ "manifest", 'm', 1, OPT_MANIFEST }, { "json", 0, 0, OPT_JSON },
	{ "no-progress", 0, 0, OPT_NO_PROGRESS }, { "timeout", 0, 1, OPT_TIMEOUT },
	{ "header", 0, 1, OPT_HEADER }, { "lang", 0, 1, OPT_LANG }, { "push", 0, 0, OPT_PUSH },
	{ "name-expr", 0, 1, OPT_NAME_EXPR }, { NULL, 0, 0, 0 }
};

/* export takes prewarm's options and -o FILE. */
static const struct cli_opt export_opts[] = {
	{ "arch", 'a', 1, OPT_ARCH },	      { "jobs", 'j', 1, OPT_JOBS },
	{ "manifest", 'm', 1, OPT_MANIFEST }, { "json", 0, 0, OPT_JSON },
	{ "no-progress", 0, 0, OPT_NO_PROGRESS }, { "output", 'o', 1, OPT_OUTPUT },
	{ "timeout", 0, 1, OPT_TIMEOUT }, { "header", 0, 1, OPT_HEADER },
	{ "lang", 0, 1, OPT_LANG }, { "name-expr", 0, 1, OPT_NAME_EXPR }, { NULL, 0, 0, 0 }
};

static void add_input(struct run *r, const char *path, int as_manifest)
{
	r->inputs = cli_realloc(r->inputs, (r->ninputs + 1) * sizeof *r->inputs);
	r->as_manifest = cli_realloc(r->as_manifest, (r->ninputs + 1) * sizeof *r->as_manifest);
	r->inputs[r->ninputs] = path;
	r->as_manifest[r->ninputs++] = as_manifest;
}

/* Loads the inputs, after every option was read (--header applies to every folder). */
static int load_sets(struct run *r)
{
	int rc = CLI_OK;

	for (size_t i = 0; i < r->ninputs; i++) {
		r->sets = cli_realloc(r->sets, (r->nsets + 1) * sizeof *r->sets);
		if (cli_set_load(&r->sets[r->nsets++], r->inputs[i], r->as_manifest[i],
				 r->headers, r->nheaders) != CLI_OK)
			rc = CLI_FAIL;
	}
	return rc;
}

/* FNV-1a over a length-prefixed field: identical programs get identical hashes. */
static uint64_t mix(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof n; i++)
		h = (h ^ ((n >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t job_hash(const struct pjob *j, int language)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char lang = (char)rocjit_program_language(language, j->file->name);

	h = mix(h, &lang, 1);
	h = mix(h, j->target, strlen(j->target));
	h = mix(h, j->file->text, j->file->length);
	for (size_t i = 0; i < j->nexprs; i++)
		h = mix(h, j->exprs[i], strlen(j->exprs[i]));
	h = mix(h, (const char *)&j->nexprs, sizeof j->nexprs);
	for (size_t i = 0; i < j->set->nheaders; i++) {
		h = mix(h, j->set->headers[i].name, strlen(j->set->headers[i].name));
		h = mix(h, j->set->headers[i].source, j->set->headers[i].length);
	}
	return h;
}

static void add_job(struct run *r, size_t s, size_t f, size_t t, const char *const *exprs,
		    size_t nexprs)
{
	struct pjob *j;

	r->jobs = cli_realloc(r->jobs, (r->njobs + 1) * sizeof *r->jobs);
	j = &r->jobs[r->njobs++];
	memset(j, 0, sizeof *j);
	j->set = &r->sets[s];
	j->file = &r->sets[s].files[f];
	j->exprs = nexprs ? exprs : NULL;
	j->nexprs = nexprs;
	j->target = r->targets.ids[t];
	j->t = t;
	j->hash = job_hash(j, r->language);
	r->any_exprs |= nexprs > 0;
	for (size_t k = 0; k + 1 < r->njobs; k++)
		if (r->jobs[k].hash == j->hash && r->jobs[k].state != JOB_DUPLICATE) {
			j->state = JOB_DUPLICATE;
			break;
		}
}

/*
 * One job per (target, program); header files are not compiled on their own.  A source
 * that expr= lines name is compiled as each of those programs and never whole (the
 * application never asks for it whole); any other source once, with --name-expr's
 * expressions when given.
 */
static void make_jobs(struct run *r)
{
	for (size_t t = 0; t < r->targets.n; t++)
		for (size_t s = 0; s < r->nsets; s++)
			for (size_t f = 0; f < r->sets[s].n; f++) {
				const struct cli_set *set = &r->sets[s];
				int named = 0;
				if (set->files[f].header)
					continue;
				for (size_t p = 0; p < set->nprograms; p++)
					if (set->programs[p].file == f) {
						add_job(r, s, f, t,
							(const char *const *)set->programs[p].exprs,
							set->programs[p].nexprs);
						named = 1;
					}
				if (!named)
					add_job(r, s, f, t, (const char *const *)r->exprs, r->nexprs);
			}
}

static void job_program(const struct run *r, const struct pjob *j, struct cli_job *out)
{
	out->target = j->target;
	out->name = j->file->name;
	out->source = j->file->text;
	out->length = j->file->length;
	out->options = r->options;
	out->noptions = r->noptions;
	out->headers = j->set->headers;
	out->nheaders = j->set->nheaders;
	out->language = r->language;
	out->exprs = j->exprs;
	out->nexprs = j->nexprs;
}

static void fail_job(struct pjob *j, int rc, const char *message)
{
	j->state = JOB_FAILED;
	j->res.rc = rc;
	j->res.message = cli_strdup(message);
	j->res.log = cli_strdup("");
	j->res.kernels = cli_strdup("");
}

/* Marks cached jobs; leaves the others pending (or failed, for an unusable request). */
static int check_cached(struct run *r)
{
	rocjit_ctx *ctx;

	if (cli_open(&ctx, ROCJIT_OPEN_NO_COMPILE | ROCJIT_OPEN_READONLY, 0) != CLI_OK)
		return CLI_FAIL;
	for (size_t i = 0; i < r->njobs; i++) {
		struct pjob *j = &r->jobs[i];
		rocjit_program p = ROCJIT_PROGRAM_INIT;
		const rocjit_code *code;
		struct cli_job job;
		int rc;

		if (j->state != JOB_PENDING)
			continue;
		job_program(r, j, &job);
		p.source = job.source;
		p.length = job.length;
		p.name = job.name;
		p.options = job.noptions ? job.options : NULL;
		p.num_options = job.noptions;
		p.headers = job.nheaders ? job.headers : NULL;
		p.num_headers = job.nheaders;
		p.language = job.language;
		p.name_expressions = job.nexprs ? job.exprs : NULL;
		p.num_name_expressions = job.nexprs;
		rc = rocjit_compile(&code, ctx, j->target, &p);
		if (rc == 0) {
			rocjit_codeobj_info *info = NULL;
			j->state = JOB_CACHED;
			snprintf(j->res.key, sizeof j->res.key, "%s", code->key);
			/* Its kernels, for the 0-kernel warning (a worker's result has them). */
			if (rocjit_codeobj_inspect(&info, code->data, code->size) == 0) {
				size_t len = 1;
				for (size_t k = 0; k < info->num_kernels; k++)
					len += strlen(info->kernels[k]) + 1;
				j->res.kernels = cli_alloc(len);
				j->res.kernels[0] = 0;
				for (size_t k = 0; k < info->num_kernels; k++) {
					if (k)
						strcat(j->res.kernels, ",");
					strcat(j->res.kernels, info->kernels[k]);
				}
			}
			rocjit_codeobj_info_free(info);
		} else if (rc != ROCJIT_ENOTCACHED) {
			fail_job(j, rc, rocjit_last_error());
		}
	}
	rocjit_close(ctx);
	return CLI_OK;
}

/* Bigger sources first, AMD (slow hipRTC) before NVIDIA: the longest jobs do not end up
 * alone at the end. */
static int cost_cmp(const void *pa, const void *pb)
{
	const struct pjob *a = *(struct pjob *const *)pa, *b = *(struct pjob *const *)pb;
	int pa_amd = rocjit_target_platform(a->target) == ROCJIT_PLATFORM_AMD;
	int pb_amd = rocjit_target_platform(b->target) == ROCJIT_PLATFORM_AMD;

	if (pa_amd != pb_amd)
		return pb_amd - pa_amd;
	if (a->file->length != b->file->length)
		return a->file->length < b->file->length ? 1 : -1;
	return a < b ? -1 : a > b;
}

/* What a job compiles, for people: "axpy.hip", or "unary.hip 'unary<rj_op_neg, float>'"
 * with its first name expression (and "+N more"). */
static const char *job_program_name(char *buf, size_t size, const struct pjob *j)
{
	if (!j->nexprs)
		snprintf(buf, size, "%s", j->file->name);
	else if (j->nexprs == 1)
		snprintf(buf, size, "%s '%s'", j->file->name, j->exprs[0]);
	else
		snprintf(buf, size, "%s '%s' +%zu more", j->file->name, j->exprs[0],
			 j->nexprs - 1);
	return buf;
}

static void job_label(char *buf, size_t size, const struct pjob *j)
{
	char what[400];

	snprintf(buf, size, "%s (%s)", job_program_name(what, sizeof what, j), j->target);
}

/* Whether a failure is the target's, not the source's: no source compiles for it. */
static int target_refused(int rc)
{
	return rc == ROCJIT_EUNSUPPORTED || rc == ROCJIT_ENOCOMPILER;
}

/*
 * A job's target was refused (unknown to the compiler, or no compiler): the jobs of that
 * target not handed out yet fail with the same message, untried.  The library checks the
 * target before compiling, so this costs one job, and this process never loads a
 * compiler just to check targets.  Returns how many were failed.
 */
static size_t refuse_target(struct pjob **queue, size_t nq, size_t next, const struct pjob *j,
			    struct cli_progress *pr)
{
	char label[512];
	size_t n = 0;

	for (size_t k = next; k < nq; k++) {
		if (queue[k]->t != j->t || queue[k]->state != JOB_PENDING)
			continue;
		fail_job(queue[k], j->res.rc, j->res.message);
		job_label(label, sizeof label, queue[k]);
		cli_progress_finished(pr, label, "FAILED (target refused)", 0);
		n++;
	}
	return n;
}

/* Hands the pending jobs to the pool, largest first, and collects the results. */
static void compile_pending(struct run *r, struct cli_pool *pool)
{
	struct pjob **queue = cli_alloc((r->njobs ? r->njobs : 1) * sizeof *queue);
	double *started = cli_alloc((r->njobs ? r->njobs : 1) * sizeof *started);
	size_t nq = 0, next = 0, done = 0;
	struct cli_progress pr;

	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].state == JOB_PENDING)
			queue[nq++] = &r->jobs[i];
	qsort(queue, nq, sizeof *queue, cost_cmp);
	cli_progress_start(&pr, r->progress, nq);
	while (done < nq) {
		struct cli_job_result res;
		char label[512];
		size_t id;

		while (next < nq && cli_pool_can_submit(pool)) {
			struct cli_job job;
			if (queue[next]->state != JOB_PENDING) {
				next++; /* failed with its target */
				continue;
			}
			job_program(r, queue[next], &job);
			if (cli_pool_submit(pool, next, &job) != 0)
				break;
			started[next] = cli_now_ms();
			job_label(label, sizeof label, queue[next]);
			cli_progress_started(&pr, label);
			next++;
		}
		if (done >= nq)
			break;
		if (!cli_pool_busy(pool)) {
			/* No worker could be started: fail what is left. */
			for (; next < nq; next++)
				if (queue[next]->state == JOB_PENDING)
					fail_job(queue[next], CLI_JOB_CRASHED, "no worker process "
						 "could be started (see above)");
			break;
		}
		if (!cli_pool_wait(pool, pr.mode == 2 ? 250 : -1, &id, &res)) {
			cli_progress_tick(&pr);
			continue;
		}
		queue[id]->res = res;
		queue[id]->ms = cli_now_ms() - started[id];
		queue[id]->state = res.rc != 0       ? JOB_FAILED
				   : res.from_cache  ? JOB_CACHED
				   : res.not_stored  ? JOB_UNSTORED
						     : JOB_COMPILED;
		done++;
		job_label(label, sizeof label, queue[id]);
		cli_progress_finished(&pr, label,
				      res.rc != 0       ? "FAILED"
				      : res.from_cache  ? "already cached"
				      : res.not_stored  ? "compiled, NOT stored"
							: "compiled",
				      queue[id]->ms);
		if (target_refused(res.rc))
			done += refuse_target(queue, nq, next, queue[id], &pr);
	}
	cli_progress_end(&pr);
	free(queue);
	free(started);
}

/*
 * Runs what the cache lacks, --jobs at a time (no more slots than jobs).  Each compile
 * starts its compile worker, which loads its compiler, as it needs one.
 */
static void run_pending(struct run *r)
{
	struct cli_pool *pool;
	size_t pending = 0;

	for (size_t i = 0; i < r->njobs; i++)
		pending += r->jobs[i].state == JOB_PENDING;
	if (!pending)
		return;
	r->used = r->workers < (long)pending ? r->workers : (long)pending;
	pool = cli_pool_new((int)r->used);
	if (r->timeout >= 0)
		cli_pool_set_timeout(pool, r->timeout);
	if (cli_pool_start(pool) != 0) {
		for (size_t i = 0; i < r->njobs; i++)
			if (r->jobs[i].state == JOB_PENDING)
				fail_job(&r->jobs[i], CLI_JOB_CRASHED,
					 "no worker process could be started (see above)");
	} else {
		compile_pending(r, pool);
	}
	cli_pool_free(pool);
}

struct kept {
	char (*keys)[33]; /* the keys compiled here, sorted */
	unsigned char *in_cache;
	size_t n;
};

static int key_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int mark_kept(const rocjit_entry *e, void *user)
{
	struct kept *k = user;
	char(*hit)[33] = bsearch(e->key, k->keys, k->n, sizeof *k->keys, key_cmp);

	if (hit)
		k->in_cache[hit - k->keys] = 1;
	return 0;
}

/*
 * The workers' stores succeeded one by one, but the size limit may have evicted early
 * ones to make room for later ones (or another process purged them): the summary counts
 * what the cache holds now.  Jobs compiled here whose key is gone become JOB_UNSTORED.
 */
static void check_kept(struct run *r)
{
	struct kept k = { 0 };
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	rocjit_ctx *ctx = NULL;
	char why[512];

	k.keys = cli_alloc((r->njobs ? r->njobs : 1) * sizeof *k.keys);
	k.in_cache = cli_alloc(r->njobs ? r->njobs : 1);
	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].state == JOB_COMPILED && r->jobs[i].res.key[0])
			memcpy(k.keys[k.n++], r->jobs[i].res.key, 33);
	if (!k.n || cli_open(&ctx, ROCJIT_OPEN_READONLY | ROCJIT_OPEN_NO_COMPILE, 1) != CLI_OK)
		goto out;
	qsort(k.keys, k.n, sizeof *k.keys, key_cmp);
	rocjit_stats_get(&st, ctx);
	if (rocjit_cache_foreach(ctx, mark_kept, &k) != 0) {
		cli_warn("cannot check what the cache kept: %s", rocjit_last_error());
		goto out;
	}
	snprintf(why, sizeof why, "stored, then evicted by the cache's size limit "
		 "(ROCJIT_CACHE_MAXSIZE, %llu bytes) to make room for later entries, or "
		 "removed by another process: raise ROCJIT_CACHE_MAXSIZE",
		 (unsigned long long)st.max_bytes);
	for (size_t i = 0; i < r->njobs; i++) {
		struct pjob *j = &r->jobs[i];
		char(*hit)[33];
		if (j->state != JOB_COMPILED || !j->res.key[0])
			continue;
		hit = bsearch(j->res.key, k.keys, k.n, sizeof *k.keys, key_cmp);
		if (hit && k.in_cache[hit - k.keys])
			continue;
		j->state = JOB_UNSTORED;
		free(j->res.message);
		j->res.message = cli_strdup(why);
	}
out:
	rocjit_close(ctx);
	free(k.keys);
	free(k.in_cache);
}

static const char *state_name(int state)
{
	switch (state) {
	case JOB_CACHED: return "cached";
	case JOB_COMPILED: return "compiled";
	case JOB_UNSTORED: return "not_stored";
	case JOB_FAILED: return "failed";
	case JOB_DUPLICATE: return "duplicate";
	default: return "pending";
	}
}

static const char *error_name(int rc)
{
	return rc == CLI_JOB_CRASHED ? "worker crashed" : rocjit_strerror(rc);
}

/* A job whose code object (compiled or cached) holds no kernel. */
static int no_kernels(const struct pjob *p)
{
	return p->state != JOB_FAILED && p->state != JOB_DUPLICATE &&
	       p->state != JOB_PENDING && p->res.kernels && !*p->res.kernels;
}

/* A code object without kernels, from prewarm: usually a templated kernel library given
 * as a folder or file, compiled whole, where nothing instantiated its templates. */
#define NO_KERNELS_WARNING "the code object holds 0 kernels; " NO_KERNELS_CAUSE
#define NO_KERNELS_CAUSE                                                                    \
	"likely cause: templates that were never instantiated: give the instantiations the " \
	"application asks for with --name-expr 'k<float>' (repeatable; --name-expr @FILE "   \
	"reads one a line) or as expr= lines of a manifest (docs/prewarm.md), or write "      \
	"explicit instantiations (template __global__ void k<float>(float *);)"

/* The code objects without kernels, on stderr (text and --json alike): one warning, each
 * named in it (a folder of template files makes many; the remedy is said once). */
static void warn_no_kernels(const struct run *r)
{
	char what[400], list[4096];
	size_t n = 0, used = 0, first = 0;

	list[0] = 0;
	for (size_t i = 0; i < r->njobs; i++) {
		if (!no_kernels(&r->jobs[i]))
			continue;
		if (!n++)
			first = i;
		if (used < sizeof list)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s (%s)",
						 n > 1 ? ", " : "",
						 cli_text(job_program_name(what, sizeof what,
									    &r->jobs[i])),
						 cli_text(r->jobs[i].target));
	}
	if (n == 1)
		cli_warn("%s (%s): %s",
			 cli_text(job_program_name(what, sizeof what, &r->jobs[first])),
			 cli_text(r->jobs[first].target), NO_KERNELS_WARNING);
	else if (n > 1)
		cli_warn("%zu code objects hold 0 kernels: %s%s; %s", n, list,
			 used >= sizeof list ? "..." : "", NO_KERNELS_CAUSE);
}

static void summary_json(const struct run *r, const size_t count[JOB_STATES], double ms)
{
	struct cli_json j;

	cli_json_init(&j, stdout);
	cli_json_object(&j, NULL);
	cli_json_array(&j, "targets");
	for (size_t t = 0; t < r->targets.n; t++)
		cli_json_str(&j, NULL, r->targets.ids[t]);
	cli_json_end_array(&j);
	cli_json_array(&j, "options");
	for (size_t i = 0; i < r->noptions; i++)
		cli_json_str(&j, NULL, r->options[i]);
	cli_json_end_array(&j);
	cli_json_uint(&j, "jobs", r->njobs - count[JOB_DUPLICATE]);
	cli_json_uint(&j, "compiled", count[JOB_COMPILED] + count[JOB_UNSTORED]);
	cli_json_uint(&j, "stored", count[JOB_COMPILED]);
	cli_json_uint(&j, "not_stored", count[JOB_UNSTORED]);
	cli_json_uint(&j, "cached", count[JOB_CACHED]);
	cli_json_uint(&j, "failed", count[JOB_FAILED]);
	cli_json_bool(&j, "ok", !count[JOB_FAILED] && !count[JOB_UNSTORED]);
	cli_json_uint(&j, "duplicates", count[JOB_DUPLICATE]);
	cli_json_int(&j, "jobs_limit", r->workers);
	cli_json_int(&j, "workers", r->used);
	cli_json_num(&j, "elapsed_ms", ms);
	if (r->pushed_done) {
		cli_json_object(&j, "push");
		cli_json_str(&j, "url", r->remote_url);
		cli_json_uint(&j, "pushed", r->pushed);
		cli_json_uint(&j, "present", r->present);
		cli_json_uint(&j, "failed", r->push_failed);
		if (r->push_error[0])
			cli_json_str(&j, "error", r->push_error);
		cli_json_end_object(&j);
	}
	cli_json_array(&j, "results");
	for (size_t i = 0; i < r->njobs; i++) {
		const struct pjob *p = &r->jobs[i];
		if (p->state == JOB_DUPLICATE)
			continue;
		cli_json_object(&j, NULL);
		cli_json_str(&j, "source", p->file->name);
		if (p->nexprs) {
			cli_json_array(&j, "name_expressions");
			for (size_t k = 0; k < p->nexprs; k++)
				cli_json_str(&j, NULL, p->exprs[k]);
			cli_json_end_array(&j);
		}
		cli_json_str(&j, "input", p->set->origin);
		cli_json_str(&j, "target", p->target);
		cli_json_str(&j, "status", state_name(p->state));
		if (p->res.key[0])
			cli_json_str(&j, "key", p->res.key);
		if (p->state == JOB_COMPILED || p->state == JOB_UNSTORED)
			cli_json_num(&j, "compile_ms", p->res.compile_ms);
		if (p->state == JOB_UNSTORED)
			cli_json_str(&j, "store_error", p->res.message);
		if (p->res.kernels && *p->res.kernels)
			cli_json_list(&j, "kernels", p->res.kernels, ',');
		if (no_kernels(p)) {
			cli_json_uint(&j, "num_kernels", 0);
			cli_json_array(&j, "warnings");
			cli_json_str(&j, NULL, NO_KERNELS_WARNING);
			cli_json_end_array(&j);
		}
		if (p->state == JOB_FAILED) {
			cli_json_str(&j, "error", error_name(p->res.rc));
			cli_json_str(&j, "message", p->res.message);
			cli_json_str(&j, "log", p->res.log);
		}
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

/* Failures first, each with its compiler log as the compiler printed it; then the counts. */
static void summary_text(const struct run *r, const size_t count[JOB_STATES], double ms)
{
	size_t sources = r->njobs / (r->targets.n ? r->targets.n : 1);
	char t[32], what[400];

	unsigned char *told = cli_alloc(r->targets.n ? r->targets.n : 1);

	for (size_t i = 0; i < r->njobs; i++) {
		const struct pjob *p = &r->jobs[i];
		size_t n = p->res.log ? strlen(p->res.log) : 0;
		if (p->state != JOB_FAILED)
			continue;
		if (target_refused(p->res.rc)) {
			/* Once per target: every source failed for the same reason. */
			if (!told[p->t]++)
				printf("FAILED every source for %s: %s; `rocjit targets` lists what "
				       "this machine's compilers support\n", cli_text(p->target),
				       cli_text(p->res.message));
			continue;
		}
		printf("FAILED %s for %s: %s\n", cli_text(job_program_name(what, sizeof what, p)),
		       cli_text(p->target), cli_text(p->res.message));
		if (n)
			printf("%s%s", cli_text_lines(p->res.log),
			       p->res.log[n - 1] == '\n' ? "" : "\n");
	}
	free(told);
	/* What was not stored, each reason once (a full disk says the same for every job). */
	for (size_t i = 0; i < r->njobs; i++) {
		const struct pjob *p = &r->jobs[i];
		size_t same = 0, seen = 0;
		if (p->state != JOB_UNSTORED)
			continue;
		for (size_t k = 0; k < r->njobs; k++)
			if (r->jobs[k].state == JOB_UNSTORED &&
			    !strcmp(r->jobs[k].res.message, p->res.message))
				seen += k < i, same++;
		if (seen)
			continue;
		printf("NOT STORED %s for %s%s: %s\n",
		       cli_text(job_program_name(what, sizeof what, p)), cli_text(p->target), same > 1 ? " and others" : "",
		       cli_text(p->res.message));
		if (same > 1)
			for (size_t k = i + 1; k < r->njobs; k++)
				if (r->jobs[k].state == JOB_UNSTORED &&
				    !strcmp(r->jobs[k].res.message, p->res.message))
					printf("  also %s for %s\n",
					       cli_text(job_program_name(what, sizeof what,
									 &r->jobs[k])),
					       cli_text(r->jobs[k].target));
	}
	printf("prewarm: %zu compiled, %zu stored, %zu already cached, %zu failed; %zu "
	       "%s%s x %zu target%s", count[JOB_COMPILED] + count[JOB_UNSTORED],
	       count[JOB_COMPILED], count[JOB_CACHED], count[JOB_FAILED], sources,
	       r->any_exprs ? "program" : "source", sources == 1 ? "" : "s", r->targets.n,
	       r->targets.n == 1 ? "" : "s");
	if (count[JOB_DUPLICATE])
		printf(" (%zu identical, done once)", count[JOB_DUPLICATE]);
	printf(" in %s", cli_fmt_ms(t, sizeof t, ms));
	if (r->used)
		printf(" with %ld worker process%s", r->used, r->used == 1 ? "" : "es");
	printf("\n");
	if (r->pushed_done)
		printf("push: %zu pushed, %zu already there, %zu failed, to %s%s%s\n", r->pushed,
		       r->present, r->push_failed, cli_text(r->remote_url),
		       r->push_error[0] ? ": " : "", cli_text(r->push_error));
	if (count[JOB_FAILED])
		printf("rocjit: fix what failed above and run prewarm again: what was stored "
		       "will be skipped\n");
	if (count[JOB_UNSTORED])
		printf("rocjit: %zu compiled code object%s %s not in the cache (NOT STORED above): "
		       "make room or make the cache writable, or choose another with --cache "
		       "DIR, then run prewarm again\n", count[JOB_UNSTORED],
		       count[JOB_UNSTORED] == 1 ? "" : "s", count[JOB_UNSTORED] == 1 ? "is" : "are");
	fflush(stdout);
}

static void add_expr(struct run *r, const char *expr)
{
	r->exprs = cli_realloc(r->exprs, (r->nexprs + 1) * sizeof *r->exprs);
	r->exprs[r->nexprs++] = cli_strdup(expr);
}

/*
 * --name-expr EXPR, or @FILE: FILE's lines, one expression each (blank lines and lines
 * starting with '#', which no C++ expression does, skipped), as if each were given.
 * Checked here as the library would, so a typo is a usage error before any compile.
 */
static int parse_name_expr(struct run *r, const char *cmd, const char *v)
{
	const char *problem;
	char *text, *line, *next;
	size_t len = 0, before = r->nexprs;
	int lineno = 0;

	if (v[0] != '@') {
		if ((problem = cli_name_expr_problem(v)))
			return cli_usage_error(cmd, "--name-expr '%s': %s; give a kernel template "
					       "instantiation, e.g. --name-expr 'scale<float, 4>'",
					       v, problem);
		add_expr(r, v);
		return CLI_OK;
	}
	text = cli_read_file(v + 1, &len);
	if (!text)
		return cli_usage_error(cmd, "--name-expr %s: cannot read %s: %s; give a file of "
				       "name expressions, one a line", v, v + 1,
				       cli_read_error(errno));
	for (line = text; line; line = next) {
		size_t n;
		if ((next = strchr(line, '\n')))
			*next++ = 0;
		n = strlen(line);
		lineno++;
		if (n && line[n - 1] == '\r')
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		if ((problem = cli_name_expr_problem(line))) {
			free(text);
			return cli_usage_error(cmd, "--name-expr %s: line %d: %s", v, lineno,
					       problem);
		}
		add_expr(r, line);
	}
	free(text);
	if (r->nexprs == before)
		return cli_usage_error(cmd, "--name-expr %s: %s holds no name expression: write "
				       "one a line, e.g. scale<float, 4>", v, v + 1);
	return CLI_OK;
}

static int parse(struct run *r, const char *cmd, int argc, char **argv)
{
	struct cli_parser p;
	const char *v;
	int id, rc = CLI_OK;

	cli_parser_init(&p, cmd, argc, argv, strcmp(cmd, "export") ? prewarm_opts : export_opts,
			1);
	while (rc == CLI_OK && (id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: return -1;
		case CLI_ARG_ERROR: return CLI_USAGE;
		case CLI_ARG_POSITIONAL: add_input(r, v, 0); break;
		case OPT_MANIFEST: add_input(r, v, 1); break;
		case OPT_HEADER:
			r->headers = cli_realloc(r->headers, (r->nheaders + 1) * sizeof *r->headers);
			r->headers[r->nheaders++] = v;
			break;
		case OPT_NAME_EXPR: rc = parse_name_expr(r, cmd, v); break;
		case OPT_LANG:
			if (cli_parse_language(&r->language, v) != 0)
				rc = cli_usage_error(cmd, "--lang %s: give cuda or hip for every "
						     "source (the default is by each file's "
						     "name: *.cu and *.cuh are cuda)", v);
			break;
		case OPT_ARCH: rc = cli_targets_add(&r->targets, "prewarm", v); break;
		case OPT_JOBS:
			if (cli_parse_count(&r->workers, v, 256) != 0)
				rc = cli_usage_error("prewarm", "--jobs %s: give a number of "
						     "worker processes from 1 to 256", v);
			break;
		case OPT_JSON: r->json = 1; break;
		case OPT_NO_PROGRESS: r->progress = 0; break;
		case OPT_OUTPUT: r->output = v; break;
		case OPT_PUSH: r->push = 1; break;
		case OPT_TIMEOUT:
			if (cli_parse_seconds(&r->timeout, v) != 0)
				rc = cli_usage_error(cmd, "--timeout %s: give a compile's time "
						     "limit in seconds (0: none)", v);
			break;
		}
	}
	if (rc != CLI_OK)
		return rc;
	if (!strcmp(cmd, "export") && !r->output)
		return cli_usage_error("export", "name the bundle to write: -o FILE.rocjit");
	/* Before any compile: a path the bundle cannot be written to fails at once. */
	if (r->output && (rc = cli_output_new_check("export", r->output)) != CLI_OK)
		return rc;
	if (!r->ninputs)
		return cli_usage_error("prewarm", "name the kernels: a manifest (--manifest "
				       "FILE), a folder or a file");
	if (p.rest < argc) {
		r->options = (const char *const *)argv + p.rest + 1;
		r->noptions = (size_t)(argc - p.rest - 1);
	}
	return load_sets(r);
}

/* Writes every job's entry, cached or compiled now, from the cache into r->output. */
static int export_bundle(const struct run *r)
{
	const char **keys = cli_alloc((r->njobs ? r->njobs : 1) * sizeof *keys);
	size_t n = 0, written = 0;
	rocjit_ctx *ctx;
	int rc;

	for (size_t i = 0; i < r->njobs; i++) {
		const struct pjob *j = &r->jobs[i];
		if ((j->state == JOB_CACHED || j->state == JOB_COMPILED) && j->res.key[0])
			keys[n++] = j->res.key;
	}
	rc = cli_open(&ctx, 0, 1);
	if (rc == CLI_OK) {
		if (rocjit_bundle_export(ctx, r->output, keys, n, &written) != 0) {
			fprintf(stderr, "rocjit export: %s\n", cli_text(rocjit_last_error()));
			rc = CLI_FAIL;
		} else if (!r->json && !cli_global.quiet) {
			printf("export: %zu entries written to %s\n", written, cli_text(r->output));
		}
		rocjit_close(ctx);
	}
	free(keys);
	return rc;
}

/* --push: every job's entry, cached or compiled now, put on the remote tier (what is
 * there already stays).  The counts go into r for the summary. */
static void push_entries(struct run *r)
{
	const char **keys = cli_alloc((r->njobs ? r->njobs : 1) * sizeof *keys);
	size_t n = 0;
	rocjit_ctx *ctx;

	for (size_t i = 0; i < r->njobs; i++) {
		const struct pjob *j = &r->jobs[i];
		if ((j->state == JOB_CACHED || j->state == JOB_COMPILED) && j->res.key[0])
			keys[n++] = j->res.key;
	}
	r->pushed_done = 1;
	if (cli_open(&ctx, ROCJIT_OPEN_READONLY, 1) != CLI_OK) {
		snprintf(r->push_error, sizeof r->push_error, "the cache could not be opened");
		r->push_failed = n;
	} else {
		if (rocjit_remote_push(ctx, keys, n, &r->pushed, &r->present, &r->push_failed,
				       NULL, NULL) != 0)
			snprintf(r->push_error, sizeof r->push_error, "%s", rocjit_last_error());
		rocjit_close(ctx);
	}
	free(keys);
}

static int run_command(const char *cmd, int argc, char **argv)
{
	struct run r = { .progress = 1, .timeout = -1 };
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	size_t count[JOB_STATES] = { 0 };
	rocjit_ctx *probe;
	int rc;

	r.t0 = cli_now_ms();
	/* Compiling is what this command is for: an exported ROCJIT_NO_COMPILE=1 meant for
	   applications must not turn it into a no-op (workers inherit this environment). */
	unsetenv("ROCJIT_NO_COMPILE");
	rc = parse(&r, cmd, argc, argv);
	if (rc == -1) {
		rc = cli_help(cmd);
		goto out;
	}
	if (rc == CLI_OK && !r.targets.n)
		rc = cli_targets_default(&r.targets, cmd);
	if (rc == CLI_OK) {
		/* Fail early (and create the database) when the cache cannot be used. */
		rc = cli_open(&probe, 0, 1);
		if (rc == CLI_OK)
			rocjit_stats_get(&st, probe);
		rocjit_close(probe);
		if (rc == CLI_OK && st.cache_readonly)
			rc = cli_fail("the cache %s is read-only (a file given as the cache is "
				      "opened read-only), so %s could store nothing: name a cache "
				      "folder with --cache DIR", st.cache_path, cmd);
		if (rc == CLI_OK && r.push && st.remote_state == ROCJIT_REMOTE_NONE)
			rc = cli_usage_error(cmd, "--push puts the entries on the remote tier, and "
					     "none is configured: set ROCJIT_REMOTE or give "
					     "--remote URL");
		snprintf(r.remote_url, sizeof r.remote_url, "%s", st.remote_url);
	}
	if (rc == CLI_OK) {
		if (!r.workers) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			r.workers = n > 0 ? (n > 256 ? 256 : n) : 1;
		}
		make_jobs(&r);
		/* An empty cache has nothing to skip: no keys to compute, no compiler to load
		   here while the workers load theirs. */
		if (st.entries > 0)
			rc = check_cached(&r);
		if (rc == CLI_OK) {
			run_pending(&r);
			check_kept(&r);
			for (size_t i = 0; i < r.njobs; i++)
				count[r.jobs[i].state]++;
			warn_no_kernels(&r);
			if (r.push)
				push_entries(&r);
			rc = count[JOB_FAILED] || count[JOB_UNSTORED] || r.push_failed ||
			     r.push_error[0] ? CLI_FAIL : CLI_OK;
			if (r.json)
				summary_json(&r, count, cli_now_ms() - r.t0);
			else if (rc != CLI_OK || !cli_global.quiet)
				summary_text(&r, count, cli_now_ms() - r.t0);
			if (rc == CLI_OK && r.output)
				rc = export_bundle(&r);
		}
	}
out:
	for (size_t i = 0; i < r.njobs; i++)
		cli_job_result_free(&r.jobs[i].res);
	free(r.jobs);
	for (size_t i = 0; i < r.nsets; i++)
		cli_set_free(&r.sets[i]);
	free(r.sets);
	free(r.inputs);
	free(r.as_manifest);
	free(r.headers);
	for (size_t i = 0; i < r.nexprs; i++)
		free(r.exprs[i]);
	free(r.exprs);
	cli_targets_free(&r.targets);
	return rc;
}

int cli_prewarm(int argc, char **argv)
{
	return run_command("prewarm", argc, argv);
}

/* `rocjit export`: prewarm, then write what it stored (or found) to a new bundle. */
int cli_export(int argc, char **argv)
{
	return run_command("export", argc, argv);
}
