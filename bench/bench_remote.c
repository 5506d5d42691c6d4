/*
 * bench_remote.c - a new process's first request served by the remote tier, beside the
 * same request served by the local disk cache and by the compiler (issue 15).
 *
 *   bench_remote --url URL [-n N] [--target T] [--cold N] FILE [-- OPTIONS...]
 *
 * URL is a running Redis (bench/remote_bench.sh starts one on loopback).  FILE is compiled
 * for T (default gfx90a; no GPU: rocjit_compile for an explicit target is the request a
 * launch would make, less the module load) with OPTIONS and -DRJ_BENCH_VARIANT=i, a
 * distinct key for each i.  Each measurement is a new process of this program (--child)
 * that opens a context and makes the one request:
 *   cold     --cold processes (default 1), each on an empty cache folder, no remote tier:
 *            the compile (for sm_* targets set CUDA_CACHE_DISABLE=1 where a driver is);
 *   disk     a cache folder that holds variant 0 (filled and settled by untimed runs), no
 *            remote tier: the local disk hit (the read index serves it);
 *   remote   the remote tier, whose server holds variant i (put there beforehand by
 *            compiles in another folder), and the cache folder of a node that has served
 *            before (its database holds other entries and the compiler's identity) but
 *            not variant i: the remote hit, whose copy into the folder is stored later;
 *   new      the same on an empty cache folder: a node's very first request, which also
 *            creates the database and learns the compiler's identity (loading the
 *            compiler: the key names it).
 *   bare     no rocjit: a client of its own (hiredis, the same library rocjit uses)
 *            connects and GETRANGEs a value of the remote case's size, in a new process:
 *            the floor the server and the machine set for the remote hit.  It connects
 *            as rocjit does, to the numeric address without the resolver (hiredis's own
 *            connect asks getaddrinfo even for 127.0.0.1: 0.08 ms on the GPU box, which
 *            the bare figures before 7ab8193 included).
 * Signed code (issue 16): a key pair made here (rocjit_keygen); the producer's entries are
 * pushed again signed with it (rocjit_remote_push, signing_key), under the URL's
 * ?prefix=rsXXXX (this run's): the same code objects, signed, beside the unsigned ones.
 *   remote-signed  as remote, the value signed and the consumer trusting the key
 *            (trusted_keys, require_signed SHARED), its own folder set up as remote's;
 *   disk-signed    as disk, the folder's entry signed (a signed remote hit, settled) and
 *            the consumer under require_signed ALL, trusting the key.
 * Each signed child must report signatures_checked 1 and signature_rejects 0 after its
 * request and a repeat of it (served by the context's table: verified once, not per
 * hit); each unsigned child 0 and 0 (the unsigned series sign and trust nothing, whatever
 * the environment says).  Else the run fails: its figure would not be what it names.
 * disk, disk-signed, remote, remote-signed, bare and new take turns, N rounds (default
 * 30; new every third round; each signed case before its unsigned one every other round).
 *
 *   bench_remote --dead URL [-n N] [--target T] FILE [-- OPTIONS...]
 *
 * URL names a server that does not answer (bench/remote_bench.sh makes one).  N processes
 * of one node (one cache folder) in turn each compile a new variant: what talking to the
 * dead server cost each (remote=), and its whole request (own=).  Each
 * child prints open= (rocjit_open), first= (the request), own= (their sum: rocjit's own
 * time), remote= (the time spent talking to the server, rocjit_stats.remote_ms), how it
 * was served, and checked= and rejects= (rocjit_stats' signature counters).  The summary:
 * min, quartiles and median of each, ratios of medians, and what signing adds: the
 * difference of the medians and the median of the rounds' differences (ms and %).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rocjit.h"

#ifdef BENCH_HAVE_HIREDIS
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <hiredis/hiredis.h>
#endif

const char *bench_prog = "bench_remote";

#define MAX_OPTS 32

/* A child's rule for signed code: its rocjit_options version 4 fields. */
struct signing {
	const char *key;   /* signing_key: a secret key file, or "" */
	const char *trust; /* trusted_keys: NAME:BASE64, or "" */
	const char *require; /* "none", "shared" or "all" */
};

static const struct signing unsigned_rule = { "", "", "none" };

