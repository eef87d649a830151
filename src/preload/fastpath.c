/* The preload library's fast path (fastpath.h). */
#include "fastpath.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

struct slot {
	atomic_uint busy;  /* try-lock: one thread's request at a time */
	atomic_uint stale; /* the fd was closed or replaced meanwhile */
	atomic_int pid;    /* the process whose channel sock is; 0: none */
	int sock;
	uint64_t sock_dev, sock_ino; /* the socket's identity */
	uint64_t rdev, ino;          /* the node the channel (or refusal) is for */
	uint32_t seq;
	atomic_bool refused; /* the daemon said no for this node: CUSE until fd closes */
};
static struct slot slots[FASTPATH_FDS];

bool fastpath_enabled(void)
{
	static atomic_int on = -1;
	int v = atomic_load_explicit(&on, memory_order_relaxed);
	if (v < 0) {
		const char *e = getenv("UVCUSE_FASTPATH");
		v = !(e && strcmp(e, "0") == 0);
		atomic_store_explicit(&on, v, memory_order_relaxed);
	}
	return v;
}

/* The raw close: ours is interposed and would come back here. */
static void close_raw(int fd)
{
	syscall(SYS_close, fd);
}

/* Whether s->sock still is the socket the slot opened (the app may have
 * closed it and the number been reused). */
static bool sock_ours(const struct slot *s)
{
	struct stat st;
	return fstat(s->sock, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       (uint64_t)st.st_dev == s->sock_dev && (uint64_t)st.st_ino == s->sock_ino;
}

/* Ends the slot's channel (held by the caller). The socket is closed only
 * if it is still ours and this process's. */
static void slot_drop(struct slot *s)
{
	int pid = atomic_load_explicit(&s->pid, memory_order_relaxed);
	if (pid && pid == getpid() && sock_ours(s))
		close_raw(s->sock);
	atomic_store_explicit(&s->pid, 0, memory_order_relaxed);
	s->refused = false;
}

enum chan_call_status chan_call(int sock, uint32_t seq, uint32_t op, struct v4l2_buffer *b,
				int *result, int *memfd)
{
	struct uvcuse_chan_msg m = { .magic = UVCUSE_MAGIC, .op = op, .seq = seq, .buf = *b };
	ssize_t n;
	*memfd = -1;
	do
		n = send(sock, &m, sizeof(m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(m))
		return CHAN_NOT_SENT;
	bool cancelled = false;
	for (;;) {
		struct uvcuse_chan_msg a;
		struct iovec iov = { &a, sizeof(a) };
		union {
			char buf[CMSG_SPACE(2 * sizeof(int))];
			struct cmsghdr align;
		} u;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR) {
			/* A signal without SA_RESTART: a waiting DQBUF ends
			 * -EINTR, as on CUSE, unless its answer crossed. */
			if (op == UVCUSE_CHAN_DQBUF && !cancelled) {
				struct uvcuse_chan_msg c = { .magic = UVCUSE_MAGIC,
							     .op = UVCUSE_CHAN_CANCEL, .seq = seq };
				cancelled = send(sock, &c, sizeof(c), MSG_NOSIGNAL) == (ssize_t)sizeof(c);
			}
			continue;
		}
		if (n <= 0)
			return CHAN_LOST;
		int fd_in = -1;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t j = 0; j < k; j++) {
				int f;
				memcpy(&f, CMSG_DATA(cm) + j * sizeof(int), sizeof(int));
				if (fd_in < 0)
					fd_in = f;
				else
					close_raw(f);
			}
		}
		if (n != (ssize_t)sizeof(a) || a.magic != UVCUSE_MAGIC || a.op != op ||
		    a.seq != seq || (mh.msg_flags & MSG_CTRUNC)) {
			if (fd_in >= 0)
				close_raw(fd_in);
			return CHAN_LOST;
		}
		*result = a.result;
		if (a.result == 0)
			*b = a.buf;
		*memfd = fd_in;
		return CHAN_ANSWERED;
	}
}

/* The slot's channel for node fd (identity st), opened if need be.
 * Returns false when CUSE must serve (*not_ours: fd is no uvcuse node). */
