/* SPDX-License-Identifier: GPL-2.0 */
/* The commands of the bpmc binary; main.c holds their table. */
#ifndef BPMC_COMMANDS_H
#define BPMC_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif
