/*
 * global.c - the global options (`rocjit --cache DIR COMMAND`, or after the command): the
 * state every command may read, set while the command line is read.
 *
 * Owns cli_global.  Uses no other file of cli/; it parses nothing (args.c reads the
 * options, for main.c before the command and for cli_next after it) and no command may
 * write cli_global.
 */
#include "cli.h"

struct cli_global cli_global;
