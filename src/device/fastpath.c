/* The preload library's fast path on the daemon's side: a file's channels
 * (include/uvcuse/uvcuse.h, transport in channel.c) run QBUF and DQBUF as
 * the same ioctls on that file would through CUSE, with the file's queue,
 * ownership and O_NONBLOCK, but without CUSE's two round trips per ioctl.
 * A waiting DQBUF is parked like a CUSE one (struct parked with chan set)
 * and answered by the same wake-ups (frames, STREAMOFF, REQBUFS, unplug).
 *
 * Each channel also gets a ring: the DQBUF answers of the file's done
 * buffers, published in shared memory for the library to take without a
 * round trip (protocol in uvcuse.h). The daemon stays the queue's only
 * keeper: a take is applied (the buffer dequeued, checked to be the one
 * published) before the queue is next touched, and the ring is revoked
 * before anything that could change what DQBUF answers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "share/bufshare.h"
#include "share/chan_ring.h"
#include "share/channel.h"
#include "device/internal.h"
#include "core/log.h"

/* --- rings ------------------------------------------------------------------ */

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
	struct v4l2_buffer b = { .index = index, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_MMAP, .flags = flags };
	dev->stats.posted_qbufs++;
	if (dev->away.unplugged)
		return -ENODEV;
	int res = node_ioctl(&dev->node, &df->nf, VIDIOC_QBUF, &b, NULL, 0, true, NULL, NULL);
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

static void chan_forget(struct dev_file *df, struct channel *ch);

/* A ring whose peer broke the protocol takes its channel with it. */
static void rings_drop_broken(struct dev_file *df)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->rings[i] && chan_ring_broken(df->rings[i]) && df->chans[i])
			chan_forget(df, df->chans[i]);
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

/* --- requests ------------------------------------------------------------- */

static bool channel_alive(const struct dev_file *df, const struct channel *ch)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->chans[i] == ch)
			return true;
	return false;
}

/* The file's waiting request on ch, taken out of its list (NULL: none). */
static struct parked *take_parked(struct dev_file *df, struct channel *ch)
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

/* The ring that goes with channel ch, or NULL. */
static struct chan_ring *ring_of(const struct dev_file *df, const struct channel *ch)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->chans[i] == ch)
			return df->rings[i];
	return NULL;
}

void device_channel_reply(struct device *dev, struct dev_file *df, struct channel *ch,
			  unsigned int cmd, struct v4l2_buffer *b, int res)
{
	int memfd = -1;
	/* the QBUF answer of the buffer the app gets, for it to post its
	 * QBUF without waiting (as for the ring's entries) */
	struct chan_ring *ring = ring_of(df, ch);
	if (res == 0 && cmd == VIDIOC_DQBUF && b->memory == V4L2_MEMORY_MMAP && ring) {
		struct chan_ring_queue q = file_queue(df);
		chan_ring_keep_qbuf(ring, &q, b->index);
	}
	/* A USERPTR frame stayed in its staging memory (the staged DQBUF):
	 * its memfd goes with the answer, for the library to pread. */
	if (res == 0 && cmd == VIDIOC_DQBUF && b->memory == V4L2_MEMORY_USERPTR && b->bytesused) {
		int err = device_buf_lookup(dev, df, UVCUSE_STAGING_OFFSET(b->index), b->bytesused,
					    &memfd);
		if (err == 0)
			err = bufshare_seal(memfd);
		if (err < 0) {
			memfd = -1;
			res = err;
		}
	}
	channel_answer(ch, res, b, memfd);
}

static void chan_request(void *ctx, struct channel *ch, const struct uvcuse_chan_msg *m)
{
	struct dev_file *df = ctx;
	struct device *dev = df->dev;
	struct v4l2_buffer b = m->buf;
	dev->stats.chan_requests++;
	if (dev->away.unplugged) {
		channel_answer(ch, -ENODEV, &b, -1);
		return;
	}
	/* A USERPTR QBUF goes through CUSE, where the kernel proves the
	 * pointer readable (EFAULT, as vb2); the library knows. */
	if (m->op == UVCUSE_CHAN_QBUF && b.memory != V4L2_MEMORY_MMAP) {
		channel_answer(ch, -EOPNOTSUPP, &b, -1);
		return;
	}
	unsigned int cmd = m->op == UVCUSE_CHAN_QBUF ? VIDIOC_QBUF : VIDIOC_DQBUF;
	/* a QBUF may be of a buffer taken from the ring, and the answer kept
	 * for that buffer's posted QBUF no longer holds; a DQBUF must get the
	 * queue's head, which the ring may have published */
	if (cmd == VIDIOC_QBUF) {
		device_rings_apply(df);
		for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
			if (df->rings[i] && b.index < UVCUSE_RING_ENTRIES)
				chan_ring_forget_qbufs(df->rings[i], 1u << b.index);
	} else {
		device_rings_revoke(df);
	}
	if (!channel_alive(df, ch))
		return; /* its ring broke the protocol: closed */
	int res = node_ioctl(&dev->node, &df->nf, cmd, &b, NULL, 0, device_file_nonblocking(df),
			     NULL, NULL);
	if (res == NODE_WAIT) {
		struct parked *p = calloc(1, sizeof(*p));
		if (!p) {
			channel_answer(ch, -ENOMEM, &b, -1);
			return;
		}
		p->chan = ch;
		p->cmd = cmd;
		p->staged = true;
		p->arg.buf = b;
		p->next = df->parked;
		df->parked = p;
		return;
	}
	device_channel_reply(dev, df, ch, cmd, &b, res);
	if (dev->open.wake_due)
		device_wake_all(dev);
	else
		device_rings_publish(df);
}

static void chan_cancel(void *ctx, struct channel *ch)
{
	struct parked *p = take_parked(ctx, ch);
	if (p)
		device_parked_fail(p, EINTR);
}

static void chan_forget(struct dev_file *df, struct channel *ch)
{
	struct parked *p;
	while ((p = take_parked(df, ch)))
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

static void chan_closed(void *ctx, struct channel *ch)
{
	chan_forget(ctx, ch);
}

static const struct channel_ops chan_ops = {
	.request = chan_request,
	.cancel = chan_cancel,
	.closed = chan_closed,
};

int device_channel_open(void *ctx, void *file, int fd, pid_t pid, int *memfd, int *bell)
{
	struct device *dev = ctx;
	struct dev_file *df = file;
	*memfd = -1;
	*bell = -1;
	if (!df->cuse || df->releasing)
		return -EBADF;
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++) {
		if (df->chans[i])
			continue;
		struct chan_ring *ring = chan_ring_new(pid); /* without one, round trips only */
		int err = channel_new(dev->loop, fd, pid, &chan_ops, df, &df->chans[i]);
		if (err < 0) {
			chan_ring_free(ring);
			return err;
		}
		if (ring)
			chan_ring_offer_posted(ring, vq_qbuf_kept_flags());
		df->rings[i] = ring;
		*memfd = ring ? chan_ring_memfd(ring) : -1;
		*bell = ring ? chan_ring_bell(ring) : -1;
		log_debug("pid %d: fast path open%s", (int)pid, ring ? ", with a ring" : "");
		device_rings_publish(df);
		return 0;
	}
	return -EBUSY; /* the library goes through CUSE */
}

void device_channels_close(struct dev_file *df)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->chans[i])
			chan_forget(df, df->chans[i]);
}
