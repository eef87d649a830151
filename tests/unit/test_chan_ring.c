/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fast path's ring, the daemon's side (src/share/chan_ring.c) against a fake
 * queue, with the library's take (src/preload/fastpath.c) as the peer:
 * entries published in order and taken once, takes applied to the queue
 * (the buffer checked), revocation against takes, queue errors, QBUFs the
 * library posts (run in order, after their takes), and a peer scribbling
 * on the shared memory, which must never make the daemon
 * dequeue what it did not publish. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "share/chan_ring.h"
#include "fastpath.h"
#include "core/log.h"
#include "unit_run.h"

/* The ring is shared by the daemon and the preload library, built 64- or
 * 32-bit: its two 64-bit atomics sit where 64-bit builds put them, 8-byte
 * aligned (i386 aligns a lone uint64_t to 4, and clang then warns of a
 * misaligned atomic). */
_Static_assert(offsetof(struct uvcuse_ring, taken) == 8, "ring: taken moved");
_Static_assert(offsetof(struct uvcuse_ring, published) == 16, "ring: published moved");
_Static_assert(_Alignof(struct uvcuse_ring) >= 8, "ring: atomics not 8-byte aligned");
#include "wire_layout.h" /* the layout a 32-bit library shares */

/* A queue of done buffers: done[head..n) in order. */
struct fake_queue {
	unsigned done[4096], head, n;
	int error;          /* peek and dequeue answer it when set */
	bool swap_next;     /* dequeue answers the second buffer (out of step) */
	unsigned dequeued;
	/* posted QBUFs run: index, flags, and how many dequeues came before */
	unsigned qbuf_index[4096], qbuf_flags[4096], qbuf_after[4096], n_qbuf;
	bool flags_are_sequence; /* the race test posts each frame's sequence */
	bool refuse_none;        /* buffer 30 is no different (the race test) */
	bool qbuf_before_take;   /* a posted QBUF ran before its take was applied */
	void (*on_dequeue)(void); /* the peer acting while the daemon dequeues */
};

static int fake_peek(void *ctx, unsigned i, struct v4l2_buffer *b)
{
	struct fake_queue *f = ctx;
	if (f->error)
		return f->error;
	if (f->head + i >= f->n)
		return -EAGAIN;
	memset(b, 0, sizeof(*b));
	b->index = f->done[f->head + i] % 32;
	b->sequence = f->done[f->head + i];
	b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b->memory = V4L2_MEMORY_MMAP;
	return 0;
}

static int fake_dequeue(void *ctx, struct v4l2_buffer *b)
{
	struct fake_queue *f = ctx;
	if (f->error)
		return f->error;
	if (f->head >= f->n)
		return -EAGAIN;
	if (f->swap_next && f->head + 1 < f->n) {
		unsigned t = f->done[f->head];
		f->done[f->head] = f->done[f->head + 1];
		f->done[f->head + 1] = t;
	}
	fake_peek(ctx, 0, b);
	f->head++;
	f->dequeued++;
	if (f->on_dequeue) {
		void (*act)(void) = f->on_dequeue;
		f->on_dequeue = NULL;
		act();
	}
	return 0;
}

/* QBUF's answer for buffer index: marked with the index, or an error for
 * buffer 31 (then nothing is kept for it). */
static int fake_qbuf_answer(void *ctx, unsigned index, struct v4l2_buffer *b)
{
	(void)ctx;
	if (index == 31)
		return -EINVAL;
	memset(b, 0, sizeof(*b));
	b->index = index;
	b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b->memory = V4L2_MEMORY_MMAP;
	b->flags = V4L2_BUF_FLAG_QUEUED;
	b->m.offset = 4096 * index;
	return 0;
}

/* A posted QBUF: buffer 30 is refused (a queue's own check). */
static int fake_qbuf(void *ctx, unsigned index, uint32_t flags)
{
	struct fake_queue *f = ctx;
	if (f->flags_are_sequence && flags >= f->head)
		f->qbuf_before_take = true; /* its frame was not dequeued yet */
	if (f->n_qbuf < 4096) {
		f->qbuf_index[f->n_qbuf] = index;
		f->qbuf_flags[f->n_qbuf] = flags;
		f->qbuf_after[f->n_qbuf] = f->dequeued;
		f->n_qbuf++;
	}
	return index == 30 && !f->refuse_none ? -EINVAL : 0;
}

static struct fake_queue fq;
static struct chan_ring_queue q = { fake_peek, fake_dequeue, fake_qbuf_answer, fake_qbuf, &fq };
static struct chan_ring *ring;
static struct uvcuse_ring *shared;

