/*
 * args.c - reading a command's arguments: options in git's forms (--name V, --name=V,
 * -n V, -nV, "--" ending the options), the global options (before the command or after
 * it), "did you mean" for a mistyped option, the options a command takes listed for shell
 * completion (--completion-helper, as git's --git-completion-helper), values with units
 * (sizes, ages, counts, seconds) and target lists (--arch, $ROCJIT_ARCH, else the GPUs
 * present).
 *
 * Owns no state beyond the parser a command passes in; sets cli_global from the global
 * options.  A bad argument is reported through diagnostics.c; nothing here opens a cache
 * or runs a command.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *const cli_global_names[] = { "cache", "remote", "quiet", NULL };

/*
 * Whether a --remote URL holds a password (a ':' in the part before its last '@', the
 * rule by which the library masks one): a command line shows in `ps` to every user of
 * the machine, so such a URL is refused before anything runs, pointing to where a
 * password belongs.  A user name alone is allowed (the library masks it in messages).
 */
static int url_has_password(const char *url)
{
	const char *start = strstr(url, "://"), *at;

	if (!start)
		return strchr(url, '@') && strchr(url, ':');
	start += 3;
	at = strrchr(start, '@');
	return at && memchr(start, ':', (size_t)(at - start)) != NULL;
}

/* argv[*i] is --name or --name=V: V, the next argument (*i moved on), or NULL. */
static char *global_value(int end, char **argv, int *i, const char *name, int *is)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	*is = 0;
	if (strncmp(a, "--", 2) || strncmp(a + 2, name, n) || (a[n + 2] && a[n + 2] != '='))
		return NULL;
	*is = 1;
	if (a[n + 2] == '=')
		return argv[*i] + n + 3;
	return *i + 1 < end ? argv[++*i] : NULL;
}

/*
 * The one reading of the global options: main.c calls it before the command, cli_next
 * after it, so `rocjit stats --cache DIR` is `rocjit --cache DIR stats`.  No command has
 * an option of these names (a command's own option would win: cli_next asks here only for
 * names the command does not know), so taking them anywhere is unambiguous.
 */
int cli_global_option(int end, char **argv, int *i)
{
	const char *a = argv[*i];
	char *v;
	int is;

	if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
		cli_global.quiet = 1;
		(*i)++;
		return 1;
	}
	v = global_value(end, argv, i, "cache", &is);
	if (is) {
		if (!v || !*v)
			return cli_usage_error(NULL, "--cache needs a folder"), CLI_ARG_ERROR;
		cli_global.cache_dir = v;
		(*i)++;
		return 1;
	}
	v = global_value(end, argv, i, "remote", &is);
	if (is) {
		if (!v)
			return cli_usage_error(NULL, "--remote needs a URL (redis://host:port; "
					       "\"\" for none)"), CLI_ARG_ERROR;
		if (url_has_password(v))
			return cli_usage_error(NULL, "--remote: a password on the command line is "
					       "visible to every user of this machine (ps): give "
					       "the URL without it, and the password in a file only "
					       "you can read, ROCJIT_REMOTE_PASSWORD_FILE=FILE (or "
					       "the whole URL in ROCJIT_REMOTE)"), CLI_ARG_ERROR;
		cli_global.remote = v;
		(*i)++;
		return 1;
	}
	return 0;
}

/* Optimal string alignment distance (Damerau-Levenshtein without reuse of a swapped
 * pair) between a[0..n) and b, for names of at most 63 bytes; 99 beyond. */
static int edit_distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b);
	int d[64][64];

	if (n > 63 || m > 63)
		return 99;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

/* 0 for a prefix (2 bytes at least), else the edit distance when at most 2 (1 for names
 * of less than five letters); -1 when not near. */
static int near(const char *typed, size_t len, const char *name)
{
	int d;

	if (len >= 2 && len < strlen(name) && strncmp(typed, name, len) == 0)
		return 0;
	d = edit_distance(typed, len, name);
	return d <= (strlen(name) < 5 ? 1 : 2) ? d : -1;
}

void cli_suggest_init(struct cli_suggest *s, const char *typed, size_t len)
{
	memset(s, 0, sizeof *s);
	s->typed = typed;
	s->len = len;
	s->score = 99;
}

void cli_suggest_add(struct cli_suggest *s, const char *name)
{
	int d = name ? near(s->typed, s->len, name) : -1;

	if (d < 0 || d > s->score)
		return;
	if (d < s->score)
		s->n = 0, s->score = d;
	if (s->n < 3)
		s->best[s->n++] = name;
}

const char *cli_suggest_text(const struct cli_suggest *s, char *buf, size_t size,
			     const char *quote)
{
	size_t used = 0;

	buf[0] = 0;
	for (int k = 0; k < s->n && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s%s%s",
					 k == 0 ? "; did you mean " : k == s->n - 1 ? " or " : ", ",
					 quote, s->best[k], strcmp(quote, "--") ? quote : "");
	if (s->n && used < size)
		snprintf(buf + used, size - used, "?");
	return buf;
}

