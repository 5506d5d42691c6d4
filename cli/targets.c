/*
 * targets.c - `rocjit targets`: per platform, the compiler's identity (as it enters cache
 * keys), the library files it was loaded from and the rule that found each (with the
 * places passed over), the targets it compiles for, and the GPUs of this machine.
 *
 * Owns nothing; opens no cache.  Uses the files below the commands, never another
 * command's file or main.c.
 */
#include <string.h>

#include "cli.h"
#include "commands.h"

static const struct cli_opt targets_opts[] = {
	{ "json", 0, 0, 1 },
	{ NULL, 0, 0, 0 }
};

struct platform_info {
	int id;
	const char *identity;          /* NULL: no compiler                             */
	char why[1024];                /* why not                                       */
	char targets[8192];
	char libs[8192];               /* rocjit_compiler_libraries_get's lines          */
	int ndev;
	char dev[16][ROCJIT_MAX_TARGET];
};

static void probe(struct platform_info *p, int id)
{
	memset(p, 0, sizeof *p);
	p->id = id;
	if (rocjit_compiler_identity(&p->identity, id) != 0) {
		p->identity = NULL;
		snprintf(p->why, sizeof p->why, "%s", rocjit_last_error());
	} else if (rocjit_compiler_targets_get(p->targets, sizeof p->targets, id) != 0) {
		snprintf(p->targets, sizeof p->targets, "(unknown: %s)", rocjit_last_error());
	}
	rocjit_compiler_libraries_get(p->libs, sizeof p->libs, id); /* notes even on failure */
	if (rocjit_device_count_get(&p->ndev, id) != 0)
		p->ndev = 0;
	if (p->ndev > 16)
		p->ndev = 16;
	for (int d = 0; d < p->ndev; d++)
		if (rocjit_device_target_get(p->dev[d], sizeof p->dev[d], id, d) != 0)
			snprintf(p->dev[d], sizeof p->dev[d], "(unknown)");
}

/* Calls each(name, file, rule, arg) per line of libs ("NAME\tFILE\tRULE"), for the
 * libraries (notes 0) or the notes (notes 1: name "note", file empty). */
static void each_library(const char *libs, int notes,
			 void (*each)(const char *name, const char *file, const char *rule,
				      void *arg), void *arg)
{
	char line[4096], *f[3];

	while (*libs) {
		size_t len = strcspn(libs, "\n");
		snprintf(line, sizeof line, "%.*s", (int)len, libs);
		libs += len + (libs[len] != 0);
		f[0] = line;
		if (!(f[1] = strchr(f[0], '\t')) || !(f[2] = strchr(f[1] + 1, '\t')))
			continue;
		*f[1]++ = 0;
		*f[2]++ = 0;
		if ((strcmp(f[0], "note") == 0) == notes)
			each(f[0], f[1], f[2], arg);
	}
}

static void library_json(const char *name, const char *file, const char *rule, void *arg)
{
	struct cli_json *j = arg;

	cli_json_object(j, NULL);
	cli_json_str(j, "name", name);
	cli_json_str(j, "file", file);
	cli_json_str(j, "found_by", rule);
	cli_json_end_object(j);
}

static void note_json(const char *name, const char *file, const char *rule, void *arg)
{
	(void)name, (void)file;
	cli_json_str(arg, NULL, rule);
}

static void library_text(const char *name, const char *file, const char *rule, void *arg)
{
	char label[32];

	(void)arg;
	snprintf(label, sizeof label, "%s:", name);
	if (*file)
		printf("  %-10s %s (found by %s)\n", label, cli_text(file), cli_text(rule));
	else
		printf("  %-10s %s\n", label, cli_text(rule));
}

static void print_json(const struct platform_info *p, size_t n)
{
	struct cli_json j;

	cli_json_init(&j, stdout);
	cli_json_object(&j, NULL);
	cli_json_array(&j, "platforms");
	for (size_t i = 0; i < n; i++) {
		cli_json_object(&j, NULL);
		cli_json_str(&j, "platform", rocjit_platform_name(p[i].id));
		cli_json_bool(&j, "compiler_available", p[i].identity != NULL);
		if (p[i].identity) {
			cli_json_str(&j, "compiler", p[i].identity);
			cli_json_list(&j, "targets", p[i].targets, ' ');
		} else {
			cli_json_str(&j, "error", p[i].why);
		}
		cli_json_array(&j, "libraries");
		each_library(p[i].libs, 0, library_json, &j);
		cli_json_end_array(&j);
		cli_json_array(&j, "notes");
		each_library(p[i].libs, 1, note_json, &j);
		cli_json_end_array(&j);
		cli_json_array(&j, "devices");
		for (int d = 0; d < p[i].ndev; d++)
			cli_json_str(&j, NULL, p[i].dev[d]);
		cli_json_end_array(&j);
		cli_json_end_object(&j);
	}
	cli_json_end_array(&j);
	cli_json_end_object(&j);
	cli_json_finish(&j);
}

static void print_text(const struct platform_info *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		printf("%s\n", rocjit_platform_name(p[i].id));
		if (p[i].identity) {
			printf("  compiler:  %s\n", cli_text(p[i].identity));
			printf("  targets:   %s\n", cli_text(p[i].targets));
		} else {
			printf("  compiler:  not available: %s\n", cli_text(p[i].why));
		}
		each_library(p[i].libs, 0, library_text, NULL);
		each_library(p[i].libs, 1, library_text, NULL);
		printf("  GPUs:      ");
		if (!p[i].ndev)
			printf("none");
		for (int d = 0; d < p[i].ndev; d++)
			printf("%s%d: %s", d ? ", " : "", d, cli_text(p[i].dev[d]));
		printf("\n");
	}
}

int cli_targets(int argc, char **argv)
{
	static struct platform_info p[2];
	unsigned int json;
	int rc = cli_parse_switches(&json, "targets", argc, argv, targets_opts);

	if (rc == -1)
		return cli_help("targets");
	if (rc != CLI_OK)
		return rc;
	probe(&p[0], ROCJIT_PLATFORM_AMD);
	probe(&p[1], ROCJIT_PLATFORM_NVIDIA);
	if (json)
		print_json(p, 2);
	else
		print_text(p, 2);
	return CLI_OK;
}