static void setup(void)
{
	log_set_level(LOG_LEVEL_ERROR);
	memset(&fq, 0, sizeof(fq));
	ring = chan_ring_new(1);
	ck_assert_ptr_nonnull(ring);
	shared = chan_ring_shared(ring);
	ck_assert_uint_eq(shared->magic, UVCUSE_MAGIC);
	ck_assert_uint_eq(shared->size, sizeof(*shared));
}

static void teardown(void)
{
	chan_ring_free(ring);
}

static void frames(unsigned count)
{
	for (unsigned i = 0; i < count; i++, fq.n++)
		fq.done[fq.n] = fq.n;
}

static bool take(struct v4l2_buffer *b)
{
	memset(b, 0, sizeof(*b));
	b->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b->memory = V4L2_MEMORY_MMAP;
	return fastpath_ring_take(shared, b);
}

START_TEST(published_in_order_taken_once_applied)
{
	frames(3);
	ck_assert_uint_eq(chan_ring_publish(ring, &q), 0);
	ck_assert_uint_eq(fq.dequeued, 0); /* publishing dequeues nothing */
	struct v4l2_buffer b;
	ck_assert(take(&b));
	ck_assert_uint_eq(b.sequence, 0);
	ck_assert(take(&b));
	ck_assert_uint_eq(b.sequence, 1);
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 2);
	ck_assert_uint_eq(fq.dequeued, 2);
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 0); /* once */
	frames(2);
	chan_ring_publish(ring, &q);
	for (unsigned s = 2; s < 5; s++) {
		ck_assert(take(&b));
		ck_assert_uint_eq(b.sequence, s);
	}
	ck_assert(!take(&b));
	ck_assert_uint_eq(chan_ring_publish(ring, &q), 3);
	ck_assert_uint_eq(fq.dequeued, 5);
	ck_assert(!chan_ring_broken(ring));
}
END_TEST

/* Each published entry's buffer has its QBUF answer kept (valid bit set)
 * before the entry can be taken; an answer the queue cannot give keeps
 * nothing (its bit cleared: the library waits for the daemon); offering
 * sets the feature; a revocation, or forgetting, clears the bits, each
 * change inside the seqlock's odd phase. */
START_TEST(qbuf_answers_kept_with_entries)
{
	ck_assert_uint_eq(shared->features, UVCUSE_RING_POLL_BELL);
	chan_ring_offer_posted(ring, 0xf0000000);
	ck_assert_uint_eq(shared->features, UVCUSE_RING_POLL_BELL | UVCUSE_RING_QBUF_POSTED);
	ck_assert_uint_eq(shared->qbuf_keep_flags, 0xf0000000);
	frames(3);
	chan_ring_publish(ring, &q);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(shared->qbuf[i].index, i);
		ck_assert_uint_eq(shared->qbuf[i].m.offset, 4096 * i);
		ck_assert_uint_eq(shared->qbuf[i].flags, V4L2_BUF_FLAG_QUEUED);
	}
	ck_assert_uint_eq(shared->qbuf_valid, 7); /* not published: nothing */
	ck_assert_uint_eq(shared->qbuf_seq % 2, 0);
	uint32_t seq = shared->qbuf_seq;
	chan_ring_keep_qbuf(ring, &q, 31); /* the queue has no answer for it */
	ck_assert_uint_eq(shared->qbuf_valid, 7);
	chan_ring_keep_qbuf(ring, &q, 7);
	ck_assert_uint_eq(shared->qbuf[7].m.offset, 4096 * 7);
	ck_assert_uint_eq(shared->qbuf_valid, 7 | 1u << 7);
	ck_assert_uint_gt(shared->qbuf_seq, seq);
	ck_assert_uint_eq(shared->qbuf_seq % 2, 0);
	chan_ring_keep_qbuf(ring, &q, 32); /* no such slot: nothing written */
	chan_ring_forget_qbufs(ring, 1u << 7);
	ck_assert_uint_eq(shared->qbuf_valid, 7);
	/* the library answers from it */
	struct v4l2_buffer in = { .index = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				  .memory = V4L2_MEMORY_MMAP, .flags = 0x30000001 };
	struct v4l2_buffer out;
	ck_assert(fastpath_posted_answer(shared, &in, &out));
	ck_assert_uint_eq(out.flags, V4L2_BUF_FLAG_QUEUED | 0x30000000);
	ck_assert_uint_eq(out.m.offset, 4096);
	chan_ring_revoke(ring, &q); /* anything may change: all forgotten */
	ck_assert_uint_eq(shared->qbuf_valid, 0);
	ck_assert(!fastpath_posted_answer(shared, &in, &out));
}
END_TEST

