/*
 * config.h - rocjit's settings: the one table of them (config.c), and the one accessor
 * every part of the library reads a ROCJIT_* setting through (rj_config, env.c).  rocjit_config_get(),
 * rocjit_setting_at() and the rest are public (rocjit.h): the CLI shows and sets the same
 * settings the same way.
 */
#ifndef ROCJIT_CONFIG_H
#define ROCJIT_CONFIG_H

#include "rocjit.h"

/* Where a setting's value came from, lowest precedence first. */
enum rj_config_from { RJ_FROM_DEFAULT = 0, RJ_FROM_SYSTEM, RJ_FROM_USER, RJ_FROM_ENV };

/*
 * The value of setting name (its ROCJIT_* variable, or its file key) from the environment,
 * else the user file, else the system file; NULL when none sets it (the caller's default
 * applies).  *from (may be NULL) says which.  Names the table does not hold are read from
 * the environment alone.  Cheap after the first call: the files are read once a process.
 * rj_config (env.c) is the one every reader uses: it also says the files' warnings.
 */
const char *rj_config(const char *name, int *from);
/* The same without saying the warnings: for the log itself (error.c). */
const char *rj_config_lookup(const char *name, int *from);
/* The i-th warning reading the files made (0, 1, ...), or NULL past the last. */
const char *rj_config_warning(int i);
/* The file a value RJ_FROM_USER or RJ_FROM_SYSTEM came from; NULL for the others. */
const char *rj_config_file_of(int from);

/* The setting of key or variable name, with its index; NULL when none. */
const rocjit_setting *rj_config_find(const char *name, size_t *index);
/*
 * Checks value with the parser s's reader uses: 0, or -1 with why[size] saying why.
 * stored: the value is kept in a file (read from one, or to be written), so it may hold
 * no control character and its paths must be absolute; a value of the environment
 * (stored 0) is the user's own, resolved in the folder they chose, and only a path in it
 * may hold no control character.
 */
int rj_config_check(const rocjit_setting *s, const char *value, int stored, char *why,
		    size_t size);
/* The user or system file's path (ROCJIT_CONFIG_USER / _SYSTEM): 0, or -1 (no HOME). */
int rj_config_path(char *out, size_t size, int which);
/* Sets s to value (NULL: removes it) in the user file: 0, or -1 with why[size]. */
int rj_config_write_user(const rocjit_setting *s, const char *value, char *why, size_t size);

#endif
