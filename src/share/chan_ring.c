/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fast-path channel's ring, the daemon's side (chan_ring.h). */
#include "share/chan_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "share/bufshare.h"
#include "core/log.h"

struct chan_ring {
	int memfd;
	int bell;               /* the doorbell eventfd, or -1 */
	struct uvcuse_ring *r;  /* shared with the library: only 'taken' is read back */
	uint32_t gen;           /* the generation published now */
	uint32_t published;     /* entries of gen published */
	uint32_t applied;       /* entries of gen whose take was applied */
	uint32_t consumed;      /* posted QBUFs run */
	uint64_t posts_run;     /* for the counters */
	uint64_t posts_skipped; /* after a refused one, in the same batch */
	bool posts_broken;      /* 'posted' written wrong: no more posts run */
	bool running_posts;     /* inside run_posts (q->qbuf must not nest it) */
	uint32_t qbuf_seq;      /* the seqlock over qbuf[] and qbuf_valid */
	uint32_t qbuf_valid;    /* as stored in the shared qbuf_valid */
	bool pollable;          /* as last stored in the shared 'pollable' */
	uint64_t bells;         /* doorbell rings */
	uint32_t index[UVCUSE_RING_ENTRIES]; /* the buffer of each entry */
	bool broken;            /* the peer broke the protocol */
	pid_t pid;              /* the peer, for the log */
};

struct chan_ring *chan_ring_new(pid_t pid)
{
	struct chan_ring *ring = calloc(1, sizeof(*ring));
	if (!ring)
		return NULL;
	ring->pid = pid;
	ring->bell = -1;
	ring->memfd = memfd_create("uvcuse-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (ring->memfd < 0 || ftruncate(ring->memfd, sizeof(struct uvcuse_ring)) < 0 ||
	    bufshare_seal(ring->memfd) < 0)
		goto fail;
	ring->r = mmap(NULL, sizeof(struct uvcuse_ring), PROT_READ | PROT_WRITE, MAP_SHARED,
		       ring->memfd, 0);
	if (ring->r == MAP_FAILED)
		goto fail;
	ring->r->magic = UVCUSE_MAGIC;
	ring->r->size = sizeof(struct uvcuse_ring);
	/* without a doorbell, polls go through CUSE */
	ring->bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ring->bell >= 0)
		ring->r->features |= UVCUSE_RING_POLL_BELL;
	return ring;
fail:
	if (ring->memfd >= 0)
		close(ring->memfd);
	free(ring);
	return NULL;
}

void chan_ring_free(struct chan_ring *ring)
{
	if (!ring)
		return;
	munmap(ring->r, sizeof(struct uvcuse_ring));
	close(ring->memfd);
	if (ring->bell >= 0)
		close(ring->bell);
	free(ring);
}

int chan_ring_bell(const struct chan_ring *ring)
{
	return ring->bell;
}

/* Wakes the library's pollers, if any wait: after a store they must see
 * (a full fence: their 'sleepers' store, then their loads, against ours). */
