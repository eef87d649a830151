/* The preload library's fast path on the daemon's side: a file's channels
 * (include/uvcuse/uvcuse.h, transport in channel.c) run QBUF and DQBUF as
 * the same ioctls on that file would through CUSE, with the file's queue,
 * ownership and O_NONBLOCK, but without CUSE's two round trips per ioctl.
 * A waiting DQBUF is parked like a CUSE one (struct parked with chan set)
 * and answered by the same wake-ups (frames, STREAMOFF, REQBUFS, unplug). */
#include <errno.h>
#include <stdlib.h>

#include "bufshare.h"
#include "channel.h"
#include "device_priv.h"
#include "log.h"

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

void device_channel_reply(struct device *dev, struct dev_file *df, struct channel *ch,
			  unsigned int cmd, struct v4l2_buffer *b, int res)
{
	int memfd = -1;
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
	dev->chan_requests++;
	if (dev->unplugged) {
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
	unsigned events = dev->node.events_queued;
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
	if (dev->node.events_queued != events)
		device_wake_all(dev);
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
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->chans[i] == ch)
			df->chans[i] = NULL;
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

int device_channel_open(void *ctx, void *file, int fd, pid_t pid)
{
	struct device *dev = ctx;
	struct dev_file *df = file;
	if (!df->cuse || df->releasing)
		return -EBADF;
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++) {
		if (df->chans[i])
			continue;
		int err = channel_new(dev->loop, fd, pid, &chan_ops, df, &df->chans[i]);
		if (err == 0)
			log_debug("pid %d: fast path open", (int)pid);
		return err;
	}
	return -EBUSY; /* the library goes through CUSE */
}

void device_channels_close(struct dev_file *df)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->chans[i])
			chan_forget(df, df->chans[i]);
}
