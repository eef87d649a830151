/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* poll() of node fds through the fast path (fastpath_poll in fastpath.h):
 * answered from the rings, or waited for on their doorbells, with the slot
 * table of fastpath.c (fastpath_priv.h). */
#include "fastpath_priv.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum poll_kind {
	POLL_OTHER, /* the kernel's (not a node with a fast path, or not now) */
	POLL_READY, /* a frame waits in the ring: POLLIN */
	POLL_BELL,  /* nothing waits, and nothing else would be answered: wait
		     * for the doorbell (a poller of the slot now) */
};

struct poll_ref {
	struct slot *s;
	struct uvcuse_ring *ring;
	int bell, sock;
};

/* How fd, polled for events, is to be answered. */
static enum poll_kind poll_classify(int fd, short events, struct poll_ref *ref)
{
	if (fd < 0 || fd >= FASTPATH_FDS || (events & ~(POLLIN | POLLRDNORM)) || !(events & POLLIN))
		return POLL_OTHER;
	struct slot *s = &fastpath_slots[fd];
	if (!atomic_load_explicit(&s->pid, memory_order_relaxed))
		return POLL_OTHER;
	unsigned idle = 0;
	if (!atomic_compare_exchange_strong(&s->busy, &idle, 1))
		return POLL_OTHER; /* a request in progress: the kernel answers */
	enum poll_kind k = POLL_OTHER;
	if (fastpath_slot_serves(s, fd) && s->ring) {
		struct uvcuse_ring *r = s->ring;
		/* a published entry: the queue streams, without error, and DQBUF
		 * would answer it (the daemon revokes before any of that changes) */
		if (fastpath_ring_ready(r)) {
			k = POLL_READY;
		} else if (s->bell >= 0 && !atomic_load(&s->bell_lost) &&
			   (r->features & UVCUSE_RING_POLL_BELL) &&
			   __atomic_load_n(&r->pollable, __ATOMIC_ACQUIRE)) {
			atomic_fetch_add(&s->pollers, 1);
			*ref = (struct poll_ref){ .s = s, .ring = r, .bell = s->bell, .sock = s->sock };
			k = POLL_BELL;
		}
	}
	atomic_store_explicit(&s->busy, 0, memory_order_release);
	return k;
}

/* A poller of ref's slot leaves; the last one out of a dropped channel
 * frees it (if the slot is free: else its next user does). */
