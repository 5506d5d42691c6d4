/*
 * config.c - `rocjit config`: every setting with its effective value and where it came
 * from (the environment, the user file, the system file, the cache, the default), and
 * `rocjit config set|unset KEY [VALUE]`, which write the user file, or the cache for the
 * cache's size limit (ccache -p, ccache -M).
 *
 * Owns nothing beyond one report or one change.  The settings, their order, their parsers
 * and the files are the library's (rocjit_setting_at, rocjit_config_*): the tool shows and
 * writes exactly what the library reads.  Uses the files below the commands only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

#define LIMIT "cache_maxsize"

enum { OPT_JSON = 1, OPT_FILE };

static const struct cli_opt config_opts[] = {
	{ "json", 0, 0, OPT_JSON },
	{ "file", 0, 0, OPT_FILE },
	{ NULL, 0, 0, 0 }
};

/* One setting as shown: its value (NULL: the default) and where it came from. */
struct shown {
	const char *value;
	const char *source; /* "environment", "user", "system", "cache", "default" */
	const char *where;  /* the file or the cache's folder; NULL otherwise        */
	char buf[64];
};

/* The cache's size limit as the cache enforces it, when a cache exists there. */
static int cache_limit(struct shown *s, const char *dir)
{
	rocjit_options o = ROCJIT_OPTIONS_INIT;
	const char *source = NULL, *stored = NULL;
	rocjit_ctx *ctx = NULL;
	uint64_t bytes;
	int found = 0;

	o.cache_dir = cli_global.cache_dir;
	o.remote = "";
	o.flags = ROCJIT_OPEN_READONLY;
	if (access(dir, F_OK) != 0 || rocjit_open(&ctx, &o) != 0)
		return 0;
	if (rocjit_cache_maxsize_get(&bytes, &source, &stored, ctx) == 0 && source &&
	    !strcmp(source, "cache")) {
		snprintf(s->buf, sizeof s->buf, "%s", stored);
		s->value = s->buf;
		s->source = "cache";
		s->where = dir;
		found = 1;
	}
	rocjit_close(ctx);
	return found;
}

static void lookup(struct shown *s, const rocjit_setting *set, const char *cache_dir,
		   const char *user, const char *system)
{
	const char *src = NULL;

	memset(s, 0, sizeof *s);
	s->value = rocjit_config_get(set->env, &src);
	s->source = "default";
	if (s->value && !strcmp(src, "environment"))
		s->source = "environment";
	else if (!strcmp(set->name, LIMIT) && cache_limit(s, cache_dir))
		return;
	else if (s->value) {
		s->source = !strcmp(src, user) ? "user" : !strcmp(src, system) ? "system" : src;
		s->where = src;
	}
}

