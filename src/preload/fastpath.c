/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The preload library's fast path (fastpath.h): the slots and their
 * channels, QBUF and DQBUF; poll() is fastpath_poll.c's. */
#include "fastpath_priv.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uvcuse/passed_fds.h"

struct slot fastpath_slots[FASTPATH_FDS];
atomic_int fastpath_rings_mapped;
/* For each fd that is one of our channel sockets: its slot's fd + 1; one
 * of our doorbells: -(its slot's fd + 1). */
static atomic_int sock_owner[FASTPATH_FDS];

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

/* This process's id without a syscall per request (a syscall costs tens of
 * microseconds in the test VM): cached, forgotten in a forked child
 * (pthread_atfork, and fastpath_forked() for raw fork syscalls). */
static atomic_int cached_pid;

void fastpath_forked(void)
{
	atomic_store_explicit(&cached_pid, 0, memory_order_relaxed);
	/* the pollers were the parent's threads: none in this process (only
	 * a slot with a ring has any; every forking process runs this) */
	if (!atomic_load_explicit(&fastpath_rings_mapped, memory_order_relaxed))
		return;
	for (unsigned fd = 0; fd < FASTPATH_FDS; fd++)
		atomic_store_explicit(&fastpath_slots[fd].pollers, 0, memory_order_relaxed);
}

static atomic_flag atfork_registered = ATOMIC_FLAG_INIT;

void fastpath_init(void)
{
	if (!atomic_flag_test_and_set(&atfork_registered))
		pthread_atfork(NULL, NULL, fastpath_forked);
}

static int self_pid(void)
{
	int pid = atomic_load_explicit(&cached_pid, memory_order_relaxed);
	if (__builtin_expect(pid != 0, 1))
		return pid;
	fastpath_init(); /* before the library's constructor ran: once */
	pid = (int)getpid();
	atomic_store_explicit(&cached_pid, pid, memory_order_relaxed);
	return pid;
}

