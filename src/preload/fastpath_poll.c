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
	if (fastpath_slot_live(s) && s->ring) {
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

int fastpath_poll(struct pollfd *fds, nfds_t nfds, int64_t *timeout_ns, fastpath_wait_fn wait,
		  void *ctx)
{
	if (atomic_load_explicit(&fastpath_rings_mapped, memory_order_relaxed) <= 0 || !fds ||
	    nfds == 0 || nfds > FASTPATH_POLL_MAX)
		return -2;
	int saved = errno;
	int64_t deadline = *timeout_ns < 0 ? -1 : now_ns() + *timeout_ns;
	for (;;) {
		struct poll_ref ref[FASTPATH_POLL_MAX];
		uint64_t ready = 0, bells = 0;
		for (nfds_t i = 0; i < nfds; i++) {
			enum poll_kind k = poll_classify(fds[i].fd, fds[i].events, &ref[i]);
			if (k == POLL_READY)
				ready |= UINT64_C(1) << i;
			else if (k == POLL_BELL)
				bells |= UINT64_C(1) << i;
		}
		if (!ready && !bells) {
			errno = saved;
			return -2; /* the kernel, for what is left of the timeout */
		}
		int64_t left = -1;
		if (deadline >= 0) {
			left = deadline - now_ns();
			if (left < 0)
				left = 0;
		}
		/* the set to wait on: doorbells for the nodes waiting on one
		 * (with the channel's socket, whose peer's end wakes us too),
		 * the nodes ready or quiet masked (poll skips fd -1) */
		struct pollfd w[2 * FASTPATH_POLL_MAX];
		nfds_t nw = nfds;
		memcpy(w, fds, nfds * sizeof(*fds));
		for (nfds_t i = 0; i < nfds; i++) {
			uint64_t bit = UINT64_C(1) << i;
			if (ready & bit) {
				w[i].fd = -1;
			} else if (bells & bit) {
				/* with a frame already waiting elsewhere nobody waits:
				 * a quiet node (pollable, none ready) answers nothing */
				w[i] = (struct pollfd){ .fd = ready ? -1 : ref[i].bell, .events = POLLIN };
				if (!ready)
					w[nw++] = (struct pollfd){ .fd = ref[i].sock, .events = POLLRDHUP };
				else
					continue;
				__atomic_fetch_add(&ref[i].ring->sleepers, 1, __ATOMIC_SEQ_CST);
			}
		}
		/* armed, then looked again (the daemon stores, then looks at
		 * 'sleepers'): a change in between is never missed */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		bool changed = false;
		for (nfds_t i = 0; i < nfds && !ready; i++)
			if ((bells >> i) & 1)
				changed |= fastpath_ring_ready(ref[i].ring) ||
					   !__atomic_load_n(&ref[i].ring->pollable, __ATOMIC_ACQUIRE);
		/* with a frame ready, the others are only looked at (none: no
		 * system call at all) */
		bool others = false;
		for (nfds_t j = 0; j < nw; j++)
			others |= w[j].fd >= 0;
		int r = changed || (ready && !others) ? 0 : wait(ctx, w, nw, ready ? 0 : left);
		int err = errno;
		bool to_kernel = false;
		int n = 0;
		for (nfds_t i = 0; i < nfds; i++) {
			uint64_t bit = UINT64_C(1) << i;
			if (ready & bit) {
				fds[i].revents = (short)(fds[i].events & (POLLIN | POLLRDNORM));
			} else if (bells & bit) {
				struct uvcuse_ring *rg = ref[i].ring;
				if (!ready) {
					__atomic_fetch_sub(&rg->sleepers, 1, __ATOMIC_SEQ_CST);
					/* rung: cleared for the next wait (EAGAIN: another
					 * poller of it cleared it first) */
					uint64_t v;
					if (r > 0 && (w[i].revents & POLLIN) && !atomic_load(&ref[i].s->bell_lost)) {
						ssize_t got = read(ref[i].bell, &v, sizeof(v));
						(void)got;
					}
				}
				bool now = fastpath_ring_ready(rg);
				if (!now && !__atomic_load_n(&rg->pollable, __ATOMIC_ACQUIRE))
					to_kernel = true;
				fds[i].revents = now ? (short)(fds[i].events & (POLLIN | POLLRDNORM)) : 0;
				poll_leave(&ref[i]);
			} else {
				fds[i].revents = r > 0 ? w[i].revents : 0;
			}
			n += fds[i].revents != 0;
		}
		/* the channel's end (the daemon went away): the kernel answers */
		for (nfds_t j = nfds; j < nw && r > 0; j++)
			to_kernel |= w[j].revents != 0;
		if (r < 0) {
			errno = err; /* EINTR... */
			return -1;
		}
		if (deadline >= 0) {
			*timeout_ns = deadline - now_ns();
			if (*timeout_ns < 0)
				*timeout_ns = 0;
		}
		if (to_kernel && !n) {
			errno = saved;
			return -2;
		}
		if (n || ready || (r == 0 && !changed)) { /* r 0 unchanged: timed out */
			errno = saved;
			return n;
		}
		/* woken for nothing (a revocation, entries another poller took):
		 * wait again */
	}
}
