/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fast path's daemon end: transport and protocol checks (channel.h). */
#include "share/channel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "share/bufshare.h"
#include "core/log.h"
#include "core/loop.h"

/* Messages read per wake-up: one, since a peer has one request at a time
 * (a second read would only meet EAGAIN, a syscall per frame), and a
 * flooding peer cannot starve the loop (epoll is level-triggered). */
#define CHANNEL_READS_PER_WAKE 1

struct channel {
	struct loop *loop;
	int fd;
	pid_t pid;
	const struct channel_ops *ops;
	void *ctx;
	bool busy;          /* a request read and not answered */
	bool closing;       /* ops->closed was called */
	bool dispatching;   /* inside on_readable: channel_free waits for its end */
	bool freed;         /* channel_free was called while dispatching */
	struct uvcuse_chan_msg req; /* the request in progress */
	uint64_t requests;
};

int channel_parse(const void *msg, size_t len, struct uvcuse_chan_msg *out)
{
	if (len != sizeof(*out))
		return -EPROTO;
	memcpy(out, msg, sizeof(*out));
	if (out->magic != UVCUSE_MAGIC)
		return -EPROTO;
	if (out->op != UVCUSE_CHAN_QBUF && out->op != UVCUSE_CHAN_DQBUF &&
	    out->op != UVCUSE_CHAN_CANCEL)
		return -EPROTO;
	return 0;
}

/* Protocol errors are logged a few times a second at most: a hostile
 * local app could open channels in a loop. */
static bool complaint_ok(void)
{
	static struct log_limit limit;
	return log_allowed(&limit, 5);
}

static void channel_close(struct channel *ch, const char *why)
{
	if (ch->closing)
		return;
	if (why && complaint_ok())
		log_warn("fast path of pid %d: %s: back to CUSE", (int)ch->pid, why);
	ch->closing = true;
	ch->busy = false;
	loop_remove(ch->loop, ch->fd);
	ch->ops->closed(ch->ctx, ch);
}

static void destroy(struct channel *ch)
{
	if (!ch->closing)
		loop_remove(ch->loop, ch->fd);
	close(ch->fd);
	free(ch);
}

static void read_requests(struct channel *ch);

static void on_readable(void *data, uint32_t events)
{
	struct channel *ch = data;
	(void)events;
	/* the owner's callbacks may free the channel: only at the end */
	ch->dispatching = true;
	read_requests(ch);
	ch->dispatching = false;
	if (ch->freed)
		destroy(ch);
}

static void read_requests(struct channel *ch)
{
	for (int i = 0; i < CHANNEL_READS_PER_WAKE && !ch->closing && !ch->freed; i++) {
		union {
			struct uvcuse_chan_msg m;
			char buf[sizeof(struct uvcuse_chan_msg) + 1]; /* + 1: detects longer */
		} in;
		struct iovec iov = { in.buf, sizeof(in.buf) };
		/* no room for passed fds: the kernel closes them and says MSG_CTRUNC */
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(ch->fd, &mh, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			channel_close(ch, NULL); /* the peer closed: nothing to say */
			return;
		}
		struct uvcuse_chan_msg req;
		if (channel_parse(in.buf, (size_t)n, &req) < 0 || (mh.msg_flags & MSG_CTRUNC)) {
			channel_close(ch, "malformed message");
			return;
		}
		if (req.op == UVCUSE_CHAN_CANCEL) {
			/* the answer may have crossed the cancel: then it is moot */
			if (ch->busy && req.seq == ch->req.seq)
				ch->ops->cancel(ch->ctx, ch);
			continue;
		}
		if (ch->busy) {
			channel_close(ch, "a second request before the answer");
			return;
		}
		ch->busy = true;
		ch->req = req;
		ch->requests++;
		ch->ops->request(ch->ctx, ch, &req);
	}
}

int channel_new(struct loop *loop, int fd, pid_t pid, const struct channel_ops *ops, void *ctx,
		struct channel **out)
{
	struct channel *ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	*ch = (struct channel){ .loop = loop, .fd = fd, .pid = pid, .ops = ops, .ctx = ctx };
	int err = loop_add(loop, fd, EPOLLIN, on_readable, ch);
	if (err < 0) {
		free(ch);
		return err;
	}
	*out = ch;
	return 0;
}

void channel_free(struct channel *ch)
{
	if (!ch)
		return;
	if (ch->dispatching) {
		ch->freed = true;
		return;
	}
	destroy(ch);
}

void channel_answer(struct channel *ch, int result, const struct v4l2_buffer *buf, int memfd)
{
	if (!ch->busy || ch->closing)
		return;
	struct uvcuse_chan_msg a = ch->req;
	a.result = result;
	if (buf)
		a.buf = *buf;
	ch->busy = false;
	/* One answer per request: the socket has room unless the peer broke
	 * the protocol. */
	if (bufshare_send(ch->fd, &a, sizeof(a), memfd) != (ssize_t)sizeof(a))
		channel_close(ch, errno == EPIPE || errno == ECONNRESET ? NULL : "answer not sent");
}

bool channel_busy(const struct channel *ch)
{
	return ch->busy;
}

pid_t channel_pid(const struct channel *ch)
{
	return ch->pid;
}

uint64_t channel_requests(const struct channel *ch)
{
	return ch->requests;
}
