/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fast-path channel's ring, the daemon's side (protocol: struct
 * uvcuse_ring in include/uvcuse/uvcuse.h): the DQBUF answers of a file's
 * done buffers published in memory the library maps, the library's takes
 * applied to the queue, the entries not taken revoked. Pure but for the
 * memfd it lives in: the queue is reached through two callbacks, so the
 * unit suite drives it with a fake queue and a hostile peer.
 *
 * The shared memory is the peer's to scribble on: only 'taken' is read
 * back, and only a take of what was published in the current generation
 * counts; anything else breaks the ring (chan_ring_broken), and its owner
 * closes the channel. */
#ifndef UVCUSE_CHAN_RING_H
#define UVCUSE_CHAN_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "uvcuse/uvcuse.h"

struct chan_ring;

struct chan_ring_queue {
	/* What DQBUF would answer for the i-th done buffer, dequeuing
	 * nothing: 0, -EAGAIN (none), or DQBUF's error. */
	int (*peek)(void *ctx, unsigned i, struct v4l2_buffer *b);
	/* DQBUF (non-blocking): 0 with b filled, or -errno. */
	int (*dequeue)(void *ctx, struct v4l2_buffer *b);
	/* What QBUF of buffer index will answer the app that holds it, with
	 * no app flags: 0 or -errno (then no answer is kept for it). NULL: a
	 * ring without QBUF answers. */
	int (*qbuf_answer)(void *ctx, unsigned index, struct v4l2_buffer *b);
	/* Runs a QBUF the library posted (answered already): 0 or -errno,
	 * which only the log hears of. */
	int (*qbuf)(void *ctx, unsigned index, uint32_t flags);
	void *ctx;
};

/* A ring in a new memfd (sealed against resizing). pid names its peer in
 * log lines. NULL when memory is short: the channel then goes without. */
struct chan_ring *chan_ring_new(pid_t pid);
void chan_ring_free(struct chan_ring *ring);
/* Offers QBUF without waiting (UVCUSE_RING_QBUF_POSTED): keep_flags are
 * the app's flags a QBUF keeps. Before the library maps the ring. */
void chan_ring_offer_posted(struct chan_ring *ring, uint32_t keep_flags);
/* Keeps q->qbuf_answer's answer for buffer index (the daemon answers its
 * DQBUF outside the ring): call before that answer is sent. */
void chan_ring_keep_qbuf(struct chan_ring *ring, const struct chan_ring_queue *q, unsigned index);
/* The kept answers of the buffers in mask are no longer to be used (a
 * QBUF of them went another way, or anything may have changed them). */
void chan_ring_forget_qbufs(struct chan_ring *ring, uint32_t mask);
/* The doorbell eventfd to send with the memfd (still the ring's), or -1:
 * then the ring does not offer UVCUSE_RING_POLL_BELL. */
int chan_ring_bell(const struct chan_ring *ring);
/* Stores whether a poll of the file for POLLIN answers exactly "an entry
 * can be taken" (see uvcuse.h), ringing the doorbell when it changes. */
void chan_ring_set_pollable(struct chan_ring *ring, bool pollable);
/* Doorbell rings so far (for the tests and counters). */
uint64_t chan_ring_bells(const struct chan_ring *ring);
/* The memfd to send to the library (still the ring's). */
int chan_ring_memfd(const struct chan_ring *ring);
/* The shared memory, as the library sees it (for tests). */
struct uvcuse_ring *chan_ring_shared(struct chan_ring *ring);
/* The peer broke the protocol: nothing more is published or applied. */
bool chan_ring_broken(const struct chan_ring *ring);
/* Posted QBUFs run so far, and those consumed unrun after a refused one. */
uint64_t chan_ring_posts_run(const struct chan_ring *ring);
uint64_t chan_ring_posts_skipped(const struct chan_ring *ring);

/* Dequeues (q->dequeue) the buffers the library took since the last call,
 * checking each is the one published, then runs (q->qbuf) the QBUFs it
 * posted since, in order. Returns how many takes it applied. */
unsigned chan_ring_apply(struct chan_ring *ring, const struct chan_ring_queue *q);
/* Applies the takes and posts, forgets every kept QBUF answer, then makes
 * the entries not taken untakable (a new
 * generation, by compare-and-swap against the library's takes). Returns
 * the takes applied. */
unsigned chan_ring_revoke(struct chan_ring *ring, const struct chan_ring_queue *q);
/* Applies the takes and posts, then publishes the done buffers not yet published
 * (q->peek), in order, each with its QBUF answer (q->qbuf_answer), and
 * rings the doorbell if it published any; a queue whose DQBUF would now answer an error
 * (stopped, in error, owned by another file) is revoked instead. Returns
 * the takes applied. */
unsigned chan_ring_publish(struct chan_ring *ring, const struct chan_ring_queue *q);

#endif