/* Entries not taken at a revocation stay done in the queue and can no
 * longer be taken; the next generation publishes them again. */

static bool post(unsigned index, uint32_t flags)
{
	struct v4l2_buffer b = { .index = index, .flags = flags };
	return fastpath_ring_post(shared, &b);
}

/* QBUFs the library posts run in order, once, each after the takes the
 * library made before it (a posted buffer was taken first). */
START_TEST(posts_run_in_order_after_takes)
{
	frames(3);
	chan_ring_publish(ring, &q);
	struct v4l2_buffer b0, b1;
	ck_assert(take(&b0));
	ck_assert(take(&b1));
	ck_assert(post(b1.index, 0x11));
	ck_assert(post(b0.index, 0x22));
	ck_assert_uint_eq(fq.n_qbuf, 0); /* nothing runs until the daemon looks */
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 2);
	ck_assert_uint_eq(fq.n_qbuf, 2);
	ck_assert_uint_eq(fq.qbuf_index[0], b1.index);
	ck_assert_uint_eq(fq.qbuf_flags[0], 0x11);
	ck_assert_uint_eq(fq.qbuf_index[1], b0.index);
	ck_assert_uint_eq(fq.qbuf_after[0], 2); /* both takes applied first */
	ck_assert_uint_eq(shared->consumed, 2);
	ck_assert_uint_eq(chan_ring_posts_run(ring), 2);
	chan_ring_apply(ring, &q);
	chan_ring_revoke(ring, &q);
	chan_ring_publish(ring, &q);
	ck_assert_uint_eq(fq.n_qbuf, 2); /* once */
	/* a QBUF the queue refuses is its business: the ring goes on (the
	 * rest of its batch is skipped: refused_post_ends_its_batch) */
	ck_assert(post(30, 0));
	chan_ring_apply(ring, &q);
	ck_assert(post(1, 0));
	chan_ring_apply(ring, &q);
	ck_assert_uint_eq(fq.n_qbuf, 4);
	ck_assert(!chan_ring_broken(ring));
}
END_TEST

/* The library takes a frame and posts its QBUF while the daemon is in the
 * middle of applying earlier takes: that post must wait for the next
 * apply, which applies its take first. */
static void take_and_post(void)
{
	struct v4l2_buffer b;
	ck_assert(take(&b));
	b.flags = b.sequence;
	ck_assert(fastpath_ring_post(shared, &b));
}

START_TEST(post_made_during_apply_waits_for_its_take)
{
	fq.flags_are_sequence = true;
	frames(3);
	chan_ring_publish(ring, &q);
	struct v4l2_buffer b;
	ck_assert(take(&b));
	fq.on_dequeue = take_and_post; /* frame 1, while frame 0 is dequeued */
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 1);
	ck_assert(!fq.qbuf_before_take);
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 1);
	ck_assert_uint_eq(fq.n_qbuf, 1);
	ck_assert_uint_eq(fq.qbuf_flags[0], 1);
	ck_assert(!fq.qbuf_before_take);
}
END_TEST

/* The doorbell rings when entries are published or 'pollable' changes,
 * and only while the library has sleepers; the sleepers' count is the
 * peer's to scribble, which costs at most a ring per change. */
static bool bell_rang(void)
{
	uint64_t v;
	return read(chan_ring_bell(ring), &v, sizeof(v)) == sizeof(v);
}

START_TEST(doorbell_rings_for_sleepers)
{
	ck_assert_int_ge(chan_ring_bell(ring), 0);
	frames(1);
	chan_ring_publish(ring, &q);
	ck_assert(!bell_rang()); /* nobody sleeps */
	shared->sleepers = 1;
	frames(1);
	chan_ring_publish(ring, &q);
	ck_assert(bell_rang());
	chan_ring_publish(ring, &q); /* nothing new */
	ck_assert(!bell_rang());
	chan_ring_set_pollable(ring, true);
	ck_assert_uint_eq(shared->pollable, 1);
	ck_assert(bell_rang());
	chan_ring_set_pollable(ring, true); /* no change */
	ck_assert(!bell_rang());
	shared->sleepers = 0xffffffff;
	chan_ring_set_pollable(ring, false);
	ck_assert_uint_eq(shared->pollable, 0);
	ck_assert(bell_rang());
	ck_assert_uint_eq(chan_ring_bells(ring), 3);
	/* a broken ring is never pollable: its pollers go to the kernel */
	chan_ring_set_pollable(ring, true);
	ck_assert(bell_rang());
	shared->taken = 77;
	chan_ring_apply(ring, &q);
	ck_assert(chan_ring_broken(ring));
	chan_ring_set_pollable(ring, true);
	ck_assert_uint_eq(shared->pollable, 0);
	ck_assert(bell_rang());
}
END_TEST