static int require_of(const char *s)
{
	if (!strcmp(s, "none"))
		return ROCJIT_REQUIRE_SIGNED_NONE;
	if (!strcmp(s, "shared"))
		return ROCJIT_REQUIRE_SIGNED_SHARED;
	if (!strcmp(s, "all"))
		return ROCJIT_REQUIRE_SIGNED_ALL;
	bench_die("require_signed: none, shared or all, not %s", s);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		bench_die("cannot read %s", path);
	buf = bench_calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		bench_die("cannot read %s", path);
	fclose(f);
	return buf;
}

/* One request in a new process: prints the times and how it was served.  After the
 * times, the request is made again (the context's table serves it) and the statistics
 * read: a signature is verified once per entry, never per hit. */
static int child(const char *dir, const char *url, const char *file, const char *target,
		 const struct signing *sg, const char *const *opts, size_t nopts)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	rocjit_program p = ROCJIT_PROGRAM_INIT;
	rocjit_stats st = { .version = ROCJIT_STATS_VERSION };
	const char *all[MAX_OPTS + 1];
	const rocjit_code *c, *again;
	rocjit_ctx *ctx;
	char *src = read_text(file);
	int64_t t0;
	double open_ms, first_ms;

	o.cache_dir = dir;
	o.remote = url;
	o.signing_key = sg->key;
	o.trusted_keys = sg->trust;
	o.require_signed = require_of(sg->require);
	p.source = src;
	p.name = file;
	/* opts[0] is the variant: "-DRJ_BENCH_VARIANT=i". */
	for (size_t i = 0; i < nopts; i++)
		all[i] = opts[i];
	p.options = all;
	p.num_options = nopts;
	t0 = bench_now_ns();
	if (rocjit_open(&ctx, &o) != 0)
		bench_die("rocjit_open: %s", rocjit_last_error());
	open_ms = bench_ms_since(t0);
	t0 = bench_now_ns();
	if (rocjit_compile(&c, ctx, target, &p) != 0)
		bench_die("rocjit_compile: %s", rocjit_last_error());
	first_ms = bench_ms_since(t0);
	if (rocjit_compile(&again, ctx, target, &p) != 0 || again->size != c->size)
		bench_die("the repeated request: %s", rocjit_last_error());
	rocjit_stats_get(&st, ctx);
	printf("open=%.4f first=%.4f own=%.4f remote=%.4f size=%zu compiles=%llu disk=%llu "
	       "remotehits=%llu checked=%llu rejects=%llu key=%s\n", open_ms, first_ms,
	       open_ms + first_ms, st.remote_ms, c->size, (unsigned long long)st.compiles,
	       (unsigned long long)st.disk_hits, (unsigned long long)st.remote_hits,
	       (unsigned long long)st.signatures_checked,
	       (unsigned long long)st.signature_rejects, c->key);
	rocjit_close(ctx);
	free(src);
	return 0;
}

struct keys {
	char (*hex)[33];
	size_t n, cap;
};

static int collect_key(const rocjit_entry *e, void *user)
{
	struct keys *k = user;

	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->hex = realloc(k->hex, k->cap * sizeof *k->hex);
		if (!k->hex)
			bench_die("out of memory");
	}
	snprintf(k->hex[k->n++], sizeof k->hex[0], "%s", e->key);
	return 0;
}

/* --push-signed DIR URL KEYFILE: puts every entry of DIR's cache on URL signed with
 * KEYFILE ("-": unsigned); prints pushed= and present=.  The producer compiled them
 * itself: a signer signs only what it compiled (issue 27). */
static int push_signed_child(const char *dir, const char *url, const char *keyfile)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	struct keys k = { 0 };
	const char **list;
	size_t pushed = 0, present = 0, failed = 0;
	rocjit_ctx *ctx;

	o.cache_dir = dir;
	o.remote = url;
	o.signing_key = strcmp(keyfile, "-") ? keyfile : NULL;
	o.trusted_keys = "";
	o.require_signed = ROCJIT_REQUIRE_SIGNED_NONE;
	if (rocjit_open(&ctx, &o) != 0)
		bench_die("rocjit_open (signed producer): %s", rocjit_last_error());
	if (rocjit_cache_foreach(ctx, collect_key, &k) != 0)
		bench_die("listing %s: %s", dir, rocjit_last_error());
	list = bench_calloc(k.n, sizeof *list);
	for (size_t i = 0; i < k.n; i++)
		list[i] = k.hex[i];
	if (rocjit_remote_push(ctx, list, k.n, &pushed, &present, &failed, NULL, NULL) != 0 ||
	    failed)
		bench_die("pushing signed: %s", rocjit_last_error());
	printf("pushed=%zu present=%zu entries=%zu\n", pushed, present, k.n);
	rocjit_close(ctx);
	free(list);
	free(k.hex);
	return 0;
}