/* The raw close: ours is interposed and would come back here. */
static int close_raw(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static void release_channel(struct uvcuse_ring *ring, int sock, int bell)
{
	if (ring) /* a forked child's copy of the mapping only */
		syscall(SYS_munmap, ring, sizeof(*ring));
	if (sock >= 0)
		close_raw(sock);
	if (bell >= 0)
		close_raw(bell);
}

void fastpath_slot_reap(struct slot *s)
{
	if (!atomic_load(&s->zombie) || atomic_load(&s->pollers))
		return;
	release_channel(s->z_ring, s->z_sock, s->z_bell);
	atomic_store(&s->zombie, false);
}

/* Ends the slot's channel (held by the caller). The socket and doorbell
 * are closed only if they are still ours (a forked child closes its copies
 * too), and kept, with the ring, while pollers wait on them. */
static void slot_drop(struct slot *s)
{
	int pid = atomic_load_explicit(&s->pid, memory_order_relaxed);
	int sock = -1, bell = -1;
	if (pid) {
		atomic_store(&sock_owner[s->sock], 0);
		if (!atomic_exchange(&s->sock_lost, 0))
			sock = s->sock;
		if (s->bell >= 0) {
			atomic_store(&sock_owner[s->bell], 0);
			if (!atomic_exchange(&s->bell_lost, 0))
				bell = s->bell;
		}
	}
	if (s->ring)
		atomic_fetch_sub(&fastpath_rings_mapped, 1);
	if (atomic_load(&s->pollers) && !atomic_load(&s->zombie)) {
		s->z_ring = s->ring;
		s->z_sock = sock;
		s->z_bell = bell;
		atomic_store(&s->zombie, true);
	} else {
		release_channel(s->ring, sock, bell);
	}
	s->ring = NULL;
	s->bell = -1;
	s->held = 0;
	atomic_store(&s->sock_lost, 0);
	atomic_store(&s->bell_lost, 0);
	atomic_store_explicit(&s->pid, 0, memory_order_relaxed);
	atomic_store(&s->refused, false);
}

enum chan_call_status chan_call(int sock, uint32_t seq, uint32_t op, uvcuse_wire_buffer *b,
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
		int fd_in;
		uvcuse_take_passed_fds(&mh, &fd_in, 1, close_raw);
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

/* The daemon's ring (memfd ring_fd, closed here), mapped, or NULL: then
 * every DQBUF is a round trip. */
static struct uvcuse_ring *ring_map(int ring_fd)
{
	if (ring_fd < 0)
		return NULL;
	struct stat st;
	void *p = MAP_FAILED;
	if (fstat(ring_fd, &st) == 0 && (uint64_t)st.st_size >= sizeof(struct uvcuse_ring))
		p = (void *)syscall(SYS_mmap, NULL, sizeof(struct uvcuse_ring),
				    PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0);
	close_raw(ring_fd);
	if (p == MAP_FAILED)
		return NULL;
	struct uvcuse_ring *r = p;
	if (r->magic != UVCUSE_MAGIC || r->size != sizeof(*r)) {
		syscall(SYS_munmap, p, sizeof(struct uvcuse_ring));
		return NULL;
	}
	return r;
}

bool fastpath_ring_take(struct uvcuse_ring *r, uvcuse_wire_buffer *b)
{
	/* a few tries: a lost race with a revocation means no entry */
	for (int tries = 0; tries < 4; tries++) {
		uint64_t t = __atomic_load_n(&r->taken, __ATOMIC_ACQUIRE);
		uint64_t p = __atomic_load_n(&r->published, __ATOMIC_ACQUIRE);
		if ((t >> 32) != (p >> 32) || (uint32_t)t >= (uint32_t)p)
			return false;
		uvcuse_wire_buffer e;
		memcpy(&e, &r->entry[(uint32_t)t % UVCUSE_RING_ENTRIES], sizeof(e));
		/* anything else is the daemon's to answer (EINVAL...) */
		if (e.type != b->type || e.memory != b->memory)
			return false;
		if (__atomic_compare_exchange_n(&r->taken, &t, t + 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			*b = e;
			return true;
		}
	}
	return false;
}

/* The app got buffer b by DQBUF on this fd: its QBUF may be posted, if
 * the daemon keeps an answer for it. */
static void note_held(struct slot *s, const uvcuse_wire_buffer *b)
{
	if (s->ring && (b->memory == V4L2_MEMORY_MMAP || b->memory == V4L2_MEMORY_DMABUF) &&
	    b->index < UVCUSE_RING_ENTRIES)
		s->held |= 1u << b->index;
}

bool fastpath_posted_answer(const struct uvcuse_ring *r, const uvcuse_wire_buffer *b,
			    uvcuse_wire_buffer *answer)
{
	if (!(r->features & UVCUSE_RING_QBUF_POSTED) || b->index >= UVCUSE_RING_ENTRIES ||
	    b->type != V4L2_BUF_TYPE_VIDEO_CAPTURE ||
	    (b->memory != V4L2_MEMORY_MMAP && b->memory != V4L2_MEMORY_DMABUF) ||
	    (b->flags & V4L2_BUF_FLAG_REQUEST_FD))
		return false;
	/* the daemon's seqlock: a copy made while it wrote is not used */
	uint32_t seq = __atomic_load_n(&r->qbuf_seq, __ATOMIC_ACQUIRE);
	if (seq & 1)
		return false;
	uint32_t valid = __atomic_load_n(&r->qbuf_valid, __ATOMIC_RELAXED);
	uvcuse_wire_buffer a;
	memcpy(&a, &r->qbuf[b->index], sizeof(a));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&r->qbuf_seq, __ATOMIC_RELAXED) != seq || !(valid & (1u << b->index)))
		return false;
	/* not what QBUF of this buffer answers: the daemon decides */
	if (a.index != b->index || a.type != b->type || a.memory != b->memory ||
	    !(a.flags & V4L2_BUF_FLAG_QUEUED))
		return false;
	/* a DMABUF buffer only as it was queued before: the same dma-buf (the
	 * caller made sure the daemon's is the app's, dmabuf_import.c) and
	 * length; anything else is the daemon's to check */
	if (b->memory == V4L2_MEMORY_DMABUF && (a.m.fd != b->m.fd || a.length != b->length))
		return false;
	a.flags |= b->flags & r->qbuf_keep_flags;
	*answer = a;
	return true;
}

/* QBUF of a buffer the app holds, answered here from what the daemon kept
 * and posted in the ring (no system call). False: it takes the round trip
 * (or CUSE). */
static bool post_qbuf(struct slot *s, uvcuse_wire_buffer *b)
{
	if (!s->ring || b->index >= UVCUSE_RING_ENTRIES)
		return false;
	uint32_t bit = 1u << b->index;
	/* not got by DQBUF on this fd: the daemon's to judge */
	if (!(s->held & bit))
		return false;
	s->held &= ~bit; /* once: a second QBUF is the daemon's to refuse */
	uvcuse_wire_buffer answer;
	if (!fastpath_posted_answer(s->ring, b, &answer) || !fastpath_ring_post(s->ring, b))
		return false; /* the round trip (after the posts, in order) */
	*b = answer;
	return true;
}

bool fastpath_ring_post(struct uvcuse_ring *r, const uvcuse_wire_buffer *b)
{
	/* one poster per ring (the slot's lock): 'posted' is ours */
	uint32_t posted = __atomic_load_n(&r->posted, __ATOMIC_RELAXED);
	uint32_t consumed = __atomic_load_n(&r->consumed, __ATOMIC_ACQUIRE);
	if (posted - consumed >= UVCUSE_RING_ENTRIES)
		return false; /* full: the daemon is behind */
	struct uvcuse_ring_post *p = &r->post[posted % UVCUSE_RING_ENTRIES];
	p->index = b->index;
	p->flags = b->flags;
	/* the entry first, then the count that shows it (and the take of the
	 * buffer, made before, with it) */
	__atomic_store_n(&r->posted, posted + 1, __ATOMIC_RELEASE);
	return true;
}

bool fastpath_slot_live(struct slot *s)
{
	int pid = atomic_load_explicit(&s->pid, memory_order_relaxed);
	return pid && pid == self_pid() && !atomic_load(&s->stale) && !atomic_load(&s->sock_lost);
}

bool fastpath_slot_serves(struct slot *s, int fd)
{
	if (!fastpath_slot_live(s))
		return false;
	struct stat st;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_rdev == s->rdev && (uint64_t)st.st_ino == s->ino)
		return true;
	atomic_store(&s->stale, 1);
	return false;
}

