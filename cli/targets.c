/*
 * targets.c - `rocjit targets`: per platform, the compiler's identity (as it enters cache
 * keys), the targets it compiles for, and the GPUs of this machine.
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
	if (rocjit_device_count_get(&p->ndev, id) != 0)
		p->ndev = 0;
	if (p->ndev > 16)
		p->ndev = 16;
	for (int d = 0; d < p->ndev; d++)
		if (rocjit_device_target_get(p->dev[d], sizeof p->dev[d], id, d) != 0)
			snprintf(p->dev[d], sizeof p->dev[d], "(unknown)");
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
