/*
 * list.c - `rocjit list` (`ls`): one line per cache entry, with purge's filters, sortable.
 *
 * Owns nothing beyond one listing.  Uses the files below the commands (entries.c reads
 * and filters the rows), never another command's file or main.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_FILTER = 1, OPT_SORT = 10, OPT_REVERSE, OPT_JSON };

static const struct cli_opt list_opts[] = {
	CLI_FILTER_OPTS(OPT_FILTER),
	{ "sort", 's', 1, OPT_SORT },
	{ "reverse", 'r', 0, OPT_REVERSE },
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

static void print_table(const struct cli_row *rows, size_t n)
{
	int64_t now = cli_now_s();
	int tw = 6;

	if (!n)
		return; /* like ls: nothing for nothing */
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(cli_text(rows[i].target)) > tw)
			tw = (int)strlen(cli_text(rows[i].target));
	printf("%-12s  %-*s %10s  %-12s %6s  %s\n", "KEY", tw, "TARGET", "SIZE", "LAST USED",
	       "HITS", "SOURCE: KERNELS");
	for (size_t i = 0; i < n; i++) {
		const struct cli_row *r = &rows[i];
		char size[32], ago[32];
		printf("%.12s  %-*s %10s  %-12s %6" PRIu64 "  %s: %s\n", r->key, tw,
		       cli_text(r->target), cli_fmt_size(size, sizeof size, r->size),
		       cli_fmt_ago(ago, sizeof ago, cli_row_last_use(r), now), r->hits,
		       cli_text(r->source_name), cli_text(r->kernels));
	}
}

int cli_list(int argc, char **argv)
{
	struct cli_filter f;
	struct cli_parser p;
	struct cli_row *rows = NULL;
	const char *v, *sort = "key";
	int id, rc = CLI_OK, reverse = 0, json = 0;
	rocjit_ctx *ctx = NULL;
	size_t n = 0;

	cli_filter_init(&f);
	cli_parser_init(&p, "list", argc, argv, list_opts, 0);
	while (rc == CLI_OK && (id = cli_next(&p, &v)) != CLI_ARG_END) {
		switch (id) {
		case CLI_ARG_HELP: rc = -1; break;
		case CLI_ARG_ERROR: rc = CLI_USAGE; break;
		case CLI_ARG_POSITIONAL:
			rc = cli_usage_error("list", "unexpected argument '%s'", v);
			break;
		case OPT_SORT:
			sort = v;
			if (cli_rows_sort(NULL, 0, sort, 0) != 0)
				rc = cli_usage_error("list", "--sort %s: sort by one of %s", v,
						     cli_sort_fields);
			break;
		case OPT_REVERSE: reverse = 1; break;
		case OPT_JSON: json = 1; break;
		default: rc = cli_filter_option(&f, "list", id - OPT_FILTER, v);
		}
	}
	if (rc == -1) {
		cli_filter_free(&f);
		return cli_help("list");
	}
	if (rc == CLI_OK)
		rc = cli_open(&ctx, ROCJIT_OPEN_READONLY, CLI_EXISTING);
	if (rc == CLI_MISSING) {
		cli_no_cache_note(); /* and no rows, as for an empty cache */
		rc = CLI_OK;
	} else if (rc == CLI_OK) {
		rc = cli_rows_load(ctx, &f, &rows, &n);
	}
	if (rc == CLI_OK) {
		cli_rows_sort(rows, n, sort, reverse);
		if (json) {
			struct cli_json j;
			cli_json_init(&j, stdout);
			cli_json_array(&j, NULL);
			for (size_t i = 0; i < n; i++)
				cli_row_json(&j, &rows[i]);
			cli_json_end_array(&j);
			cli_json_finish(&j);
		} else {
			print_table(rows, n);
		}
	}
	cli_rows_free(rows, n);
	cli_filter_free(&f);
	rocjit_close(ctx);
	return rc;
}