#ifdef BENCH_HAVE_HIREDIS
/* A client of url (redis://HOST:PORT or unix://PATH, nothing else), connected. */
static redisContext *bare_connect(const char *url)
{
	char host[256];
	int port = 6379;

	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd, one = 1;

	if (!strncmp(url, "unix://", 7))
		return redisConnectUnix(url + 7);
	if (sscanf(url, "redis://%255[^:/]:%d", host, &port) < 1 ||
	    inet_pton(AF_INET, host, &a.sin_addr) != 1)
		bench_die("a bare client takes redis://IPV4:PORT or unix://PATH, not %s", url);
	a.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
		bench_die("connecting to %s: %s", url, strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return redisConnectFd(fd);
}

/* --bare-child URL KEY: the bare client's connect and GETRANGE, as open= and first=. */
static int bare_child(const char *url, const char *key)
{
	int64_t t0 = bench_now_ns();
	redisContext *c = bare_connect(url);
	double open_ms = bench_ms_since(t0), first_ms;
	redisReply *r;

	if (!c || c->err)
		bench_die("connecting to %s: %s", url, c ? c->errstr : "out of memory");
	t0 = bench_now_ns();
	r = redisCommand(c, "GETRANGE %s 0 -1", key);
	first_ms = bench_ms_since(t0);
	if (!r || r->type != REDIS_REPLY_STRING || r->len == 0)
		bench_die("GETRANGE %s: no value", key);
	printf("open=%.4f first=%.4f own=%.4f remote=%.4f size=%zu bare=1\n", open_ms, first_ms,
	       open_ms + first_ms, open_ms + first_ms, r->len);
	freeReplyObject(r);
	redisFree(c);
	return 0;
}

/* The server's key of the value a child's output (key=HEX) names, into out. */
static void value_key_of(const char *child_out, char *out, size_t size)
{
	const char *k = strstr(child_out, " key=");

	if (!k || strspn(k + 5, "0123456789abcdef") != 32)
		bench_die("a child named no key: %s", child_out);
	snprintf(out, size, "rocjit:1:%.32s", k + 5);
}
#endif

static char last_out[512]; /* the last child's output (run) */

struct series {
	const char *name;
	double own[1024], first[1024], open[1024], remote[1024];
	int n;
};

/* Runs a child under the rule sg (NULL: unsigned_rule); checks it was served as want
 * ("compiles", "disk", "remotehits").  A kept child must also have verified what its
 * rule asks: one signature (signed: a trust list given) or none, and refused none. */
static void run(struct series *s, const char *dir, const char *url, const char *file,
		const char *target, int variant, const char *const *opts, size_t nopts,
		const char *want, int keep, const struct signing *sg)
{
	const char *argv[12 + MAX_OPTS];
	char t0s[32], out[512], var[48];
	size_t a = 0;

	if (!sg)
		sg = &unsigned_rule;
	argv[a++] = bench_prog;
	argv[a++] = "--child";
	argv[a++] = dir;
	argv[a++] = url;
	argv[a++] = file;
	argv[a++] = target;
	argv[a++] = sg->key;
	argv[a++] = sg->trust;
	argv[a++] = sg->require;
	snprintf(var, sizeof var, "-DRJ_BENCH_VARIANT=%d", variant);
	argv[a++] = var;
	for (size_t i = 0; i < nopts; i++)
		argv[a++] = opts[i];
	argv[a] = NULL;
	if (bench_run_self(argv, t0s, sizeof t0s, out, sizeof out) != 0)
		bench_die("a child failed (%s)", s ? s->name : "set-up");
	snprintf(last_out, sizeof last_out, "%s", out);
	if (want && bench_field(out, want) != 1)
		bench_die("a child was not served as %s: %s", want, out);
	if (s && keep && (bench_field(out, "rejects") != 0 ||
			  bench_field(out, "checked") != (sg->trust[0] ? 1 : 0)))
		bench_die("a child (%s) did not verify one signature per entry as its rule asks "
			  "(trusted keys %s, require_signed %s): %s", s->name,
			  sg->trust[0] ? "given" : "none", sg->require, out);
	if (s && keep) {
		printf("%-13s %s", s->name, out);
		s->open[s->n] = bench_field(out, "open");
		s->first[s->n] = bench_field(out, "first");
		s->own[s->n] = bench_field(out, "own");
		s->remote[s->n] = bench_field(out, "remote");
		s->n++;
	}
}

/* The bare client's round trip in a new process (--bare-child). */
static void run_bare(struct series *s, const char *url, const char *key)
{
	const char *argv[] = { bench_prog, "--bare-child", url, key, NULL };
	char t0s[32], out[512];

	if (bench_run_self(argv, t0s, sizeof t0s, out, sizeof out) != 0)
		bench_die("a bare client failed");
	printf("%-13s %s", s->name, out);
	s->open[s->n] = bench_field(out, "open");
	s->first[s->n] = bench_field(out, "first");
	s->own[s->n] = bench_field(out, "own");
	s->remote[s->n] = bench_field(out, "remote");
	s->n++;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quartile(double *v, int n, int q)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return v[(n - 1) * q / 4];
}

static double summary(struct series *s)
{
	double med;

	printf("%-13s n=%d own: min %.3f p25 %.3f median %.3f p75 %.3f ms; open %.3f, first "
	       "%.3f, remote %.3f (medians)\n", s->name, s->n, quartile(s->own, s->n, 0),
	       quartile(s->own, s->n, 1), med = bench_median(s->own, s->n),
	       quartile(s->own, s->n, 3), bench_median(s->open, s->n),
	       bench_median(s->first, s->n), bench_median(s->remote, s->n));
	return med;
}

/*
 * What signing adds to a series: the signed median less the unsigned, in ms and as a
 * share of the unsigned; and the median of the rounds' differences (the two took turns,
 * one pair a round).  Call before summary(), which sorts the series.
 */
static void signed_cost(const char *what, const struct series *u, const struct series *sg)
{
	double d[1024], a[1024], b[1024], mu, ms, md;
	int n = u->n < sg->n ? u->n : sg->n;

	for (int i = 0; i < n; i++) {
		d[i] = sg->own[i] - u->own[i];
		a[i] = u->own[i];
		b[i] = sg->own[i];
	}
	mu = bench_median(a, n);
	ms = bench_median(b, n);
	md = bench_median(d, n);
	printf("signed - unsigned (own), %-6s %+.3f ms (%+.1f%%: %.3f -> %.3f ms); median of "
	       "the %d rounds' differences %+.3f ms (%+.1f%%)\n", what, ms - mu,
	       100 * (ms - mu) / mu, mu, ms, n, md, 100 * md / mu);
}

/* --dead: n processes of one node, each a new key, against a server that never answers. */
static int dead_server(const char *url, int n, const char *file, const char *target,
		       const char *const *opts, size_t nopts)
{
	static struct series s = { .name = "dead" };
	char node[4400];

	setenv("ROCJIT_LOG", "off", 1);
	snprintf(node, sizeof node, "%s/node", bench_scratch("rocjit-bench-dead"));
	for (int i = 0; i < n; i++)
		run(&s, node, url, file, target, 3000 + i, opts, nopts, "compiles", 1, NULL);
	printf("dead          remote ms per process, in order:");
	for (int i = 0; i < s.n; i++)
		printf(" %.3f", s.remote[i]);
	printf("\n");
	summary(&s);
	return 0;
}

/*
 * url with ?prefix=rsXXXX (&prefix= where it has options already): this run's namespace
 * for its signed values.  Six characters, as the default "rocjit", so the keys the two
 * series ask for are as long; XXXX from the process id, as each run signs with a key of
 * its own and a run before on the same server (remote_bench.sh's unix socket run) left
 * the same entries signed with another.
 */
static void signed_url(char *out, size_t size, const char *url)
{
	snprintf(out, size, "%s%cprefix=rs%04x", url, strchr(url, '?') ? '&' : '?',
		 (unsigned)getpid() & 0xffffu);
}

/* The producer: dir's entries put on url, signed with keyfile ("-": unsigned); want of
 * them there afterwards (an earlier run on the same server may have put them). */
static void push_signed(const char *dir, const char *url, const char *keyfile, int want)
{
	const char *argv[] = { bench_prog, "--push-signed", dir, url, keyfile, NULL };
	char t0s[32], out[512];

	if (bench_run_self(argv, t0s, sizeof t0s, out, sizeof out) != 0)
		bench_die("the producer failed");
	if (bench_field(out, "pushed") + bench_field(out, "present") != want)
		bench_die("the producer left not %d values: %s", want, out);
}

int main(int argc, char **argv)
{
	static struct series cold = { .name = "cold" }, disk = { .name = "disk" },
			     remote = { .name = "remote" }, fresh_node = { .name = "new" },
			     bare = { .name = "bare" }, disk_sig = { .name = "disk-signed" },
			     remote_sig = { .name = "remote-signed" };
	char bare_key[512] = "";
	const char *url = NULL, *dead = NULL, *target = "gfx90a", *file = NULL, *opts[MAX_OPTS];
	size_t nopts = 0;
	int n = 30, ncold = 1, a = 1;
	const char *work;
	char dir[4300], cold_dir[4400], disk_dir[4400], fresh[4400], used[4400], prod[4400];
	char disk_sig_dir[4400], used_sig[4400], secret[4400], sig_url[4400], pub[256];
	struct signing consumer, strict;
	double c, d, r, b = 0;

#ifdef BENCH_HAVE_HIREDIS
	if (argc == 4 && !strcmp(argv[1], "--bare-child"))
		return bare_child(argv[2], argv[3]);
#endif
	if (argc == 5 && !strcmp(argv[1], "--push-signed"))
		return push_signed_child(argv[2], argv[3], argv[4]);
	if (argc > 8 && !strcmp(argv[1], "--child")) {
		struct signing sg = { argv[6], argv[7], argv[8] };
		return child(argv[2], argv[3], argv[4], argv[5], &sg,
			     (const char *const *)argv + 9, (size_t)(argc - 9));
	}
	for (; a < argc && argv[a][0] == '-' && strcmp(argv[a], "--"); a++) {
		if (!strcmp(argv[a], "--url") && a + 1 < argc)
			url = argv[++a];
		else if (!strcmp(argv[a], "--dead") && a + 1 < argc)
			dead = argv[++a];
		else if (!strcmp(argv[a], "-n") && a + 1 < argc)
			n = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--cold") && a + 1 < argc)
			ncold = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--target") && a + 1 < argc)
			target = argv[++a];
		else
			bench_die("usage: bench_remote --url URL [-n N] [--target T] [--cold N] FILE "
				  "[-- OPTIONS...]");
	}
	if (a < argc && strcmp(argv[a], "--"))
		file = argv[a++];
	if (a < argc && !strcmp(argv[a], "--"))
		for (a++; a < argc && nopts < MAX_OPTS; a++)
			opts[nopts++] = argv[a];
	if (dead && file && n >= 1 && n <= 1024)
		return dead_server(dead, n, file, target, opts, nopts);
	if (!url || !file || n < 1 || n > 1024 || ncold < 0 || ncold > 1024)
		bench_die("usage: bench_remote --url URL [-n N] [--target T] [--cold N] FILE "
			  "[-- OPTIONS...]");
	setenv("ROCJIT_LOG", "off", 1);
	work = bench_scratch("rocjit-bench-remote");
	snprintf(dir, sizeof dir, "%s", work);
	/* The producer's key pair; consumers trust its public line. */
	if (rocjit_keygen("rocjit-bench", dir, pub, sizeof pub) != 0)
		bench_die("rocjit_keygen: %s", rocjit_last_error());
	snprintf(secret, sizeof secret, "%s/rocjit-bench.secret", dir);
	consumer = (struct signing){ "", pub, "shared" };
	strict = (struct signing){ "", pub, "all" };
	signed_url(sig_url, sizeof sig_url, url);
	for (int i = 0; i < ncold; i++) {
		snprintf(cold_dir, sizeof cold_dir, "%s/cold%d", dir, i);
		run(&cold, cold_dir, "", file, target, 1000 + i, opts, nopts, "compiles", 1, NULL);
	}
	/* Variants 0..n compiled by a producer node (untimed, no remote tier: a signer signs
	   only what it compiled), then put on the server, unsigned, and again, signed, in the
	   signed namespace. */
	snprintf(prod, sizeof prod, "%s/producer", dir);
	for (int i = 0; i <= n; i++)
		run(NULL, prod, "", file, target, i, opts, nopts, NULL, 0, NULL);
#ifdef BENCH_HAVE_HIREDIS
	value_key_of(last_out, bare_key, sizeof bare_key); /* a value this run serves */
#endif
	push_signed(prod, url, "-", n + 1);
	push_signed(prod, sig_url, secret, n + 1);
	snprintf(disk_dir, sizeof disk_dir, "%s/disk", dir);
	for (int i = 0; i < 4; i++) /* a remote hit, then the index written and settled */
		run(NULL, disk_dir, i ? "" : url, file, target, 0, opts, nopts, NULL, 0, NULL);
	/* The same from the signed namespace: the folder's entry keeps its signature. */
	snprintf(disk_sig_dir, sizeof disk_sig_dir, "%s/disk-signed", dir);
	run(NULL, disk_sig_dir, sig_url, file, target, 0, opts, nopts, "remotehits", 0,
	    &consumer);
	for (int i = 1; i < 4; i++)
		run(NULL, disk_sig_dir, "", file, target, 0, opts, nopts, NULL, 0, &strict);
	/* A node that served before: another program compiled into it, no remote tier. */
	snprintf(used, sizeof used, "%s/used", dir);
	run(NULL, used, "", file, target, 5000, opts, nopts, "compiles", 0, NULL);
	run(NULL, used, "", file, target, 5000, opts, nopts, "disk", 0, NULL);
	snprintf(used_sig, sizeof used_sig, "%s/used-signed", dir);
	run(NULL, used_sig, "", file, target, 5000, opts, nopts, "compiles", 0, &consumer);
	run(NULL, used_sig, "", file, target, 5000, opts, nopts, "disk", 0, &consumer);
	for (int i = 1; i <= n; i++) {
		char cmd[9000];
		int signed_first = i % 2 == 0; /* each order every other round */
		for (int k = 0; k < 2; k++)
			if ((k == 0) == signed_first)
				run(&disk_sig, disk_sig_dir, "", file, target, 0, opts, nopts, "disk", 1,
				    &strict);
			else
				run(&disk, disk_dir, "", file, target, 0, opts, nopts, "disk", 1, NULL);
		for (int k = 0; k < 2; k++)
			if ((k == 0) == signed_first)
				run(&remote_sig, used_sig, sig_url, file, target, i, opts, nopts,
				    "remotehits", 1, &consumer);
			else
				run(&remote, used, url, file, target, i, opts, nopts, "remotehits", 1,
				    NULL);
		if (bare_key[0])
			run_bare(&bare, url, bare_key);
		if (i % 3 == 1) { /* fewer of these: each loads the compiler */
			snprintf(fresh, sizeof fresh, "%s/new%d", dir, i);
			run(&fresh_node, fresh, url, file, target, i, opts, nopts, "remotehits", 1,
			    NULL);
			snprintf(cmd, sizeof cmd, "rm -rf '%s'", fresh);
			if (system(cmd) != 0)
				bench_die("cannot remove %s", fresh);
		}
	}
	signed_cost("disk", &disk, &disk_sig);
	signed_cost("remote", &remote, &remote_sig);
	c = ncold ? summary(&cold) : 0;
	d = summary(&disk);
	summary(&disk_sig);
	r = summary(&remote);
	summary(&remote_sig);
	summary(&fresh_node);
	if (bare.n)
		b = summary(&bare);
	printf("ratios of medians (own): remote/disk %.2f", r / d);
	if (bare.n)
		printf(", remote/bare %.2f (rocjit's own share %.3f ms)", r / b, r - b);
	if (ncold)
		printf(", cold/remote %.0f", c / r);
	printf("\n");
	return 0;
}