static void poll_leave(const struct poll_ref *ref)
{
	struct slot *s = ref->s;
	if (atomic_fetch_sub(&s->pollers, 1) != 1 || !atomic_load(&s->zombie))
		return;
	unsigned idle = 0;
	if (atomic_compare_exchange_strong(&s->busy, &idle, 1)) {
		fastpath_slot_reap(s);
		atomic_store_explicit(&s->busy, 0, memory_order_release);
	}
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The time left until deadline (-1: none), 0 once it passed. */
static int64_t ns_left(int64_t deadline)
{
	if (deadline < 0)
		return -1;
	int64_t left = deadline - now_ns();
	return left < 0 ? 0 : left;
}

/* One round of fastpath_poll(): how each fd of the set is answered (bit i
 * of ready or bells for fds[i]: POLL_READY, POLL_BELL), and the set the
 * round waits on. */
struct poll_round {
	struct poll_ref ref[FASTPATH_POLL_MAX];
	uint64_t ready, bells;
	struct pollfd w[2 * FASTPATH_POLL_MAX];
	nfds_t nw;
};

/* Classifies every fd of the set: false when none is the fast path's. */
static bool poll_classify_set(const struct pollfd *fds, nfds_t nfds, struct poll_round *pr)
{
	pr->ready = 0;
	pr->bells = 0;
	for (nfds_t i = 0; i < nfds; i++) {
		enum poll_kind k = poll_classify(fds[i].fd, fds[i].events, &pr->ref[i]);
		if (k == POLL_READY)
			pr->ready |= UINT64_C(1) << i;
		else if (k == POLL_BELL)
			pr->bells |= UINT64_C(1) << i;
	}
	return pr->ready || pr->bells;
}

/* The set to wait on: doorbells for the nodes waiting on one (with the
 * channel's socket, whose peer's end wakes us too), the nodes ready or
 * quiet masked (poll skips fd -1). A node waiting on its doorbell counts
 * itself among its ring's sleepers. */
static void poll_arm(const struct pollfd *fds, nfds_t nfds, struct poll_round *pr)
{
	pr->nw = nfds;
	memcpy(pr->w, fds, nfds * sizeof(*fds));
	for (nfds_t i = 0; i < nfds; i++) {
		uint64_t bit = UINT64_C(1) << i;
		if (pr->ready & bit) {
			pr->w[i].fd = -1;
		} else if (pr->bells & bit) {
			/* with a frame already waiting elsewhere nobody waits:
			 * a quiet node (pollable, none ready) answers nothing */
			pr->w[i] = (struct pollfd){ .fd = pr->ready ? -1 : pr->ref[i].bell,
						    .events = POLLIN };
			if (pr->ready)
				continue;
			pr->w[pr->nw++] = (struct pollfd){ .fd = pr->ref[i].sock,
							   .events = POLLRDHUP };
			__atomic_fetch_add(&pr->ref[i].ring->sleepers, 1, __ATOMIC_SEQ_CST);
		}
	}
}

/* Whether a ring waited on got a frame or stopped being quiet since the
 * set was classified; false with a frame ready anyway (nobody waits). */
static bool poll_rings_changed(nfds_t nfds, const struct poll_round *pr)
{
	bool changed = false;
	for (nfds_t i = 0; i < nfds && !pr->ready; i++)
		if ((pr->bells >> i) & 1)
			changed |= fastpath_ring_ready(pr->ref[i].ring) ||
				   !__atomic_load_n(&pr->ref[i].ring->pollable, __ATOMIC_ACQUIRE);
	return changed;
}

/* The answer of a node that waited on its doorbell (waited; rang: the
 * doorbell woke the wait) or, with a frame ready elsewhere, was only looked
 * at: POLLIN when its ring holds a frame now. The node's poller leaves.
 * True when the kernel must answer instead: no frame, no longer quiet. */
static bool poll_answer_bell(struct pollfd *fd, const struct poll_ref *ref, bool waited, bool rang)
{
	struct uvcuse_ring *rg = ref->ring;
	if (waited) {
		__atomic_fetch_sub(&rg->sleepers, 1, __ATOMIC_SEQ_CST);
		/* rung: cleared for the next wait (EAGAIN: another poller of it
		 * cleared it first) */
		uint64_t v;
		if (rang && !atomic_load(&ref->s->bell_lost)) {
			ssize_t got = read(ref->bell, &v, sizeof(v));
			(void)got;
		}
	}
	bool now = fastpath_ring_ready(rg);
	bool to_kernel = !now && !__atomic_load_n(&rg->pollable, __ATOMIC_ACQUIRE);
	fd->revents = now ? (short)(fd->events & (POLLIN | POLLRDNORM)) : 0;
	poll_leave(ref);
	return to_kernel;
}

/* The round's answers in fds[].revents after the wait (r: its result, 0
 * when there was none); returns how many fds have events. *to_kernel: a
 * node waited on is no longer quiet without a frame, or a channel ended:
 * the kernel answers. */
static int poll_answer(struct pollfd *fds, nfds_t nfds, struct poll_round *pr, int r,
		       bool *to_kernel)
{
	int n = 0;
	*to_kernel = false;
	for (nfds_t i = 0; i < nfds; i++) {
		uint64_t bit = UINT64_C(1) << i;
		if (pr->ready & bit)
			fds[i].revents = (short)(fds[i].events & (POLLIN | POLLRDNORM));
		else if (pr->bells & bit)
			*to_kernel |= poll_answer_bell(&fds[i], &pr->ref[i], !pr->ready,
						       r > 0 && (pr->w[i].revents & POLLIN));
		else
			fds[i].revents = r > 0 ? pr->w[i].revents : 0;
		n += fds[i].revents != 0;
	}
	/* the channel's end (the daemon went away): the kernel answers */
	for (nfds_t j = nfds; j < pr->nw && r > 0; j++)
		*to_kernel |= pr->w[j].revents != 0;
	return n;
}

int fastpath_poll(struct pollfd *fds, nfds_t nfds, int64_t *timeout_ns, fastpath_wait_fn wait,
		  void *ctx)
{
	if (atomic_load_explicit(&fastpath_rings_mapped, memory_order_relaxed) <= 0 || !fds ||
	    nfds == 0 || nfds > FASTPATH_POLL_MAX)
		return -2;
	int saved = errno;
	int64_t deadline = *timeout_ns < 0 ? -1 : now_ns() + *timeout_ns;
	for (;;) {
		struct poll_round pr;
		if (!poll_classify_set(fds, nfds, &pr)) {
			errno = saved;
			return -2; /* the kernel, for what is left of the timeout */
		}
		int64_t left = ns_left(deadline);
		poll_arm(fds, nfds, &pr);
		/* armed, then looked again (the daemon stores, then looks at
		 * 'sleepers'): a change in between is never missed */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		bool changed = poll_rings_changed(nfds, &pr);
		/* with a frame ready, the others are only looked at (none: no
		 * system call at all) */
		bool others = false;
		for (nfds_t j = 0; j < pr.nw; j++)
			others |= pr.w[j].fd >= 0;
		int r = 0;
		if (!changed && !(pr.ready && !others))
			r = wait(ctx, pr.w, pr.nw, pr.ready ? 0 : left);
		int err = errno;
		bool to_kernel;
		int n = poll_answer(fds, nfds, &pr, r, &to_kernel);
		if (r < 0) {
			errno = err; /* EINTR... */
			return -1;
		}
		if (deadline >= 0)
			*timeout_ns = ns_left(deadline);
		if (to_kernel && !n) {
			errno = saved;
			return -2;
		}
		if (n || pr.ready || (r == 0 && !changed)) { /* r 0 unchanged: timed out */
			errno = saved;
			return n;
		}
		/* woken for nothing (a revocation, entries another poller took):
		 * wait again */
	}
}
