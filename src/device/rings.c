/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fast path's rings on the daemon's side (protocol in
 * include/uvcuse/uvcuse.h, the ring itself in share/chan_ring.c): the DQBUF
 * answers of a file's done buffers published in shared memory for the
 * library to take without a round trip, its takes and posted QBUFs
 * applied, the rest revoked. The daemon stays the queue's only keeper: a
 * take is applied (the buffer dequeued, checked to be the one published)
 * before the queue is next touched, and the ring is revoked before
 * anything that could change what DQBUF answers. A ring whose peer broke
 * the protocol takes its channel with it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "device/internal.h"
#include "share/chan_ring.h"
#include "share/channel.h"

static int queue_peek(void *ctx, unsigned i, struct v4l2_buffer *b)
{
	struct dev_file *df = ctx;
	return node_dqbuf_peek(&df->dev->node, &df->nf, i, b);
}

static int queue_dequeue(void *ctx, struct v4l2_buffer *b)
{
	struct dev_file *df = ctx;
	*b = (struct v4l2_buffer){ .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	return node_ioctl(&df->dev->node, &df->nf, VIDIOC_DQBUF, b, NULL, 0, true, NULL, NULL);
}

static int queue_qbuf_answer(void *ctx, unsigned index, struct v4l2_buffer *b)
{
	struct dev_file *df = ctx;
	return node_qbuf_preview(&df->dev->node, &df->nf, index, b);
}

/* A QBUF the library answered already, from the ring's qbuf[]. It fails
 * only when something the app did not order after it came first (an
 * unplug, a stream error, another thread's STREAMOFF or REQBUFS): as a QBUF
 * that won and then met that, the buffer is simply not filled. */
static int queue_qbuf(void *ctx, unsigned index, uint32_t flags)
{
	static struct log_limit limit;
	struct dev_file *df = ctx;
	struct device *dev = df->dev;
	struct v4l2_buffer b;
	dev->stats.posted_qbufs++;
	if (dev->away.unplugged)
		return -ENODEV;
	/* the QBUF the library answered: MMAP, or DMABUF with the dma-buf and
	 * length the buffer had (the answer it gave was this preview's) */
	int res = node_qbuf_preview(&dev->node, &df->nf, index, &b);
	if (res == 0) {
		b = (struct v4l2_buffer){ .index = index, .type = b.type, .memory = b.memory,
					  .flags = flags, .m = b.m, .length = b.length };
		res = node_ioctl(&dev->node, &df->nf, VIDIOC_QBUF, &b, NULL, 0, true, NULL, NULL);
	}
	if (res < 0 && log_allowed(&limit, 5))
		log_debug("posted QBUF of buffer %u: %s", index, strerror(-res));
	return res;
}

static struct chan_ring_queue file_queue(struct dev_file *df)
{
	return (struct chan_ring_queue){ .peek = queue_peek,
					 .dequeue = queue_dequeue,
					 .qbuf_answer = queue_qbuf_answer,
					 .qbuf = queue_qbuf,
					 .ctx = df };
}

static unsigned channels_of(const struct dev_file *df)
{
	unsigned n = 0;
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		n += df->chans[i] != NULL;
	return n;
}

/* A ring whose peer broke the protocol takes its channel with it. */
static void rings_drop_broken(struct dev_file *df)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->rings[i] && chan_ring_broken(df->rings[i]) && df->chans[i])
			rings_forget_channel(df, df->chans[i]);
}

typedef unsigned (*ring_step_fn)(struct chan_ring *ring, const struct chan_ring_queue *q);

/* One step (apply, revoke, publish) on each of the file's rings, the takes
 * it applied counted; a ring it found broken closes its channel. */
static void rings_run(struct dev_file *df, ring_step_fn step)
{
	struct chan_ring_queue q = file_queue(df);
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->rings[i])
			df->dev->stats.ring_takes += step(df->rings[i], &q);
	rings_drop_broken(df);
}

void device_rings_apply(struct dev_file *df)
{
	rings_run(df, chan_ring_apply);
}

void device_rings_apply_all(struct device *dev)
{
	for (struct dev_file *df = dev->open.list; df; df = df->next)
		device_rings_apply(df);
}

void device_rings_apply_proc(struct dev_file *df)
{
	for (struct dev_file *o = df->dev->open.list; o; o = o->next)
		if (o != df && o->nf.proc == df->nf.proc)
			device_rings_apply(o);
}

void device_rings_revoke(struct dev_file *df)
{
	rings_run(df, chan_ring_revoke);
}

void device_rings_publish(struct dev_file *df)
{
	struct device *dev = df->dev;
	/* one taker per file: two processes' libraries taking the same
	 * entries would each dequeue what the other got */
	bool serve = channels_of(df) == 1 && !dev->away.unplugged && !dev->away.detached;
	rings_run(df, serve ? chan_ring_publish : chan_ring_revoke);
	/* the library may wait for entries on the doorbell instead of
	 * polling the node while a poll would answer nothing else */
	bool pollable = serve && node_poll_plain(&dev->node, &df->nf);
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->rings[i])
			chan_ring_set_pollable(df->rings[i], pollable);
}


void rings_keep_qbuf(struct dev_file *df, struct chan_ring *ring, unsigned index)
{
	struct chan_ring_queue q = file_queue(df);
	chan_ring_keep_qbuf(ring, &q, index);
}

/* The file's waiting request on ch, taken out of its list (NULL: none). */
struct parked *rings_take_parked(struct dev_file *df, struct channel *ch)
{
	for (struct parked **pp = &df->parked; *pp; pp = &(*pp)->next) {
		struct parked *p = *pp;
		if (p->chan == ch) {
			*pp = p->next;
			return p;
		}
	}
	return NULL;
}

void rings_forget_channel(struct dev_file *df, struct channel *ch)
{
	struct parked *p;
	while ((p = rings_take_parked(df, ch)))
		free(p);
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++) {
		if (df->chans[i] != ch)
			continue;
		/* what its library took is the file's: applied first; its
		 * pollers wake and ask the kernel */
		if (df->rings[i]) {
			struct chan_ring_queue q = file_queue(df);
			df->dev->stats.ring_takes += chan_ring_revoke(df->rings[i], &q);
			chan_ring_set_pollable(df->rings[i], false);
			chan_ring_free(df->rings[i]);
			df->rings[i] = NULL;
		}
		df->chans[i] = NULL;
	}
	channel_free(ch);
}