static bool slot_ready(struct slot *s, uvcuse_ioctl_fn next_ioctl, int fd, const struct stat *st,
		       bool *not_ours)
{
	int pid = atomic_load_explicit(&s->pid, memory_order_relaxed);
	if (pid && pid != getpid()) {
		/* forked: the parent's channel is the parent's (our copy of its
		 * socket is closed; the parent keeps its own) */
		if (sock_ours(s))
			close_raw(s->sock);
		atomic_store_explicit(&s->pid, 0, memory_order_relaxed);
		s->refused = false;
	}
	if (atomic_exchange(&s->stale, 0))
		slot_drop(s);
	bool same = s->rdev == (uint64_t)st->st_rdev && s->ino == (uint64_t)st->st_ino;
	if ((atomic_load_explicit(&s->pid, memory_order_relaxed) || s->refused) && !same)
		slot_drop(s);
	if (s->refused)
		return false;
	if (atomic_load_explicit(&s->pid, memory_order_relaxed)) {
		if (sock_ours(s))
			return true;
		/* the app closed our socket: its number is not ours to close */
		atomic_store_explicit(&s->pid, 0, memory_order_relaxed);
	}
	s->rdev = (uint64_t)st->st_rdev;
	s->ino = (uint64_t)st->st_ino;
	bool ours;
	int sock = uvcuse_open_channel(next_ioctl, fd, &ours);
	if (sock < 0) {
		if (!ours && (sock == -ENOTTY || sock == -EINVAL))
			*not_ours = true;
		else if (ours)
			s->refused = true; /* an older daemon, a full file... */
		return false;
	}
	struct stat ss;
	if (fstat(sock, &ss) < 0) {
		close_raw(sock);
		return false;
	}
	s->sock = sock;
	s->sock_dev = (uint64_t)ss.st_dev;
	s->sock_ino = (uint64_t)ss.st_ino;
	s->seq = 0;
	atomic_store_explicit(&s->pid, (int)getpid(), memory_order_relaxed);
	return true;
}

enum fastpath_verdict fastpath_ioctl(uvcuse_ioctl_fn next_ioctl, int fd, const struct stat *st,
				     unsigned long request, struct v4l2_buffer *b, int *ret)
{
	if (fd < 0 || fd >= FASTPATH_FDS || !fastpath_enabled())
		return FASTPATH_NOT_HANDLED;
	/* the kernel checks a USERPTR buffer's pointer in CUSE's retry round */
	if (request == VIDIOC_QBUF && b->memory != V4L2_MEMORY_MMAP)
		return FASTPATH_NOT_HANDLED;
	struct slot *s = &slots[fd];
	unsigned idle = 0;
	if (!atomic_compare_exchange_strong(&s->busy, &idle, 1))
		return FASTPATH_NOT_HANDLED; /* another thread's request: CUSE */
	int saved = errno;
	enum fastpath_verdict v = FASTPATH_NOT_HANDLED;
	bool not_ours = false;
	if (!slot_ready(s, next_ioctl, fd, st, &not_ours)) {
		v = not_ours ? FASTPATH_NOT_OURS : FASTPATH_NOT_HANDLED;
		goto out;
	}
	uint32_t op = request == VIDIOC_QBUF ? UVCUSE_CHAN_QBUF : UVCUSE_CHAN_DQBUF;
	struct v4l2_buffer work = *b;
	int result = 0, memfd = -1;
	enum chan_call_status cs = chan_call(s->sock, ++s->seq, op, &work, &result, &memfd);
	if (cs == CHAN_NOT_SENT) {
		slot_drop(s);
		goto out;
	}
	v = FASTPATH_HANDLED;
	if (cs == CHAN_LOST) {
		/* the daemon went away (or broke the protocol) with our request */
		slot_drop(s);
		*ret = -1;
		saved = ENODEV;
		goto out;
	}
	if (result == -EOPNOTSUPP) { /* the daemon wants this one through CUSE */
		v = FASTPATH_NOT_HANDLED;
		goto out;
	}
	if (result < 0) {
		if (memfd >= 0)
			close_raw(memfd);
		*ret = -1;
		saved = -result;
		goto out;
	}
	*b = work;
	*ret = 0;
	if (op == UVCUSE_CHAN_DQBUF && b->memory == V4L2_MEMORY_USERPTR && b->bytesused) {
		/* the frame is in the buffer's staging memory: pread answers
		 * EFAULT for a bad pointer where a memcpy would crash */
		ssize_t n = memfd >= 0 ? pread(memfd, (void *)b->m.userptr, b->bytesused, 0) : -1;
		if (n != (ssize_t)b->bytesused) {
			*ret = -1;
			saved = memfd < 0 ? EIO : n < 0 ? errno : EIO;
		}
	}
	if (memfd >= 0)
		close_raw(memfd);
out:
	atomic_store_explicit(&s->busy, 0, memory_order_release);
	errno = saved;
	return v;
}

void fastpath_forget(int fd)
{
	if (fd < 0 || fd >= FASTPATH_FDS)
		return;
	struct slot *s = &slots[fd];
	if (!atomic_load_explicit(&s->pid, memory_order_relaxed) && !s->refused)
		return;
	unsigned idle = 0;
	if (atomic_compare_exchange_strong(&s->busy, &idle, 1)) {
		int saved = errno;
		slot_drop(s);
		errno = saved;
		atomic_store_explicit(&s->busy, 0, memory_order_release);
	} else {
		atomic_store(&s->stale, 1); /* its user drops it at its next call */
	}
}
