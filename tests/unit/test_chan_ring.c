/* The fast path's ring, the daemon's side (src/chan_ring.c) against a fake
 * queue, with the library's take (src/preload/fastpath.c) as the peer:
 * entries published in order and taken once, takes applied to the queue
 * (the buffer checked), revocation against takes, queue errors, and a peer
 * scribbling on the shared memory, which must never make the daemon
 * dequeue what it did not publish. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "chan_ring.h"
#include "fastpath.h"
#include "log.h"
#include "unit_run.h"

/* A queue of done buffers: done[head..n) in order. */
struct fake_queue {
	unsigned done[4096], head, n;
	int error;          /* peek and dequeue answer it when set */
	bool swap_next;     /* dequeue answers the second buffer (out of step) */
	unsigned dequeued;
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

static struct fake_queue fq;
static struct chan_ring_queue q = { fake_peek, fake_dequeue, fake_qbuf_answer, &fq };
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

/* Entries not taken at a revocation stay done in the queue and can no
 * longer be taken; the next generation publishes them again. */
/* Each published entry's buffer has its QBUF answer kept before the entry
 * can be taken; an answer the queue cannot give keeps nothing (zeroes, so
 * the library waits for the daemon); offering sets the feature. */
START_TEST(qbuf_answers_kept_with_entries)
{
	ck_assert_uint_eq(shared->features, 0);
	chan_ring_offer_posted(ring, 0xf0000000);
	ck_assert_uint_eq(shared->features, UVCUSE_RING_QBUF_POSTED);
	ck_assert_uint_eq(shared->qbuf_keep_flags, 0xf0000000);
	frames(3);
	chan_ring_publish(ring, &q);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(shared->qbuf[i].index, i);
		ck_assert_uint_eq(shared->qbuf[i].m.offset, 4096 * i);
		ck_assert_uint_eq(shared->qbuf[i].flags, V4L2_BUF_FLAG_QUEUED);
	}
	ck_assert_uint_eq(shared->qbuf[3].flags, 0); /* not published: nothing */
	memset(&shared->qbuf[31], 0xff, sizeof(shared->qbuf[31]));
	chan_ring_keep_qbuf(ring, &q, 31);
	ck_assert_uint_eq(shared->qbuf[31].flags, 0);
	ck_assert_uint_eq(shared->qbuf[31].index, 0);
	chan_ring_keep_qbuf(ring, &q, 7);
	ck_assert_uint_eq(shared->qbuf[7].m.offset, 4096 * 7);
	chan_ring_keep_qbuf(ring, &q, 32); /* no such slot: nothing written */
	/* the library answers from it */
	struct v4l2_buffer in = { .index = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				  .memory = V4L2_MEMORY_MMAP, .flags = 0x30000001 };
	struct v4l2_buffer out;
	ck_assert(fastpath_posted_answer(shared, &in, &out));
	ck_assert_uint_eq(out.flags, V4L2_BUF_FLAG_QUEUED | 0x30000000);
	ck_assert_uint_eq(out.m.offset, 4096);
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