/* A ring the peer broke still runs the QBUFs it posted before (the app
 * was told they succeeded), then nothing more. */
START_TEST(posts_run_on_a_ring_that_broke)
{
	frames(2);
	chan_ring_publish(ring, &q);
	ck_assert(post(1, 0x5));
	shared->taken = 40; /* beyond what was published */
	chan_ring_apply(ring, &q);
	ck_assert(chan_ring_broken(ring));
	ck_assert_uint_eq(fq.n_qbuf, 1);
	ck_assert_uint_eq(fq.qbuf_flags[0], 0x5);
	ck_assert(post(2, 0x6)); /* posted after: also run, as the channel closes */
	chan_ring_revoke(ring, &q);
	ck_assert_uint_eq(fq.n_qbuf, 2);
	ck_assert_uint_eq(fq.dequeued, 0);
}
END_TEST

/* The library posts at most a ring's worth the daemon has not run. */
START_TEST(posts_wait_for_room)
{
	for (unsigned i = 0; i < UVCUSE_RING_ENTRIES; i++)
		ck_assert(post(i % 30, i)); /* none the queue refuses */
	ck_assert(!post(0, 0));
	chan_ring_apply(ring, &q);
	ck_assert_uint_eq(fq.n_qbuf, UVCUSE_RING_ENTRIES);
	for (unsigned i = 0; i < UVCUSE_RING_ENTRIES; i++)
		ck_assert_uint_eq(fq.qbuf_flags[i], i);
	ck_assert(post(5, 5));
	chan_ring_apply(ring, &q);
	ck_assert_uint_eq(fq.n_qbuf, UVCUSE_RING_ENTRIES + 1);
}
END_TEST

/* A peer claiming more posts than fit breaks the ring, running none;
 * garbage in the post entries goes to the queue's own checks. */
START_TEST(scribbled_posts)
{
	memset(shared->post, 0xa5, sizeof(shared->post));
	__atomic_store_n(&shared->posted, 3, __ATOMIC_RELEASE);
	chan_ring_apply(ring, &q);
	ck_assert_uint_eq(fq.n_qbuf, 3);
	ck_assert_uint_eq(fq.qbuf_index[0], 0xa5a5a5a5);
	ck_assert(!chan_ring_broken(ring));
	__atomic_store_n(&shared->posted, 3 + UVCUSE_RING_ENTRIES + 1, __ATOMIC_RELEASE);
	chan_ring_apply(ring, &q);
	ck_assert(chan_ring_broken(ring));
	ck_assert_uint_eq(fq.n_qbuf, 3);
}
END_TEST

/* Issue 29, finding 5: a peer that keeps storing a ring's worth of posts
 * the queue refuses costs the daemon one QBUF per apply, not 32: a refused
 * post ends its batch. Posts after the batch run again. */
START_TEST(refused_post_ends_its_batch)
{
	for (unsigned i = 0; i < UVCUSE_RING_ENTRIES; i++)
		shared->post[i].index = 30; /* refused by the fake queue */
	uint32_t posted = 0;
	for (unsigned apply = 1; apply <= 10; apply++) {
		posted += UVCUSE_RING_ENTRIES;
		__atomic_store_n(&shared->posted, posted, __ATOMIC_RELEASE);
		chan_ring_apply(ring, &q);
		ck_assert_uint_eq(fq.n_qbuf, apply);
		ck_assert_uint_eq(__atomic_load_n(&shared->consumed, __ATOMIC_ACQUIRE), posted);
	}
	ck_assert_uint_eq(chan_ring_posts_skipped(ring), 10 * (UVCUSE_RING_ENTRIES - 1));
	ck_assert(!chan_ring_broken(ring));
	ck_assert(post(3, 0x7)); /* a good one, later: run */
	chan_ring_apply(ring, &q);
	ck_assert_uint_eq(fq.n_qbuf, 11);
	ck_assert_uint_eq(fq.qbuf_index[10], 3);
}
END_TEST

