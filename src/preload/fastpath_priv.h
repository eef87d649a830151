/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to the fast path: the slot table that fastpath.c keeps (one
 * channel per node fd and process) and fastpath_poll.c reads. */
#ifndef UVCUSE_FASTPATH_PRIV_H
#define UVCUSE_FASTPATH_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fastpath.h"

struct slot {
	atomic_uint busy;  /* try-lock: one thread's request at a time */
	atomic_uint stale; /* the node fd was closed or replaced meanwhile */
	atomic_uint sock_lost; /* the app closed our socket's fd behind us */
	atomic_int pid;    /* the process whose channel sock is; 0: none */
	int sock;
	uint64_t rdev, ino; /* the node the channel (or refusal) is for */
	uint32_t seq;
	struct uvcuse_ring *ring; /* the daemon's published DQBUF answers, or NULL */
	atomic_bool refused; /* the daemon said no for this node: CUSE until fd closes */
	/* MMAP buffers the app got by DQBUF on this fd (bit = index): their
	 * QBUF may be posted while the daemon's answer for them is valid */
	uint32_t held;
	int bell;              /* the ring's doorbell (eventfd), or -1 */
	atomic_uint bell_lost; /* the app closed the doorbell's fd behind us */
	/* Threads in poll() waiting on this slot's doorbell, ring and socket,
	 * which a drop meanwhile keeps for them (zombie) until the last one
	 * leaves: they are never unmapped or closed under a waiter. */
	atomic_uint pollers;
	atomic_bool zombie;
	struct uvcuse_ring *z_ring;
	int z_sock, z_bell;
};

/* Indexed by fd. */
extern struct slot fastpath_slots[FASTPATH_FDS];
/* Slots with a mapped ring (any process's: a forked child inherits the
 * count): while 0, poll() costs the library nothing. */
extern atomic_int fastpath_rings_mapped;

/* The slot's live channel, without a syscall: this process's, its node fd
 * not closed and its socket not closed behind us since it opened. */
bool fastpath_slot_live(struct slot *s);
/* Live, and fd still the node the channel is for (device and inode, one
 * fstat): a close the library cannot see (fclose of an fdopen'd stream,
 * closefrom, io_uring, a raw clone3 child) may have given the number to
 * another file, a kernel V4L2 node say. When not, the slot is stale. */
bool fastpath_slot_serves(struct slot *s, int fd);
/* A zombie's channel once its last poller left (held by the caller). */
void fastpath_slot_reap(struct slot *s);

#endif
