/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The buffer socket's client (memfd_fetch.h). */
#include "client/memfd_fetch.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "uvcuse/passed_fds.h"
#include "uvcuse/uvcuse.h"

/* The request on s, with passed (>= 0) along: sendmsg's answer. */
static ssize_t send_request(int s, const struct uvcuse_buf_request *req, int passed)
{
	struct iovec iov = { (void *)req, sizeof(*req) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (passed >= 0) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &passed, sizeof(int));
	}
	return sendmsg(s, &m, MSG_NOSIGNAL);
}

/* HELLO on fd, a connection to the daemon's socket and the request for
 * offset/length sent on it (with fd passed, if >= 0): the connected
 * socket, or -errno. */
static int hello_and_ask(uvcuse_ioctl_fn ioctl_call, int fd, uint64_t offset, uint64_t length,
			 int passed, bool *ours)
{
	struct uvcuse_hello h;
	memset(&h, 0, sizeof(h));
	*ours = false;
	if (ioctl_call(fd, UVCUSE_IOC_HELLO, &h) < 0)
		return -errno;
	if (h.magic != UVCUSE_MAGIC)
		return -ENOTTY;
	*ours = true;
	if (h.abi_version != UVCUSE_ABI_VERSION)
		return -EPROTO; /* daemon and library from different releases */
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	h.socket_path[sizeof(h.socket_path) - 1] = 0;
	memcpy(sa.sun_path, h.socket_path, sizeof(sa.sun_path));
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	struct uvcuse_buf_request req = { .magic = UVCUSE_MAGIC, .abi_version = UVCUSE_ABI_VERSION,
					  .offset = offset, .length = length };
	memcpy(req.token, h.token, sizeof(req.token));
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    send_request(s, &req, passed) != (ssize_t)sizeof(req)) {
		int err = -errno;
		close(s);
		return err;
	}
	return s;
}

/* One reply on s: its status, the first two fds it carries in fd_out[0]
 * and fd_out[1] (-1: none; any other is closed) and how many came in
 * *fds. 0, or -errno / -EPROTO / the reply's status. */
static int recv_reply(int s, struct uvcuse_buf_reply *rep, int fd_out[2], unsigned *fds)
{
	struct iovec iov = { rep, sizeof(*rep) };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	ssize_t n;
	fd_out[0] = fd_out[1] = -1;
	*fds = 0;
	do
		n = recvmsg(s, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	*fds = uvcuse_take_passed_fds(&m, fd_out, 2, close);
	if (n != (ssize_t)sizeof(*rep) || rep->magic != UVCUSE_MAGIC || (m.msg_flags & MSG_CTRUNC))
		return -EPROTO;
	return rep->status < 0 ? rep->status : 0;
}

int uvcuse_open_channel(uvcuse_ioctl_fn ioctl_call, int fd, bool *ours, int *ring_fd,
			int *bell_fd)
{
	*ring_fd = *bell_fd = -1;
	int s = hello_and_ask(ioctl_call, fd, UVCUSE_CHANNEL_OFFSET, 0, -1, ours);
	if (s < 0)
		return s;
	struct uvcuse_buf_reply rep;
	int got[2];
	unsigned fds;
	int err = recv_reply(s, &rep, got, &fds);
	if (err < 0) {
		for (int i = 0; i < 2; i++)
			if (got[i] >= 0)
				close(got[i]);
		close(s);
		return err;
	}
	*ring_fd = got[0];
	*bell_fd = got[1];
	return s;
}

/* One request (with passed sent along, if >= 0) and its reply: as
 * recv_reply. */
static int ask(uvcuse_ioctl_fn ioctl_call, int fd, uint64_t offset, uint64_t length, int passed,
	       bool *ours, struct uvcuse_buf_reply *rep, int got[2], unsigned *fds)
{
	got[0] = got[1] = -1;
	*fds = 0;
	int s = hello_and_ask(ioctl_call, fd, offset, length, passed, ours);
	if (s < 0)
		return s;
	int err = recv_reply(s, rep, got, fds);
	close(s);
	return err;
}

int uvcuse_fetch_memfd(uvcuse_ioctl_fn ioctl_call, int fd, uint64_t offset, uint64_t length,
		       bool *ours)
{
	struct uvcuse_buf_reply rep;
	int got[2];
	unsigned fds;
	int err = ask(ioctl_call, fd, offset, length, -1, ours, &rep, got, &fds);
	/* exactly one fd is the answer: none may leak */
	if (!err && (fds != 1 || rep.size < length))
		err = -EPROTO;
	if (got[1] >= 0)
		close(got[1]);
	if (err < 0) {
		if (got[0] >= 0)
			close(got[0]);
		return err;
	}
	return got[0];
}

int uvcuse_send_dmabuf(uvcuse_ioctl_fn ioctl_call, int fd, uint64_t offset, int dmabuf,
		       bool *ours)
{
	struct uvcuse_buf_reply rep;
	int got[2];
	unsigned fds;
	int err = ask(ioctl_call, fd, offset, 0, dmabuf, ours, &rep, got, &fds);
	for (int i = 0; i < 2; i++) /* the answer carries none */
		if (got[i] >= 0)
			close(got[i]);
	return err;
}