/* A library thread taking frames and posting their QBUFs while the daemon
 * publishes, applies and revokes: every posted QBUF runs after the take of
 * its buffer was applied (the post carries the frame's sequence), each
 * once, in order. Runs until 300 were posted (60 s bound). */
static volatile bool posting;
static unsigned n_posted;

static void *poster(void *arg)
{
	(void)arg;
	struct v4l2_buffer b;
	while (__atomic_load_n(&posting, __ATOMIC_ACQUIRE)) {
		if (!take(&b))
			continue;
		b.flags = b.sequence;
		bool ok;
		while (!(ok = fastpath_ring_post(shared, &b)) &&
		       __atomic_load_n(&posting, __ATOMIC_ACQUIRE))
			;
		if (ok)
			__atomic_store_n(&n_posted, __atomic_load_n(&n_posted, __ATOMIC_RELAXED) + 1,
					 __ATOMIC_RELEASE);
	}
	return NULL;
}

START_TEST(posts_race_takes)
{
	fq.refuse_none = true; /* every post runs: none ends a batch */
	fq.flags_are_sequence = true;
	posting = true;
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, poster, NULL), 0);
	time_t start = time(NULL);
	for (unsigned round = 0; __atomic_load_n(&n_posted, __ATOMIC_ACQUIRE) < 300; round++) {
		ck_assert_msg(time(NULL) - start < 60, "the poster posted %u in 60 s", n_posted);
		if (fq.n - fq.head < 4 && fq.n < 4000)
			frames(2);
		chan_ring_publish(ring, &q);
		if (round % 5 == 0)
			chan_ring_revoke(ring, &q);
		else
			chan_ring_apply(ring, &q);
	}
	__atomic_store_n(&posting, false, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	chan_ring_apply(ring, &q);
	ck_assert(!chan_ring_broken(ring));
	ck_assert(!fq.qbuf_before_take);
	ck_assert_uint_eq(fq.n_qbuf, n_posted);
	for (unsigned i = 1; i < fq.n_qbuf; i++)
		ck_assert_uint_gt(fq.qbuf_flags[i], fq.qbuf_flags[i - 1]);
}
END_TEST

START_TEST(revoked_entries_stay_queued)
{
	frames(3);
	chan_ring_publish(ring, &q);
	struct v4l2_buffer b;
	ck_assert(take(&b));
	ck_assert_uint_eq(chan_ring_revoke(ring, &q), 1);
	ck_assert_uint_eq(fq.dequeued, 1);
	ck_assert(!take(&b)); /* the rest was revoked */
	chan_ring_publish(ring, &q);
	ck_assert(take(&b));
	ck_assert_uint_eq(b.sequence, 1);
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 1);
	ck_assert_uint_eq(fq.head, 2);
}
END_TEST

/* A queue whose DQBUF answers an error (stopped, in error, another owner)
 * has its entries revoked: the library goes to the daemon and gets it. */
START_TEST(queue_error_revokes)
{
	frames(2);
	chan_ring_publish(ring, &q);
	fq.error = -EIO;
	chan_ring_publish(ring, &q);
	struct v4l2_buffer b;
	ck_assert(!take(&b));
	ck_assert_uint_eq(fq.dequeued, 0);
	ck_assert(!chan_ring_broken(ring));
}
END_TEST

/* A peer writing 'taken' beyond what was published, or of another
 * generation, breaks the ring: nothing unpublished is ever dequeued. */
START_TEST(scribbled_taken_breaks_without_dequeuing)
{
	frames(2);
	chan_ring_publish(ring, &q);
	shared->taken = 50; /* generation 0, beyond the 2 published */
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 0);
	ck_assert(chan_ring_broken(ring));
	ck_assert_uint_eq(fq.dequeued, 0);
	/* broken: nothing more is published or applied */
	frames(1);
	ck_assert_uint_eq(chan_ring_publish(ring, &q), 0);
	ck_assert_uint_eq(chan_ring_revoke(ring, &q), 0);
	ck_assert_uint_eq(fq.dequeued, 0);
}
END_TEST

START_TEST(scribbled_generation_breaks)
{
	frames(2);
	chan_ring_publish(ring, &q);
	shared->taken = (uint64_t)9 << 32 | 1;
	chan_ring_revoke(ring, &q);
	ck_assert(chan_ring_broken(ring));
	ck_assert_uint_eq(fq.dequeued, 0);
}
END_TEST

/* Garbage in the entries hurts only the peer: the daemon checks the
 * buffer it dequeues against what it published, not against the entry. */