/* The hint for a mistyped option: the nearest of opts' names and the global options'. */
static const char *option_hint(char *buf, size_t size, const struct cli_opt *opts,
			       const char *typed, size_t len)
{
	struct cli_suggest s;

	cli_suggest_init(&s, typed, len);
	for (; opts && opts->name; opts++)
		cli_suggest_add(&s, opts->name);
	for (size_t g = 0; cli_global_names[g]; g++)
		cli_suggest_add(&s, cli_global_names[g]);
	return cli_suggest_text(&s, buf, size, "--");
}

/*
 * `rocjit CMD --completion-helper`: the command's long options, then the global ones,
 * one per line, "--name=" for one that takes a value (git's form), for the completion
 * scripts, which so never list options by hand.  Ends the process.
 */
static void completion_helper(const struct cli_opt *opts)
{
	for (; opts && opts->name; opts++)
		printf("--%s%s\n", opts->name, opts->has_arg ? "=" : "");
	printf("--help\n");
	cli_print_global_options();
	exit(fflush(stdout) == 0 ? CLI_OK : CLI_FAIL);
}

void cli_print_global_options(void)
{
	for (size_t k = 0; cli_global_names[k]; k++)
		printf("--%s%s\n", cli_global_names[k],
		       strcmp(cli_global_names[k], "quiet") ? "=" : "");
}

void cli_parser_init(struct cli_parser *p, const char *cmd, int argc, char **argv,
		     const struct cli_opt *opts, int allow_rest)
{
	p->cmd = cmd;
	p->opts = opts;
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
	p->rest = argc;
	p->allow_rest = allow_rest;
}

/* The option named name (length len), or NULL. */
static const struct cli_opt *find_long(const struct cli_opt *opts, const char *name, size_t len)
{
	for (; opts && opts->name; opts++)
		if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

static const struct cli_opt *find_short(const struct cli_opt *opts, char c)
{
	for (; opts && opts->name; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

/* A usage error met while parsing: printed; the parser's caller exits CLI_USAGE. */
static int arg_error(const struct cli_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int arg_error(const struct cli_parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_usage_verror(p->cmd, fmt, ap);
	va_end(ap);
	return CLI_ARG_ERROR;
}

int cli_next(struct cli_parser *p, const char **value)
{
	const struct cli_opt *o;
	const char *a;

	*value = NULL;
	if (p->i >= p->argc || p->i >= p->rest)
		return CLI_ARG_END;
	a = p->argv[p->i++];
	if (strcmp(a, "--") == 0) {
		if (!p->allow_rest)
			return arg_error(p, "unexpected \"--\": this command "
				"takes no compiler options");
		p->rest = p->i - 1;
		/* The rest is read by the command from argv[rest + 1 ...]. */
		return CLI_ARG_END;
	}
	if (a[0] != '-' || a[1] == 0) {
		*value = a;
		return CLI_ARG_POSITIONAL;
	}
	if (!strcmp(a, "--help") || !strcmp(a, "-h"))
		return CLI_ARG_HELP;
	if (!strcmp(a, "--completion-helper"))
		completion_helper(p->opts);
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		char hint[160];
		o = find_long(p->opts, a + 2, len);
		if (!o) {
			int k = p->i - 1, g = cli_global_option(p->rest, p->argv, &k);
			if (g == 1) {
				p->i = k;
				return cli_next(p, value);
			}
			if (g == CLI_ARG_ERROR)
				return CLI_ARG_ERROR;
			return arg_error(p, "unknown option --%.*s%s", (int)len, a + 2,
					 option_hint(hint, sizeof hint, p->opts, a + 2, len));
		}
		if (!o->has_arg) {
			if (eq)
				return arg_error(p, "--%s takes no value",
						       o->name);
			return o->id;
		}
		if (eq)
			*value = eq + 1;
		else if (p->i < p->argc && p->i < p->rest)
			*value = p->argv[p->i++];
	} else {
		o = find_short(p->opts, a[1]);
		if (!o && !a[2]) {
			int k = p->i - 1;
			if (cli_global_option(p->rest, p->argv, &k) == 1) {
				p->i = k;
				return cli_next(p, value);
			}
		}
		if (!o)
			return arg_error(p, "unknown option %s", a);
		if (!o->has_arg) {
			if (a[2])
				return arg_error(p, "unknown option %s", a);
			return o->id;
		}
		if (a[2])
			*value = a + 2;
		else if (p->i < p->argc && p->i < p->rest)
			*value = p->argv[p->i++];
	}
	if (!*value || !**value)
		return arg_error(p, "--%s needs a value", o->name);
	return o->id;
}

int cli_parse_switches(unsigned int *on, const char *cmd, int argc, char **argv,
		       const struct cli_opt *opts)
{
	struct cli_parser p;
	const char *v;
	int id;

	*on = 0;
	cli_parser_init(&p, cmd, argc, argv, opts, 0);
	while ((id = cli_next(&p, &v)) != CLI_ARG_END) {
		if (id == CLI_ARG_HELP)
			return -1;
		if (id == CLI_ARG_ERROR)
			return CLI_USAGE;
		if (id == CLI_ARG_POSITIONAL)
			return cli_usage_error(cmd, "unexpected argument '%s'", v);
		*on |= 1u << id;
	}
	return CLI_OK;
}

/* A decimal number with an optional fraction; *end gets the rest.  0 or -1. */
static int parse_number(double *out, const char *s, const char **end)
{
	char *e;

	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return -1;
	errno = 0;
	*out = strtod(s, &e);
	if (errno || e == s || !isfinite(*out) || *out < 0)
		return -1;
	*end = e;
	return 0;
}

/* The library's size syntax (rocjit_parse_size), so that --max-size and
 * ROCJIT_CACHE_MAXSIZE take the same values. */
int cli_parse_size(uint64_t *out, const char *s)
{
	return rocjit_parse_size(out, s) == 0 ? 0 : -1;
}

int cli_parse_age(int64_t *out, const char *s)
{
	double v, mult = 86400;
	const char *u;

	if (parse_number(&v, s, &u) != 0)
		return -1;
	if (*u) {
		switch (*u) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		case 'w': mult = 7 * 86400; break;
		default: return -1;
		}
		if (u[1])
			return -1;
	}
	if (v * mult > 1e15)
		return -1;
	*out = (int64_t)(v * mult);
	return 0;
}

int cli_parse_count(long *out, const char *s, long max)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (errno || e == s || *e || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_language(int *out, const char *s)
{
	if (!s)
		return -1;
	if (!strcasecmp(s, "hip"))
		*out = ROCJIT_LANG_HIP;
	else if (!strcasecmp(s, "cuda"))
		*out = ROCJIT_LANG_CUDA;
	else if (!strcasecmp(s, "auto"))
		*out = ROCJIT_LANG_AUTO;
	else
		return -1;
	return 0;
}

int cli_parse_seconds(double *out, const char *s)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v) || v < 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

static void targets_push(struct cli_targets *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->ids[i], id) == 0)
			return;
	t->ids = cli_realloc(t->ids, (t->n + 1) * sizeof *t->ids);
	snprintf(t->ids[t->n++], ROCJIT_MAX_TARGET, "%s", id);
}

