/* expand_command.h — `a2atune expand`: value lists and sweep files as JSON. */
#ifndef A2A_EXPAND_COMMAND_H
#define A2A_EXPAND_COMMAND_H

#include "cli.h"

/* `a2atune expand` (argv as main's): every value list given expanded with the names given,
 * or the sections of a sweep file with their process counts, as one JSON document on
 * stdout (a2atune expand --help). Starts no MPI. Returns EXIT_OK, or EXIT_BAD_INPUT when
 * an argument, a list or the file was refused (the JSON still printed but for a bad
 * argument). */
int command_expand(int argc, char **argv);

#endif
