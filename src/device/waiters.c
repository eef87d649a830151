/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The requests that wait for a frame or an event (a blocking DQBUF, the
 * first chunk of a blocking read(), a blocking DQEVENT, through CUSE or a
 * fast-path channel): parked, run again when the node says what they
 * would get may have changed, and answered; and the answers of the
 * channels. The end of the frame path and of every request's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "cuse/cuse.h"
#include "device/internal.h"
#include "share/bufshare.h"
#include "share/chan_ring.h"
#include "share/channel.h"
#include "v4l2/node.h"

bool device_file_nonblocking(const struct dev_file *df)
{
	return df->cuse && (cuse_file_flags(df->cuse) & O_NONBLOCK);
}

void device_parked_fail(struct parked *p, int err)
{
	if (p->chan)
		channel_answer(p->chan, -err, &p->arg.buf, -1);
	else
		cuse_reply_error(p->req, err);
	free(p);
}

void waiters_park(struct dev_file *df, struct parked *p)
{
	p->next = df->parked;
	df->parked = p;
	cuse_req_park(p->req); /* may call requests_interrupt at once */
}

void waiters_reply_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
			unsigned int cmd, void *arg, int res, const void *data, size_t len)
{
	if (res == -E2BIG && cmd == VIDIOC_DQBUF && !df->warned_userptr) {
		log_warn("pid %d: USERPTR frames larger than %u bytes cannot go through CUSE "
			 "(one ioctl moves at most %zu bytes); run the app under uvcuse-run",
			 (int)cuse_req_pid(req), dev->node.max_userptr_copy, cuse_max_chunk());
		df->warned_userptr = true;
	}
	if (res == 0 && data && cmd == VIDIOC_DQBUF) {
		const struct v4l2_buffer *b = arg;
		cuse_reply_ioctl_data(req, 0, arg, b->m.userptr, data, len);
		return;
	}
	cuse_reply_ioctl(req, res, arg);
}

static void answer_parked(struct device *dev, struct dev_file *df, struct parked *p)
{
	if (p->streamon) { /* only the commit's outcome answers it (device_answer_streamons) */
		p->next = df->parked;
		df->parked = p;
		return;
	}
	if (p->is_read) {
		const uint8_t *data;
		size_t len;
		int res = node_read(&dev->node, &df->nf, p->size, true, false, &data, &len);
		if (res == NODE_WAIT) {
			p->next = df->parked;
			df->parked = p;
			return;
		}
		if (res < 0) {
			cuse_reply_error(p->req, -res);
		} else {
			cuse_reply_read(p->req, data, len);
			node_read_done(&dev->node, &df->nf, len);
		}
		free(p);
		return;
	}
	const void *data = NULL;
	size_t len = 0;
	int res = node_ioctl(&dev->node, &df->nf, p->cmd, &p->arg, NULL, 0, false,
			     p->staged ? NULL : &data, &len);
	if (res == NODE_WAIT) {
		p->next = df->parked;
		df->parked = p;
		return;
	}
	if (p->chan) {
		device_channel_reply(dev, df, p->chan, p->cmd, &p->arg.buf, res);
		free(p);
		return;
	}
	waiters_reply_ioctl(dev, df, p->req, p->cmd, &p->arg, res, data, len);
	free(p);
}

/* Frames or errors changed what waiting requests would get: run them
 * again, and wake pollers. */
void device_wake_all(struct device *dev)
{
	dev->open.wake_due = false;
	for (struct dev_file *df = dev->open.list; df; df = df->next) {
		/* a parked DQBUF takes the queue's head, which a ring may hold */
		if (df->parked)
			device_rings_revoke(df);
		struct parked *list = df->parked;
		df->parked = NULL;
		/* answer_parked puts back the ones that still wait */
		while (list) {
			struct parked *p = list;
			list = p->next;
			answer_parked(dev, df, p);
		}
		/* before the poller wakes: it may take the new frames at once */
		device_rings_publish(df);
		if (df->cuse)
			cuse_file_notify_poll(df->cuse);
	}
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
	if (res == 0 && cmd == VIDIOC_DQBUF &&
	    (b->memory == V4L2_MEMORY_MMAP || b->memory == V4L2_MEMORY_DMABUF) && ring) {
		rings_keep_qbuf(df, ring, b->index);
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


void requests_waiters_changed(void *ctx)
{
	struct device *dev = ctx;
	dev->open.wake_due = true;
}

void device_wake_if_due(struct device *dev)
{
	if (dev->open.wake_due)
		device_wake_all(dev);
}

