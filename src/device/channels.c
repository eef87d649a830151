/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The preload library's fast path on the daemon's side: a file's channels
 * (include/uvcuse/uvcuse.h, transport in share/channel.c) run QBUF and
 * DQBUF as the same ioctls on that file would through CUSE, with the
 * file's queue, ownership and O_NONBLOCK, but without CUSE's two round
 * trips per ioctl. A waiting DQBUF is parked like a CUSE one (struct
 * parked with chan set) and answered by the same wake-ups (frames,
 * STREAMOFF, REQBUFS, unplug). Each channel comes with a ring (rings.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "device/internal.h"
#include "share/bufshare.h"
#include "share/chan_ring.h"
#include "share/channel.h"

static bool channel_alive(const struct dev_file *df, const struct channel *ch)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->chans[i] == ch)
			return true;
	return false;
}

/* The channel's QBUF or DQBUF as the same ioctl on the file: true when it
 * was answered (false: parked, or its channel closed). */
static bool run_chan_request(struct dev_file *df, struct channel *ch, unsigned int cmd,
			     struct v4l2_buffer *b)
{
	struct device *dev = df->dev;
	/* a QBUF may be of a buffer taken from the ring, and the answer kept
	 * for that buffer's posted QBUF no longer holds; a DQBUF must get the
	 * queue's head, which the ring may have published */
	if (cmd == VIDIOC_QBUF) {
		device_rings_apply(df);
		for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
			if (df->rings[i] && b->index < UVCUSE_RING_ENTRIES)
				chan_ring_forget_qbufs(df->rings[i], 1u << b->index);
	} else {
		device_rings_revoke(df);
	}
	if (!channel_alive(df, ch))
		return false; /* its ring broke the protocol: closed */
	int res = node_ioctl(&dev->node, &df->nf, cmd, b, NULL, 0, device_file_nonblocking(df),
			     NULL, NULL);
	if (res != NODE_WAIT) {
		device_channel_reply(dev, df, ch, cmd, b, res);
		return true;
	}
	struct parked *p = calloc(1, sizeof(*p));
	if (!p) {
		channel_answer(ch, -ENOMEM, b, -1);
		return true;
	}
	p->chan = ch;
	p->cmd = cmd;
	p->staged = true;
	p->arg.buf = *b;
	p->next = df->parked;
	df->parked = p;
	return false;
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
	if (m->op == UVCUSE_CHAN_QBUF && b.memory == V4L2_MEMORY_USERPTR) {
		channel_answer(ch, -EOPNOTSUPP, &b, -1);
		return;
	}
	unsigned int cmd = m->op == UVCUSE_CHAN_QBUF ? VIDIOC_QBUF : VIDIOC_DQBUF;
	bool answered = run_chan_request(df, ch, cmd, &b);
	bool woken = dev->open.wake_due; /* a wake-up publishes every file's rings */
	frames_request_done(dev);
	if (answered && !woken)
		device_rings_publish(df);
}

static void chan_cancel(void *ctx, struct channel *ch)
{
	struct parked *p = rings_take_parked(ctx, ch);
	if (p)
		device_parked_fail(p, EINTR);
}

static void chan_closed(void *ctx, struct channel *ch)
{
	rings_forget_channel(ctx, ch);
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
	if (!limits_may_open_channel(dev, df->uid))
		return -EBUSY; /* the library goes through CUSE */
	for (unsigned i = 0; i < dev->open.limits.channels_per_file; i++) {
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
			rings_forget_channel(df, df->chans[i]);
}
