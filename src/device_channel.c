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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bufshare.h"
#include "channel.h"
#include "device_priv.h"
#include "log.h"

/* --- rings ------------------------------------------------------------------ */

struct chan_ring {
	int memfd;
	struct uvcuse_ring *r;  /* shared with the library: only 'taken' is read back */
	uint32_t gen;           /* the generation published now */
	uint32_t published;     /* entries of gen published */
	uint32_t applied;       /* entries of gen whose take was applied */
	uint32_t index[UVCUSE_RING_ENTRIES]; /* the buffer of each entry */
	bool broken;            /* the peer broke the protocol: closing */
	pid_t pid;              /* its channel's process, for the log */
};

static struct chan_ring *ring_new(void)
{
	struct chan_ring *ring = calloc(1, sizeof(*ring));
	if (!ring)
		return NULL;
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

static void ring_free(struct chan_ring *ring)
{
	if (!ring)
		return;
	munmap(ring->r, sizeof(struct uvcuse_ring));
	close(ring->memfd);
	free(ring);
}

/* Dequeues the buffers of the entries taken, up to 'taken' (of gen). */
static void ring_apply_to(struct device *dev, struct dev_file *df, struct chan_ring *ring,
			  uint32_t taken)
{
	while (!ring->broken && ring->applied < taken) {
		struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					 .memory = V4L2_MEMORY_MMAP };
		int res = node_ioctl(&dev->node, &df->nf, VIDIOC_DQBUF, &b, NULL, 0, true, NULL, NULL);
		if (res < 0 || b.index != ring->index[ring->applied % UVCUSE_RING_ENTRIES]) {
			/* cannot happen while every change of the queue revokes first */
			log_error("fast path ring out of step (%s, buffer %u for %u): closing it",
				  res < 0 ? strerror(-res) : "another buffer", b.index,
				  ring->index[ring->applied % UVCUSE_RING_ENTRIES]);
			ring->broken = true;
			break;
		}
		ring->applied++;
		dev->ring_takes++;
	}
}

/* A few lines a second at most: a hostile app can break rings in a loop. */
static bool complaint_ok(void)
{
	static struct log_limit limit;
	return log_allowed(&limit, 5);
}

/* 'taken' as the peer left it, unless it is not a take of what was
 * published (then the ring is broken). */
static bool taken_ok(struct chan_ring *ring, uint64_t t)
{
	if ((uint32_t)(t >> 32) == ring->gen && (uint32_t)t <= ring->published &&
	    (uint32_t)t >= ring->applied)
		return true;
	if (complaint_ok())
		log_warn("fast path ring of pid %d: 'taken' written wrong: closing the channel",
			 (int)ring->pid);
	ring->broken = true;
	return false;
}

static void ring_apply(struct device *dev, struct dev_file *df, struct chan_ring *ring)
{
	uint64_t t = __atomic_load_n(&ring->r->taken, __ATOMIC_ACQUIRE);
	if (taken_ok(ring, t))
		ring_apply_to(dev, df, ring, (uint32_t)t);
}

/* Ends the generation: what was taken is applied, the rest can no longer be. */
static void ring_revoke(struct device *dev, struct dev_file *df, struct chan_ring *ring)
{
	if (ring->broken)
		return;
	if (ring->published == ring->applied) {
		ring_apply(dev, df, ring); /* nothing to take: the generation may stay */
		return;
	}
	uint64_t t = __atomic_load_n(&ring->r->taken, __ATOMIC_ACQUIRE);
	uint64_t next = (uint64_t)(ring->gen + 1) << 32;
	for (;;) {
		if (!taken_ok(ring, t))
			return;
		if (__atomic_compare_exchange_n(&ring->r->taken, &t, next, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
	}
	ring_apply_to(dev, df, ring, (uint32_t)t);
	ring->gen++;
	ring->published = ring->applied = 0;
	__atomic_store_n(&ring->r->published, next, __ATOMIC_RELEASE);
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
		if (df->rings[i] && df->rings[i]->broken && df->chans[i])
			chan_forget(df, df->chans[i]);
}

void device_rings_apply(struct dev_file *df)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->rings[i])
			ring_apply(df->dev, df, df->rings[i]);
	rings_drop_broken(df);
}

void device_rings_revoke(struct dev_file *df)
{
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++)
		if (df->rings[i])
			ring_revoke(df->dev, df, df->rings[i]);
	rings_drop_broken(df);
}

void device_rings_publish(struct dev_file *df)
{
	struct device *dev = df->dev;
	/* one taker per file: two processes' libraries taking the same
	 * entries would each dequeue what the other got */
	if (channels_of(df) != 1 || dev->unplugged || dev->detached) {
		device_rings_revoke(df);
		return;
	}
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++) {
		struct chan_ring *ring = df->rings[i];
		if (!ring)
			continue;
		ring_apply(dev, df, ring);
		if (ring->broken)
			break;
		/* a queue in error, stopped or taken over answers DQBUF otherwise */
		struct v4l2_buffer head;
		int err = node_dqbuf_peek(&dev->node, &df->nf, 0, &head);
		if (err && err != -EAGAIN) {
			ring_revoke(dev, df, ring);
			continue;
		}
		bool more = false;
		while (ring->published - ring->applied < UVCUSE_RING_ENTRIES) {
			struct v4l2_buffer b;
			if (node_dqbuf_peek(&dev->node, &df->nf, ring->published - ring->applied, &b))
				break;
			unsigned k = ring->published % UVCUSE_RING_ENTRIES;
			memcpy(&ring->r->entry[k], &b, sizeof(b));
			ring->index[k] = b.index;
			ring->published++;
			more = true;
		}
		if (more)
			__atomic_store_n(&ring->r->published,
					 ((uint64_t)ring->gen << 32) | ring->published,
					 __ATOMIC_RELEASE);
	}
	rings_drop_broken(df);
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
	/* a QBUF may be of a buffer taken from the ring; a DQBUF must get the
	 * queue's head, which the ring may have published */
	if (cmd == VIDIOC_QBUF)
		device_rings_apply(df);
	else
		device_rings_revoke(df);
	if (!channel_alive(df, ch))
		return; /* its ring broke the protocol: closed */
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
		/* what its library took is the file's: applied first */
		if (df->rings[i]) {
			ring_revoke(df->dev, df, df->rings[i]);
			ring_free(df->rings[i]);
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

int device_channel_open(void *ctx, void *file, int fd, pid_t pid, int *memfd)
{
	struct device *dev = ctx;
	struct dev_file *df = file;
	*memfd = -1;
	if (!df->cuse || df->releasing)
		return -EBADF;
	for (unsigned i = 0; i < DEV_FILE_CHANNELS; i++) {
		if (df->chans[i])
			continue;
		struct chan_ring *ring = ring_new(); /* without one, round trips only */
		int err = channel_new(dev->loop, fd, pid, &chan_ops, df, &df->chans[i]);
		if (err < 0) {
			ring_free(ring);
			return err;
		}
		df->rings[i] = ring;
		if (ring)
			ring->pid = pid;
		*memfd = ring ? ring->memfd : -1;
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