static int show(int json)
{
	char user[4096] = "", system[4096] = "", dir[4096];
	const rocjit_setting *set;
	struct shown s;

	if (rocjit_config_file(user, sizeof user, ROCJIT_CONFIG_USER) != 0)
		snprintf(user, sizeof user, "(none: %s)", rocjit_last_error());
	rocjit_config_file(system, sizeof system, ROCJIT_CONFIG_SYSTEM);
	cli_cache_dir(dir, sizeof dir);
	if (json) {
		struct cli_json j;
		cli_json_init(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_str(&j, "user_file", user);
		cli_json_bool(&j, "user_file_exists", access(user, F_OK) == 0);
		cli_json_str(&j, "system_file", system);
		cli_json_bool(&j, "system_file_exists", *system && access(system, F_OK) == 0);
		cli_json_str(&j, "cache", dir);
		cli_json_array(&j, "settings");
		for (size_t i = 0; (set = rocjit_setting_at(i)); i++) {
			lookup(&s, set, dir, user, system);
			cli_json_object(&j, NULL);
			cli_json_str(&j, "name", set->name);
			cli_json_str(&j, "env", set->env);
			if (s.value)
				cli_json_str(&j, "value", s.value);
			else
				cli_json_null(&j, "value");
			cli_json_str(&j, "source", s.source);
			if (s.where)
				cli_json_str(&j, "where", s.where);
			cli_json_str(&j, "default", set->default_value);
			cli_json_str(&j, "kind", set->kind);
			cli_json_str(&j, "description", set->description);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
		return CLI_OK;
	}
	printf("# user file:   %s%s\n", cli_text(user), access(user, F_OK) ? " (none)" : "");
	printf("# system file: %s%s\n", *system ? cli_text(system) : "(none: ROCJIT_CONFIG=\"\")",
	       *system && access(system, F_OK) ? " (none)" : "");
	printf("# cache:       %s\n", cli_text(dir));
	for (size_t i = 0; (set = rocjit_setting_at(i)); i++) {
		char line[600];
		lookup(&s, set, dir, user, system);
		if (s.value)
			snprintf(line, sizeof line, "%s = %s", set->name, s.value);
		else
			snprintf(line, sizeof line, "%s = (%s)", set->name, set->default_value);
		printf("%-52s  # %s", cli_text(line), s.source);
		if (!strcmp(s.source, "environment"))
			printf(": %s%s", set->env,
			       !strcmp(set->name, LIMIT) ? ", for this process only" : "");
		else if (s.where)
			printf(": %s", cli_text(s.where));
		printf("\n");
	}
	return CLI_OK;
}

/* set (value) or unset (value NULL) the cache's own limit. */
static int set_cache_limit(const char *value)
{
	rocjit_ctx *ctx = NULL;
	char dir[4096];
	int rc = cli_open(&ctx, 0, value ? 1 : CLI_EXISTING);

	cli_cache_dir(dir, sizeof dir);
	if (rc == CLI_MISSING) {
		printf("no cache at %s: no size limit stored\n", cli_text(dir));
		return CLI_OK;
	}
	if (rc != CLI_OK)
		return rc;
	if (rocjit_cache_maxsize_set(ctx, value) != 0) {
		rc = cli_fail("cannot %s the cache's size limit: %s", value ? "store" : "remove",
			      rocjit_last_error());
	} else if (value) {
		printf("%s = %s stored in the cache at %s: every process using it keeps it to "
		       "that size\n", LIMIT, cli_text(value), cli_text(dir));
	} else {
		printf("%s removed from the cache at %s: the configuration files or the default "
		       "apply\n", LIMIT, cli_text(dir));
	}
	rocjit_close(ctx);
	return rc;
}

static int set(const rocjit_setting *s, const char *value, int to_file)
{
	char user[4096];
	const char *env = getenv(s->env);

	if (value && rocjit_config_check(s->name, value) != 0)
		return cli_usage_error("config", "%s", rocjit_last_error());
	if (env && *env)
		cli_warn("%s=%s in this environment overrides what is %s here", s->env, env,
			 value ? "set" : "unset");
	if (!strcmp(s->name, LIMIT) && !to_file)
		return set_cache_limit(value);
	if (rocjit_config_write(s->name, value) != 0)
		return cli_fail("%s", rocjit_last_error());
	rocjit_config_file(user, sizeof user, ROCJIT_CONFIG_USER);
	if (value)
		printf("%s = %s written to %s\n", s->name, cli_text(value), cli_text(user));
	else
		printf("%s removed from %s\n", s->name, cli_text(user));
	return CLI_OK;
}

int cli_config(int argc, char **argv)
{
	struct cli_parser p;
	const char *v, *args[4] = { NULL };
	const rocjit_setting *s;
	int id, json = 0, to_file = 0, n = 0;

	cli_parser_init(&p, "config", argc, argv, config_opts, 0);
	while ((id = cli_next(&p, &v)) != CLI_ARG_END) {
		if (id == CLI_ARG_HELP)
			return cli_help("config");
		if (id == CLI_ARG_ERROR)
			return CLI_USAGE;
		if (id == OPT_JSON)
			json = 1;
		else if (id == OPT_FILE)
			to_file = 1;
		else if (n < 4)
			args[n++] = v;
		else
			return cli_usage_error("config", "too many arguments");
	}
	if (!n || !strcmp(args[0], "show")) {
		if (n > 1)
			return cli_usage_error("config", "show takes no argument");
		return show(json);
	}
	if (strcmp(args[0], "set") && strcmp(args[0], "unset") && strcmp(args[0], "get"))
		return cli_usage_error("config", "'%s' is not show, get, set or unset", args[0]);
	if (n < 2)
		return cli_usage_error("config", "%s needs a setting's name (`rocjit config` "
				       "lists them)", args[0]);
	if (!(s = rocjit_setting_find(args[1])))
		return cli_usage_error("config", "'%s' is no setting (`rocjit config` lists them)",
				       args[1]);
	if (!strcmp(args[0], "get")) {
		struct shown sh;
		char user[4096] = "", system[4096] = "", dir[4096];
		if (n != 2)
			return cli_usage_error("config", "get takes one setting's name");
		rocjit_config_file(user, sizeof user, ROCJIT_CONFIG_USER);
		rocjit_config_file(system, sizeof system, ROCJIT_CONFIG_SYSTEM);
		cli_cache_dir(dir, sizeof dir);
		lookup(&sh, s, dir, user, system);
		printf("%s\n", sh.value ? cli_text(sh.value) : "");
		return CLI_OK;
	}
	if (!strcmp(args[0], "set") && n != 3)
		return cli_usage_error("config", "set takes a setting's name and its value");
	if (!strcmp(args[0], "unset") && n != 2)
		return cli_usage_error("config", "unset takes one setting's name");
	if (!strcmp(s->name, "config"))
		return cli_usage_error("config", "ROCJIT_CONFIG is read from the environment only");
	return set(s, n == 3 ? args[2] : NULL, to_file);
}