START_TEST(scribbled_entries_do_not_matter_to_the_daemon)
{
	frames(2);
	chan_ring_publish(ring, &q);
	memset(shared->entry, 0xa5, sizeof(shared->entry));
	__atomic_store_n(&shared->taken, 2, __ATOMIC_RELEASE);
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 2);
	ck_assert(!chan_ring_broken(ring));
}
END_TEST

/* The queue giving another buffer than the one published (a change that
 * did not revoke: a bug) stops the ring at once. */
START_TEST(out_of_step_queue_breaks)
{
	frames(3);
	chan_ring_publish(ring, &q);
	struct v4l2_buffer b;
	ck_assert(take(&b));
	fq.swap_next = true;
	ck_assert_uint_eq(chan_ring_apply(ring, &q), 0);
	ck_assert(chan_ring_broken(ring));
}
END_TEST

/* A library thread taking while the daemon publishes and revokes: every
 * frame is either taken (and then dequeued by the daemon, in order) or
 * left in the queue, never both, never twice. The daemon's side runs until
 * the taker took 300 frames (however slowly the host schedules it), with a
 * DQBUF of its own between takes. */
static volatile bool racing;
static unsigned taken_seq[4096], n_taken;
static bool own_seq[4096]; /* got by the daemon's own DQBUF */

static void *taker(void *arg)
{
	(void)arg;
	struct v4l2_buffer b;
	while (__atomic_load_n(&racing, __ATOMIC_ACQUIRE)) {
		unsigned n = __atomic_load_n(&n_taken, __ATOMIC_RELAXED);
		if (n < 4000 && take(&b)) {
			taken_seq[n] = b.sequence;
			__atomic_store_n(&n_taken, n + 1, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

START_TEST(takes_race_revocations)
{
	racing = true;
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, taker, NULL), 0);
	unsigned own_at = 0;
	time_t start = time(NULL);
	for (unsigned round = 0;; round++) {
		unsigned got = __atomic_load_n(&n_taken, __ATOMIC_ACQUIRE);
		if (got >= 300)
			break;
		ck_assert_msg(time(NULL) - start < 60, "the taker took %u frames in 60 s", got);
		if (fq.n - fq.head < 4)
			frames(2);
		chan_ring_publish(ring, &q);
		if (round % 3 == 0)
			chan_ring_revoke(ring, &q);
		/* the daemon's own DQBUF (another thread's, through CUSE): the
		 * ring is revoked first, then the head is taken */
		if (got > own_at) {
			own_at = got;
			chan_ring_revoke(ring, &q);
			struct v4l2_buffer b;
			if (fake_dequeue(&fq, &b) == 0)
				own_seq[b.sequence] = true;
		}
	}
	__atomic_store_n(&racing, false, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	chan_ring_revoke(ring, &q);
	ck_assert(!chan_ring_broken(ring));
	/* what the taker got is in order, each once, and none of it went to
	 * the daemon's own DQBUF too; every frame taken was dequeued */
	for (unsigned i = 0; i < n_taken; i++) {
		if (i)
			ck_assert_uint_gt(taken_seq[i], taken_seq[i - 1]);
		ck_assert(!own_seq[taken_seq[i]]);
	}
	ck_assert_uint_ge(fq.head, n_taken);
	ck_assert_uint_lt(fq.n, 4096);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chan_ring");
	TCase *tc = tcase_create("chan_ring");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, published_in_order_taken_once_applied);
	tcase_add_test(tc, qbuf_answers_kept_with_entries);
	tcase_add_test(tc, posts_run_in_order_after_takes);
	tcase_add_test(tc, post_made_during_apply_waits_for_its_take);
	tcase_add_test(tc, posts_run_on_a_ring_that_broke);
	tcase_add_test(tc, posts_wait_for_room);
	tcase_add_test(tc, doorbell_rings_for_sleepers);
	tcase_add_test(tc, scribbled_posts);
	tcase_add_test(tc, refused_post_ends_its_batch);
	tcase_add_test(tc, posts_race_takes);
	tcase_add_test(tc, revoked_entries_stay_queued);
	tcase_add_test(tc, queue_error_revokes);
	tcase_add_test(tc, scribbled_taken_breaks_without_dequeuing);
	tcase_add_test(tc, scribbled_generation_breaks);
	tcase_add_test(tc, scribbled_entries_do_not_matter_to_the_daemon);
	tcase_add_test(tc, out_of_step_queue_breaks);
	tcase_add_test(tc, takes_race_revocations);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