/* Opens the slot's channel for node fd (held by the caller), or says why
 * not: false when CUSE must serve (*not_ours: fd is no uvcuse node). */
static bool slot_open(struct slot *s, const struct fastpath_probe *probe, int fd, bool *not_ours)
{
	/* a channel that is not live: of the parent (a forked child closes
	 * its copy of the socket; the parent keeps its own), or of a node fd
	 * closed since, or with its socket closed behind us */
	atomic_store(&s->stale, 0);
	slot_drop(s);
	fastpath_slot_reap(s);
	if (atomic_load(&s->zombie))
		return false; /* the old channel's pollers still wait: CUSE meanwhile */
	struct stat st;
	if (!probe->maybe_node(fd, &st))
		return false;
	bool same = s->rdev == (uint64_t)st.st_rdev && s->ino == (uint64_t)st.st_ino;
	if (atomic_load(&s->refused)) {
		if (same)
			return false;
		atomic_store(&s->refused, false);
	}
	s->rdev = (uint64_t)st.st_rdev;
	s->ino = (uint64_t)st.st_ino;
	bool ours;
	int ring_fd, bell;
	int sock = uvcuse_open_channel(probe->next_ioctl, fd, &ours, &ring_fd, &bell);
	if (sock < 0) {
		if (!ours && (sock == -ENOTTY || sock == -EINVAL)) {
			*not_ours = true;
			probe->not_ours(fd, &st);
		} else if (ours) {
			atomic_store(&s->refused, true); /* an older daemon, a full file... */
		}
		return false;
	}
	if (sock >= FASTPATH_FDS) { /* untracked: its closing could not be seen */
		close_raw(sock);
		if (ring_fd >= 0)
			close_raw(ring_fd);
		if (bell >= 0)
			close_raw(bell);
		return false;
	}
	s->ring = ring_map(ring_fd);
	if (s->ring)
		atomic_fetch_add(&fastpath_rings_mapped, 1);
	if (bell >= FASTPATH_FDS || (bell >= 0 && !s->ring)) { /* untracked, or no use */
		close_raw(bell);
		bell = -1;
	}
	s->bell = bell;
	atomic_store(&s->bell_lost, 0);
	if (bell >= 0)
		atomic_store(&sock_owner[bell], -(fd + 1));
	s->sock = sock;
	s->seq = 0;
	atomic_store(&s->sock_lost, 0);
	atomic_store(&sock_owner[sock], fd + 1);
	atomic_store_explicit(&s->pid, self_pid(), memory_order_relaxed);
	return true;
}

