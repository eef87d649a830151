/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fast path's daemon end: one connection of the buffer socket that
 * became an open file's channel (protocol: include/uvcuse/uvcuse.h). This
 * file is the transport only: it reads requests from the socket, checks
 * their form and the one-at-a-time rule, and sends answers; what a request
 * does is the owner's (device_channel.c runs it as the ioctl on the file).
 *
 * The peer is an app, so it is not trusted: a message of the wrong size,
 * magic or op, a second request before the answer, passed fds, or a full
 * socket close the channel (one log line, rate-limited), and the owner is
 * told through ops->closed. Served from the daemon's loop. */
#ifndef UVCUSE_CHANNEL_H
#define UVCUSE_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "uvcuse/uvcuse.h"

struct loop;
struct channel;

struct channel_ops {
	/* A well-formed QBUF or DQBUF: answer it with channel_answer(), now
	 * or later (a waiting DQBUF). */
	void (*request)(void *ctx, struct channel *ch, const struct uvcuse_chan_msg *req);
	/* The peer cancelled the request it waits for (a signal interrupted
	 * it): answer it now (-EINTR), unless it was answered already. */
	void (*cancel)(void *ctx, struct channel *ch);
	/* The peer went away or broke the protocol: forget any waiting request
	 * (it gets no answer) and call channel_free(), here or later. */
	void (*closed)(void *ctx, struct channel *ch);
};

/* Takes fd, a connected SOCK_SEQPACKET socket of process pid, and serves
 * it on loop. Returns 0, or -errno with fd left to the caller. */
int channel_new(struct loop *loop, int fd, pid_t pid, const struct channel_ops *ops, void *ctx,
		struct channel **out);
/* Closes the socket (the peer sees the end and goes through CUSE). No
 * callback. */
void channel_free(struct channel *ch);

/* Answers the request in progress: result 0 or -errno, buf as the ioctl
 * leaves it, memfd >= 0 sent with it (a duplicate; the caller keeps its
 * own). A failed send closes the channel (ops->closed, maybe at once). */
void channel_answer(struct channel *ch, int result, const struct v4l2_buffer *buf, int memfd);
/* A request is in progress (read, not answered). */
bool channel_busy(const struct channel *ch);
pid_t channel_pid(const struct channel *ch);
/* Requests read so far. */
uint64_t channel_requests(const struct channel *ch);

/* --- the pure part, for the unit suite ----------------------------------- */

/* Checks one received message's form: 0 for a request (QBUF, DQBUF,
 * CANCEL), -EPROTO otherwise. */
int channel_parse(const void *msg, size_t len, struct uvcuse_chan_msg *out);

#endif
