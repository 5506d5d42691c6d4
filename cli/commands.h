/*
 * commands.h - the commands' entry points, for main.c's command table.  Each is
 * int cli_CMD(int argc, char **argv) with argv[0] the command name; it returns the exit
 * status (CLI_OK, CLI_FAIL, CLI_USAGE).
 *
 * Included by main.c and by the file that defines each command, nowhere else: a command
 * never runs another, and no file below the commands knows them.
 */
#ifndef ROCJIT_CLI_COMMANDS_H
#define ROCJIT_CLI_COMMANDS_H

int cli_prewarm(int argc, char **argv); /* prewarm.c */
int cli_export(int argc, char **argv);  /* prewarm.c: prewarm, then write a bundle */
int cli_import(int argc, char **argv);  /* import.c */
int cli_purge(int argc, char **argv);   /* purge.c */
int cli_stats(int argc, char **argv);   /* stats.c */
int cli_list(int argc, char **argv);    /* list.c */
int cli_show(int argc, char **argv);    /* show.c */
int cli_verify(int argc, char **argv);  /* verify.c */
int cli_compile(int argc, char **argv); /* compile.c */
int cli_targets(int argc, char **argv); /* targets.c */
int cli_remote(int argc, char **argv);  /* remote.c: remote ping|stats */
int cli_push(int argc, char **argv);    /* remote.c: put local entries on the remote tier */
int cli_keygen(int argc, char **argv);  /* signing.c: a key pair to sign code with */
int cli_sign(int argc, char **argv);    /* signing.c: sign a cache's entries */
int cli_config(int argc, char **argv);  /* config.c: show and set the settings */

#endif
