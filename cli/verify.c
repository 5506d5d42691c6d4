/*
 * verify.c - `rocjit verify`: check every entry's checksum, that its code object is for
 * the target it is stored under, and its signature against ROCJIT_TRUSTED_KEYS; --fix
 * drops the bad ones.  Reports how many entries are signed by a trusted key, unsigned,
 * or signed by another key.  Exit status 1 when anything was bad (also with --fix:
 * something was wrong, and scripts should know).
 *
 * Owns the list of bad entries of one run.  Uses the files below the commands, never
 * another command's file or main.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_FIX = 1, OPT_JSON };

static const struct cli_opt verify_opts[] = {
	{ "fix", 0, 0, OPT_FIX },
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

struct bad {
	struct cli_row row;
	int reason;
	char *message;
};

struct verify {
	struct bad *bad;
	size_t n;
	uint64_t signatures[ROCJIT_SIGNATURE_BAD + 1]; /* entries by ROCJIT_SIGNATURE_* */
};

static void each_cb(const rocjit_entry *e, int reason, const char *message, void *user)
{
	struct verify *v = user;
	struct bad *b;

	if (e->signature >= 0 && e->signature <= ROCJIT_SIGNATURE_BAD)
		v->signatures[e->signature]++;
	if (!reason)
		return;
	v->bad = cli_realloc(v->bad, (v->n + 1) * sizeof *v->bad);
	b = &v->bad[v->n++];
	memset(b, 0, sizeof *b);
	memcpy(b->row.key, e->key, sizeof b->row.key);
	b->row.key[32] = 0;
	b->row.target = cli_strdup(e->target);
	b->row.source_name = cli_strdup(e->source_name);
	memcpy(b->row.signer, e->signer, sizeof b->row.signer);
	b->row.signer[sizeof b->row.signer - 1] = 0;
	b->row.signature = e->signature;
	b->reason = reason;
	b->message = cli_strdup(message);
}

static const char *reason_name(int reason)
{
	return reason == ROCJIT_VERIFY_CHECKSUM ? "checksum"
	       : reason == ROCJIT_VERIFY_OBJECT ? "object"
	       : reason == ROCJIT_VERIFY_SIGNATURE ? "signature"
						: "unknown";
}

int cli_verify(int argc, char **argv)
{
	struct verify v = { 0 };
	uint64_t checked = 0, nbad = 0;
	unsigned int on;
	int id, rc, fix, json;
	rocjit_ctx *ctx = NULL;

	rc = cli_parse_switches(&on, "verify", argc, argv, verify_opts);
	fix = !!(on & 1u << OPT_FIX);
	json = !!(on & 1u << OPT_JSON);
	if (rc == -1)
		return cli_help("verify");
	if (rc == CLI_OK)
		rc = cli_open(&ctx, fix ? 0 : ROCJIT_OPEN_READONLY, CLI_EXISTING);
	if (rc == CLI_MISSING) {
		cli_no_cache_note(); /* nothing to check: nothing is bad */
		rc = CLI_OK;
	} else if (rc == CLI_OK &&
		   (id = rocjit_cache_verify_each(ctx, fix, each_cb, &v, &checked, &nbad)))
		rc = cli_fail("cannot check the cache: %s (%s); if the database itself is "
			      "damaged, remove it (`rocjit stats` shows its path): the cache "
			      "refills itself", rocjit_last_error(), rocjit_strerror(id));
	/* Removed entries leave free pages: give them back, as purge does. */
	if (rc == CLI_OK && fix && nbad && rocjit_cache_compact(ctx) != 0)
		cli_warn("the bad entries are gone but the file was not compacted: %s",
			 rocjit_last_error());
	if (rc == CLI_OK && json) {
		struct cli_json j;
		cli_json_init(&j, stdout);
		cli_json_object(&j, NULL);
		cli_json_uint(&j, "checked", checked);
		cli_json_uint(&j, "bad", nbad);
		cli_json_bool(&j, "fixed", fix);
		cli_json_object(&j, "signatures");
		for (int i = 0; i <= ROCJIT_SIGNATURE_BAD; i++)
			cli_json_uint(&j, cli_signature_name(i), v.signatures[i]);
		cli_json_end_object(&j);
		cli_json_array(&j, "entries");
		for (size_t i = 0; i < v.n; i++) {
			cli_json_object(&j, NULL);
			cli_json_str(&j, "key", v.bad[i].row.key);
			cli_json_str(&j, "target", v.bad[i].row.target);
			cli_json_str(&j, "source", v.bad[i].row.source_name);
			cli_json_str(&j, "reason", reason_name(v.bad[i].reason));
			cli_json_str(&j, "message", v.bad[i].message);
			cli_json_str(&j, "signer", v.bad[i].row.signer);
			cli_json_str(&j, "signature",
				     cli_signature_name(v.bad[i].row.signature));
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		cli_json_finish(&j);
	} else if (rc == CLI_OK && (nbad || !cli_global.quiet)) {
		for (size_t i = 0; i < v.n; i++)
			printf("bad %.12s  %s  %s: %s: %s\n", v.bad[i].row.key,
			       cli_text(v.bad[i].row.target), cli_text(v.bad[i].row.source_name),
			       reason_name(v.bad[i].reason), cli_text(v.bad[i].message));
		/* Signatures: what would load where they are required.  An entry whose
		   checksum failed cannot have its signature checked ("unchecked"). */
		if (checked)
			printf("signatures: %" PRIu64 " trusted, %" PRIu64 " unsigned, %" PRIu64
			       " by keys not trusted, %" PRIu64 " bad%s%s\n",
			       v.signatures[ROCJIT_SIGNATURE_TRUSTED],
			       v.signatures[ROCJIT_SIGNATURE_NONE],
			       v.signatures[ROCJIT_SIGNATURE_UNTRUSTED],
			       v.signatures[ROCJIT_SIGNATURE_BAD],
			       v.signatures[ROCJIT_SIGNATURE_UNCHECKED]
				       ? ", the rest not checkable (their checksum failed)"
				       : "",
			       v.signatures[ROCJIT_SIGNATURE_TRUSTED] ||
					       v.signatures[ROCJIT_SIGNATURE_BAD] ||
					       rocjit_config_get("ROCJIT_TRUSTED_KEYS", NULL)
				       ? ""
				       : " (no key is trusted: set ROCJIT_TRUSTED_KEYS to check "
					 "signatures)");
		printf("verify: %" PRIu64 " entr%s checked, %" PRIu64 " bad", checked,
		       checked == 1 ? "y" : "ies", nbad);
		if (nbad)
			printf(fix ? "; removed\n" : "; run `rocjit verify --fix` to remove them\n");
		else
			printf("\n");
	}
	if (rc == CLI_OK && nbad)
		rc = CLI_FAIL;
	for (size_t i = 0; i < v.n; i++) {
		cli_row_free(&v.bad[i].row);
		free(v.bad[i].message);
	}
	free(v.bad);
	rocjit_close(ctx);
	return rc;
}
