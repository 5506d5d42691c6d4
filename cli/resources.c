/*
 * resources.c - what each kernel of a code object uses, as `rocjit show` and `rocjit
 * compile` print it: one line per kernel (registers, spills, scratch, static shared
 * memory, argument bytes, launch bound, wavefront), or a "resources" array in --json.
 * Read from the object through the public API (rocjit_codeobj_resources_get), so it works
 * for any target on a machine without a GPU.  Owns no state; decides nothing about
 * commands.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"

/* The kernel's figures, or -1 with rocjit_last_error() saying why. */
static int get(rocjit_kernel_resources *r, const void *data, size_t size, const char *kernel)
{
	rocjit_kernel_resources_init(r, ROCJIT_KERNEL_RESOURCES_VERSION);
	return rocjit_codeobj_resources_get(r, data, size, kernel) == 0 ? 0 : -1;
}

void cli_print_resources(const void *data, size_t size, const rocjit_codeobj_info *info)
{
	for (size_t i = 0; info && i < info->num_kernels; i++) {
		rocjit_kernel_resources r;

		printf("  %s: ", cli_text(info->kernels[i]));
		if (get(&r, data, size, info->kernels[i]) < 0) {
			printf("resources unknown (%s)\n", cli_text(rocjit_last_error()));
			continue;
		}
		if (r.platform == ROCJIT_PLATFORM_AMD) {
			printf("%u VGPRs", r.registers);
			if (r.agprs)
				printf(" + %u AGPRs", r.agprs);
			printf(", %u SGPRs, ", r.sgprs);
			if (r.vgpr_spills || r.sgpr_spills)
				printf("%u VGPR + %u SGPR spills, ", r.vgpr_spills, r.sgpr_spills);
			else
				printf("0 spills, ");
			printf("%" PRIu64 " B scratch%s, %" PRIu64 " B LDS, %" PRIu64 " B args, "
			       "max %u threads, wave%u\n", r.scratch_bytes,
			       r.dynamic_stack ? " (+ dynamic stack)" : "", r.shared_bytes,
			       r.param_bytes, r.max_threads, r.wavefront);
		} else {
			printf("%u registers, %" PRIu64 " B stack, %" PRIu64 " B shared, %" PRIu64
			       " B params, ", r.registers, r.scratch_bytes, r.shared_bytes,
			       r.param_bytes);
			if (r.max_threads)
				printf("max %u threads\n", r.max_threads);
			else
				printf("no launch bound\n");
		}
	}
}

/* Field names are the public struct's, so a script reads the same in C and JSON. */
void cli_json_resources(struct cli_json *j, const void *data, size_t size,
			const rocjit_codeobj_info *info)
{
	cli_json_array(j, "resources");
	for (size_t i = 0; info && i < info->num_kernels; i++) {
		rocjit_kernel_resources r;

		cli_json_object(j, NULL);
		cli_json_str(j, "kernel", info->kernels[i]);
		if (get(&r, data, size, info->kernels[i]) < 0) {
			cli_json_str(j, "error", rocjit_last_error());
			cli_json_end_object(j);
			continue;
		}
		cli_json_uint(j, "registers", r.registers);
		cli_json_uint(j, "agprs", r.agprs);
		cli_json_uint(j, "sgprs", r.sgprs);
		cli_json_uint(j, "vgpr_spills", r.vgpr_spills);
		cli_json_uint(j, "sgpr_spills", r.sgpr_spills);
		cli_json_uint(j, "scratch_bytes", r.scratch_bytes);
		cli_json_bool(j, "dynamic_stack", r.dynamic_stack);
		cli_json_uint(j, "shared_bytes", r.shared_bytes);
		cli_json_uint(j, "param_bytes", r.param_bytes);
		cli_json_uint(j, "max_threads", r.max_threads);
		cli_json_uint(j, "wavefront", r.wavefront);
		cli_json_end_object(j);
	}
	cli_json_end_array(j);
}
