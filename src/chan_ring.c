/* A fast-path channel's ring, the daemon's side (chan_ring.h). */
#include "chan_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bufshare.h"
#include "log.h"

struct chan_ring {
	int memfd;
	struct uvcuse_ring *r;  /* shared with the library: only 'taken' is read back */
	uint32_t gen;           /* the generation published now */
	uint32_t published;     /* entries of gen published */
	uint32_t applied;       /* entries of gen whose take was applied */
	uint32_t consumed;      /* posted QBUFs run */
	uint64_t posts_run;     /* for the counters */
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
	free(ring);
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

void chan_ring_keep_qbuf(struct chan_ring *ring, const struct chan_ring_queue *q, unsigned index)
{
	struct v4l2_buffer b;
	if (ring->broken || !q->qbuf_answer || index >= UVCUSE_RING_ENTRIES)
		return;
	/* none kept: the library's check of the index and QUEUED fails, and
	 * its QBUF waits for the daemon's answer */
	if (q->qbuf_answer(q->ctx, index, &b) < 0 || b.index != index)
		memset(&b, 0, sizeof(b));
	memcpy(&ring->r->qbuf[index], &b, sizeof(b));
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
 * in order. */
static void run_posts(struct chan_ring *ring, const struct chan_ring_queue *q, uint32_t posted)
{
	static struct log_limit limit;
	if (posted == ring->consumed || !q->qbuf)
		return;
	if (posted - ring->consumed > UVCUSE_RING_ENTRIES) {
		if (log_allowed(&limit, 5))
			log_warn("fast path ring of pid %d: 'posted' written wrong: closing the channel",
				 (int)ring->pid);
		ring->broken = true;
		return;
	}
	while (ring->consumed != posted) {
		struct uvcuse_ring_post p;
		memcpy(&p, &ring->r->post[ring->consumed % UVCUSE_RING_ENTRIES], sizeof(p));
		ring->consumed++;
		/* read before the slot is given back: release */
		__atomic_store_n(&ring->r->consumed, ring->consumed, __ATOMIC_RELEASE);
		q->qbuf(q->ctx, p.index, p.flags); /* the queue checks it as any QBUF */
		ring->posts_run++;
	}
}

unsigned chan_ring_apply(struct chan_ring *ring, const struct chan_ring_queue *q)
{
	if (ring->broken)
		return 0;
	/* 'posted' before 'taken': the library takes a buffer before it posts
	 * its QBUF, so every post seen here has its take seen too, and the
	 * takes are applied first */
	uint32_t posted = __atomic_load_n(&ring->r->posted, __ATOMIC_ACQUIRE);
	uint64_t t = __atomic_load_n(&ring->r->taken, __ATOMIC_ACQUIRE);
	unsigned n = taken_ok(ring, t) ? apply_to(ring, q, (uint32_t)t) : 0;
	if (!ring->broken)
		run_posts(ring, q, posted);
	return n;
}

uint64_t chan_ring_posts_run(const struct chan_ring *ring)
{
	return ring->posts_run;
}

unsigned chan_ring_revoke(struct chan_ring *ring, const struct chan_ring_queue *q)
{
	if (ring->broken)
		return 0;
	unsigned n = chan_ring_apply(ring, q);
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
	if (more)
		__atomic_store_n(&ring->r->published, ((uint64_t)ring->gen << 32) | ring->published,
				 __ATOMIC_RELEASE);
	return n;
}
