/* SPDX-License-Identifier: GPL-2.0 */
/* The system and self rows: one per host of the input, in name order. */
#ifndef BPMC_REPORT_HOSTS_H
#define BPMC_REPORT_HOSTS_H

#include "report/report.h"

/* 0 or -ENOMEM. */
int report_hosts__system(struct report *r, const int *ev_map);
int report_hosts__self(struct report *r);

#endif