static void ring_bell(struct chan_ring *ring)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (ring->bell < 0 || !__atomic_load_n(&ring->r->sleepers, __ATOMIC_RELAXED))
		return;
	uint64_t one = 1;
	/* EAGAIN: the counter is full, i.e. already rung */
	if (write(ring->bell, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_debug("fast path doorbell: %s", strerror(errno));
	ring->bells++;
}

void chan_ring_set_pollable(struct chan_ring *ring, bool pollable)
{
	/* a broken ring is about to close: its pollers must ask the kernel */
	pollable = pollable && !ring->broken;
	if (ring->pollable == pollable)
		return;
	ring->pollable = pollable;
	__atomic_store_n(&ring->r->pollable, pollable ? 1u : 0u, __ATOMIC_RELEASE);
	ring_bell(ring);
}

uint64_t chan_ring_bells(const struct chan_ring *ring)
{
	return ring->bells;
}

int chan_ring_memfd(const struct chan_ring *ring)
{
	return ring->memfd;
}

struct uvcuse_ring *chan_ring_shared(struct chan_ring *ring)
{
	return ring->r;
}

void chan_ring_offer_posted(struct chan_ring *ring, uint32_t keep_flags)
{
	ring->r->qbuf_keep_flags = keep_flags;
	ring->r->features |= UVCUSE_RING_QBUF_POSTED;
}

/* qbuf[] and qbuf_valid change inside the seqlock's odd phase: the
 * library's copy of an entry is good only if the count did not move. */
static void qbuf_write_begin(struct chan_ring *ring)
{
	__atomic_store_n(&ring->r->qbuf_seq, ++ring->qbuf_seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void qbuf_write_end(struct chan_ring *ring)
{
	__atomic_store_n(&ring->r->qbuf_seq, ++ring->qbuf_seq, __ATOMIC_RELEASE);
}

void chan_ring_keep_qbuf(struct chan_ring *ring, const struct chan_ring_queue *q, unsigned index)
{
	struct v4l2_buffer b;
	if (ring->broken || !q->qbuf_answer || index >= UVCUSE_RING_ENTRIES)
		return;
	bool ok = q->qbuf_answer(q->ctx, index, &b) == 0 && b.index == index;
	qbuf_write_begin(ring);
	if (ok) {
		memcpy(&ring->r->qbuf[index], &b, sizeof(b));
		ring->qbuf_valid |= 1u << index;
	} else {
		ring->qbuf_valid &= ~(1u << index); /* its QBUF waits for the daemon */
	}
	__atomic_store_n(&ring->r->qbuf_valid, ring->qbuf_valid, __ATOMIC_RELAXED);
	qbuf_write_end(ring);
}

void chan_ring_forget_qbufs(struct chan_ring *ring, uint32_t mask)
{
	if (!(ring->qbuf_valid & mask))
		return;
	qbuf_write_begin(ring);
	ring->qbuf_valid &= ~mask;
	__atomic_store_n(&ring->r->qbuf_valid, ring->qbuf_valid, __ATOMIC_RELAXED);
	qbuf_write_end(ring);
}

bool chan_ring_broken(const struct chan_ring *ring)
{
	return ring->broken;
}

/* 'taken' as the peer left it, unless it is no take of what was published
 * in this generation: then the ring is broken (logged a few times a second
 * at most: a hostile app can break rings in a loop). */
static bool taken_ok(struct chan_ring *ring, uint64_t t)
{
	static struct log_limit limit;
	if ((uint32_t)(t >> 32) == ring->gen && (uint32_t)t <= ring->published &&
	    (uint32_t)t >= ring->applied)
		return true;
	if (log_allowed(&limit, 5))
		log_warn("fast path ring of pid %d: 'taken' written wrong: closing the channel",
			 (int)ring->pid);
	ring->broken = true;
	return false;
}

/* Dequeues the buffers of the entries taken, up to 'taken' (of gen). */
static unsigned apply_to(struct chan_ring *ring, const struct chan_ring_queue *q, uint32_t taken)
{
	unsigned n = 0;
	while (!ring->broken && ring->applied < taken) {
		struct v4l2_buffer b;
		int res = q->dequeue(q->ctx, &b);
		uint32_t want = ring->index[ring->applied % UVCUSE_RING_ENTRIES];
		if (res < 0 || b.index != want) {
			/* cannot happen while every change of the queue revokes first */
			log_error("fast path ring out of step (%s, buffer %u for %u): closing it",
				  res < 0 ? strerror(-res) : "another buffer", b.index, want);
			ring->broken = true;
			break;
		}
		ring->applied++;
		n++;
	}
	return n;
}

/* Runs the QBUFs the library posted since the last call, up to posted,
 * in order. A refused one ends the batch: the rest are consumed unrun.
 * The library posts only buffers it holds, so what refuses one (an
 * unplug, a stream error) refuses the rest too; and a peer storing posts
 * of garbage (a store each, a QBUF of the daemon's each) costs the daemon
 * one QBUF per ring and apply, not a ring's worth (issue 29, finding 5). */
static void run_posts(struct chan_ring *ring, const struct chan_ring_queue *q, uint32_t posted)
{
	static struct log_limit limit;
	if (posted == ring->consumed || !q->qbuf || ring->posts_broken || ring->running_posts)
		return;
	if (posted - ring->consumed > UVCUSE_RING_ENTRIES) {
		if (log_allowed(&limit, 5))
			log_warn("fast path ring of pid %d: 'posted' written wrong: closing the channel",
				 (int)ring->pid);
		ring->broken = ring->posts_broken = true;
		return;
	}
	ring->running_posts = true;
	while ((int32_t)(posted - ring->consumed) > 0) {
		struct uvcuse_ring_post p;
		memcpy(&p, &ring->r->post[ring->consumed % UVCUSE_RING_ENTRIES], sizeof(p));
		ring->consumed++;
		/* read before the slot is given back: release */
		__atomic_store_n(&ring->r->consumed, ring->consumed, __ATOMIC_RELEASE);
		ring->posts_run++;
		if (q->qbuf(q->ctx, p.index, p.flags) < 0) { /* checked as any QBUF */
			ring->posts_skipped += posted - ring->consumed;
			ring->consumed = posted;
			__atomic_store_n(&ring->r->consumed, ring->consumed, __ATOMIC_RELEASE);
		}
	}
	ring->running_posts = false;
}

unsigned chan_ring_apply(struct chan_ring *ring, const struct chan_ring_queue *q)
{
	/* 'posted' before 'taken': the library takes a buffer before it posts
	 * its QBUF, so every post seen here has its take seen too, and the
	 * takes are applied first */
	uint32_t posted = __atomic_load_n(&ring->r->posted, __ATOMIC_ACQUIRE);
	unsigned n = 0;
	if (!ring->broken) {
		uint64_t t = __atomic_load_n(&ring->r->taken, __ATOMIC_ACQUIRE);
		n = taken_ok(ring, t) ? apply_to(ring, q, (uint32_t)t) : 0;
	}
	/* even on a ring that broke: the library answered these QBUFs 0
	 * already, and the queue checks each as any QBUF */
	run_posts(ring, q, posted);
	return n;
}

uint64_t chan_ring_posts_run(const struct chan_ring *ring)
{
	return ring->posts_run;
}

uint64_t chan_ring_posts_skipped(const struct chan_ring *ring)
{
	return ring->posts_skipped;
}

unsigned chan_ring_revoke(struct chan_ring *ring, const struct chan_ring_queue *q)
{
	unsigned n = chan_ring_apply(ring, q);
	/* what a QBUF answers may change too: the library asks the daemon */
	chan_ring_forget_qbufs(ring, ~0u);
	if (ring->broken || ring->published == ring->applied) /* nothing left to take */
		return n;
	uint64_t t = __atomic_load_n(&ring->r->taken, __ATOMIC_ACQUIRE);
	uint64_t next = (uint64_t)(ring->gen + 1) << 32;
	do {
		if (!taken_ok(ring, t))
			return 0;
	} while (!__atomic_compare_exchange_n(&ring->r->taken, &t, next, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	/* t is the final count of the old generation: no take can follow */
	n += apply_to(ring, q, (uint32_t)t);
	ring->gen++;
	ring->published = ring->applied = 0;
	__atomic_store_n(&ring->r->published, next, __ATOMIC_RELEASE);
	return n;
}

unsigned chan_ring_publish(struct chan_ring *ring, const struct chan_ring_queue *q)
{
	unsigned n = chan_ring_apply(ring, q);
	if (ring->broken)
		return n;
	/* a queue in error, stopped or taken over answers DQBUF otherwise */
	struct v4l2_buffer b;
	int err = q->peek(q->ctx, 0, &b);
	if (err && err != -EAGAIN)
		return n + chan_ring_revoke(ring, q);
	bool more = false;
	while (ring->published - ring->applied < UVCUSE_RING_ENTRIES &&
	       q->peek(q->ctx, ring->published - ring->applied, &b) == 0) {
		unsigned k = ring->published % UVCUSE_RING_ENTRIES;
		chan_ring_keep_qbuf(ring, q, b.index);
		memcpy(&ring->r->entry[k], &b, sizeof(b));
		ring->index[k] = b.index;
		ring->published++;
		more = true;
	}
	/* the entries first, then the count that shows them (release) */
	if (more) {
		__atomic_store_n(&ring->r->published, ((uint64_t)ring->gen << 32) | ring->published,
				 __ATOMIC_RELEASE);
		ring_bell(ring);
	}
	return n;
}