int cli_targets_add(struct cli_targets *t, const char *cmd, const char *list)
{
	char *copy = cli_strdup(list), *save = NULL, *tok;
	int rc = CLI_OK;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char norm[ROCJIT_MAX_TARGET];
		if (rocjit_target_normalize(norm, sizeof norm, tok) != 0 ||
		    !rocjit_target_platform(norm)) {
			rc = cli_usage_error(cmd, "\"%s\" is not a target id: AMD targets are "
					     "gfxNNN[:feature+|-] (gfx90a, gfx90a:sramecc+:xnack-), "
					     "NVIDIA targets sm_XY (sm_90); `rocjit targets` lists "
					     "them", tok);
			break;
		}
		targets_push(t, norm);
	}
	if (rc == CLI_OK && t->n == 0)
		rc = cli_usage_error(cmd, "--arch needs at least one target id");
	free(copy);
	return rc;
}

void cli_targets_free(struct cli_targets *t)
{
	free(t->ids);
	t->ids = NULL;
	t->n = 0;
}

int cli_targets_default(struct cli_targets *t, const char *cmd)
{
	static const int platforms[] = { ROCJIT_PLATFORM_AMD, ROCJIT_PLATFORM_NVIDIA };
	const char *env = rocjit_config_get("ROCJIT_ARCH", NULL);

	if (env && *env) {
		if (cli_targets_add(t, cmd, env) != CLI_OK)
			return cli_fail("ROCJIT_ARCH=%s is not a list of target ids: fix it, or "
					"pass --arch", env);
		return CLI_OK;
	}
	for (size_t p = 0; p < sizeof platforms / sizeof platforms[0]; p++) {
		int count = 0;
		if (rocjit_device_count_get(&count, platforms[p]) != 0)
			continue;
		for (int d = 0; d < count; d++) {
			char id[ROCJIT_MAX_TARGET];
			if (rocjit_device_target_get(id, sizeof id, platforms[p], d) == 0)
				targets_push(t, id);
			else
				cli_warn("cannot read the target of %s GPU %d: %s",
					 rocjit_platform_name(platforms[p]), d, rocjit_last_error());
		}
	}
	if (t->n == 0)
		return cli_fail("no GPU found on this machine and no target given: pass --arch "
				"(e.g. --arch gfx90a,sm_90) or set ROCJIT_ARCH; `rocjit targets` "
				"lists the targets the compilers support");
	return CLI_OK;
}
