/*
 * replay.c - a plain main() for the fuzz targets when they are not built with libFuzzer.
 *
 * Runs LLVMFuzzerTestOneInput once over every regular file named on the command line or
 * lying directly in a folder named there (not recursively), in name order, so ctest replays
 * the seed corpus and every crash ever found under any compiler and sanitizer.  Each input
 * is copied into a buffer of exactly its size, as libFuzzer does, so AddressSanitizer sees a
 * read one byte past the end.  A failed check in a target aborts the process: the last
 * "Running:" line on stderr names the input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Reads path into a malloc'ed buffer of exactly its size (1 byte for an empty file). */
static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n ? (size_t)n : 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Runs one input.  Returns 0, or -1 when the file cannot be read. */
static int run_file(const char *path)
{
	size_t size = 0;
	unsigned char *data = read_file(path, &size);

	if (!data) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		return -1;
	}
	fprintf(stderr, "Running: %s (%zu bytes)\n", path, size);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int main(int argc, char **argv)
{
	size_t replayed = 0;
	int i, failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIR...\n"
			"Runs the fuzz target once on each file (folders: each file in them).\n",
			argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent **names;
		int n, k;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
			failed = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) == 0)
				replayed++;
			else
				failed = 1;
			continue;
		}
		n = scandir(argv[i], &names, skip_dots, alphasort);
		if (n < 0) {
			fprintf(stderr, "replay: cannot list %s\n", argv[i]);
			failed = 1;
			continue;
		}
		for (k = 0; k < n; k++) {
			size_t len = strlen(argv[i]) + strlen(names[k]->d_name) + 2;
			char *path = malloc(len);

			if (!path) {
				fprintf(stderr, "replay: out of memory\n");
				return 2;
			}
			snprintf(path, len, "%s/%s", argv[i], names[k]->d_name);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				if (run_file(path) == 0)
					replayed++;
				else
					failed = 1;
			}
			free(path);
			free(names[k]);
		}
		free(names);
	}
	printf("replayed %zu inputs\n", replayed);
	if (replayed == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		return 1;
	}
	return failed;
}
