/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who a caller is: the process (thread group) of a thread id, and when it
 * started. A process ID alone is reused once its process has gone; with
 * its start time it names one process for as long as the system runs. */
#ifndef UVCUSE_PROCESS_H
#define UVCUSE_PROCESS_H

#include <stdint.h>
#include <sys/types.h>

struct process_id {
	pid_t tgid;     /* the thread group (getpid() of the process) */
	uint64_t start; /* its start time, clock ticks since boot (proc(5) stat 22) */
};

/* The process of thread TID, from /proc. -ESRCH when there is none (gone,
 * or not a valid id), another -errno when /proc cannot be read. */
int process_identify(pid_t tid, struct process_id *out);

/* a and b are the same process */
static inline int process_same(const struct process_id *a, const struct process_id *b)
{
	return a->tgid == b->tgid && a->start == b->start;
}

#endif
