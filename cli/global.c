/*
 * global.c - the global options (`rocjit --cache DIR COMMAND`): the state every command
 * may read, set once by main.c before the command runs.
 *
 * Owns cli_global.  Uses no other file of cli/; it parses nothing (main.c reads the
 * options) and no command may write cli_global.
 */
#include "cli.h"

struct cli_global cli_global;