/* fastpath_ioctl on the wire's layout. */
static enum fastpath_verdict wire_ioctl(const struct fastpath_probe *probe, int fd, uint32_t op,
					uvcuse_wire_buffer *b, int *ret)
{
	/* the kernel checks a USERPTR buffer's pointer in CUSE's retry round */
	if (op == UVCUSE_CHAN_QBUF && b->memory == V4L2_MEMORY_USERPTR)
		return FASTPATH_NOT_HANDLED;
	struct slot *s = &fastpath_slots[fd];
	unsigned idle = 0;
	if (!atomic_compare_exchange_strong(&s->busy, &idle, 1))
		return FASTPATH_NOT_HANDLED; /* another thread's request: CUSE */
	int saved = errno;
	enum fastpath_verdict v = FASTPATH_NOT_HANDLED;
	bool not_ours = false;
	/* The ring's answers trust a live slot without an fstat (a system
	 * call costs more than the kernel's whole DQBUF in a slow guest):
	 * every close the library sees forgets the slot, a number reused
	 * behind its back is caught by the check before the channel below
	 * and by poll()'s (fastpath_poll.c), and the ring only answers for
	 * buffers of a stream that went through them. */
	if (fastpath_slot_live(s) && s->ring) {
		if (op == UVCUSE_CHAN_DQBUF && fastpath_ring_take(s->ring, b)) {
			*ret = 0; /* a done buffer the daemon published */
			note_held(s, b);
			v = FASTPATH_HANDLED;
			goto out;
		}
		if (op == UVCUSE_CHAN_QBUF && post_qbuf(s, b)) {
			*ret = 0; /* answered here, sent without waiting */
			v = FASTPATH_HANDLED;
			goto out;
		}
	}
	if (!fastpath_slot_serves(s, fd) && !slot_open(s, probe, fd, &not_ours)) {
		v = not_ours ? FASTPATH_NOT_OURS : FASTPATH_NOT_HANDLED;
		goto out;
	}
	uvcuse_wire_buffer work = *b;
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
	if (op == UVCUSE_CHAN_DQBUF)
		note_held(s, b);
	if (op == UVCUSE_CHAN_DQBUF && b->memory == V4L2_MEMORY_USERPTR && b->bytesused) {
		/* the frame is in the buffer's staging memory: pread answers
		 * EFAULT for a bad pointer where a memcpy would crash */
		ssize_t n = memfd >= 0 ? pread(memfd, (void *)(uintptr_t)b->m.userptr,
						b->bytesused, 0) : -1;
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

enum fastpath_verdict fastpath_ioctl(const struct fastpath_probe *probe, int fd,
				     unsigned long request, void *b, int *ret)
{
	uint32_t op;
	if (fd < 0 || fd >= FASTPATH_FDS || !fastpath_enabled() || !fastpath_wire_op(request, &op))
		return FASTPATH_NOT_HANDLED;
#if UINTPTR_MAX == UINT64_MAX
	return wire_ioctl(probe, fd, op, b, ret); /* the wire's layout is the app's */
#else
	uvcuse_wire_buffer w;
	fastpath_wire_from_app(request, b, &w);
	enum fastpath_verdict v = wire_ioctl(probe, fd, op, &w, ret);
	if (v == FASTPATH_HANDLED && *ret == 0)
		fastpath_wire_to_app(request, &w, b);
	return v;
#endif
}

bool fastpath_ring_ready(const struct uvcuse_ring *r)
{
	uint64_t t = __atomic_load_n(&r->taken, __ATOMIC_ACQUIRE);
	uint64_t p = __atomic_load_n(&r->published, __ATOMIC_ACQUIRE);
	return (t >> 32) == (p >> 32) && (uint32_t)t < (uint32_t)p;
}

void fastpath_forget(int fd)
{
	if (fd < 0 || fd >= FASTPATH_FDS)
		return;
	/* one of our sockets closed by the app (a close-all loop...): its
	 * channel must not use the number again */
	int owner = atomic_load_explicit(&sock_owner[fd], memory_order_relaxed);
	if (__builtin_expect(owner != 0, 0) && (owner = atomic_exchange(&sock_owner[fd], 0))) {
		if (owner > 0)
			atomic_store(&fastpath_slots[owner - 1].sock_lost, 1);
		else
			atomic_store(&fastpath_slots[-owner - 1].bell_lost, 1);
	}
	struct slot *s = &fastpath_slots[fd];
	if (!atomic_load_explicit(&s->pid, memory_order_relaxed) && !atomic_load(&s->refused))
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

void fastpath_check_fd(int fd)
{
	if (fd < 0 || fd >= FASTPATH_FDS)
		return;
	struct slot *s = &fastpath_slots[fd];
	if (!atomic_load_explicit(&s->pid, memory_order_relaxed))
		return; /* no channel: nothing the ring could answer */
	int saved = errno;
	(void)fastpath_slot_serves(s, fd); /* marks it stale if fd is another file */
	errno = saved;
}

void fastpath_test_attach(int fd, struct uvcuse_ring *r, int sock, int bell)
{
	struct slot *s = &fastpath_slots[fd];
	struct stat st;
	if (fstat(fd, &st) == 0) {
		s->rdev = (uint64_t)st.st_rdev;
		s->ino = (uint64_t)st.st_ino;
	}
	s->ring = r;
	s->sock = sock;
	s->bell = bell;
	s->seq = 0;
	atomic_store(&s->stale, 0); /* as slot_open leaves a new channel */
	atomic_store(&s->sock_lost, 0);
	atomic_store(&s->bell_lost, 0);
	atomic_fetch_add(&fastpath_rings_mapped, 1);
	atomic_store(&sock_owner[sock], fd + 1);
	if (bell >= 0)
		atomic_store(&sock_owner[bell], -(fd + 1));
	atomic_store_explicit(&s->pid, self_pid(), memory_order_relaxed);
}
