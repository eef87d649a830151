/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fast path's protocol (include/uvcuse/uvcuse.h): the daemon's end
 * (src/share/channel.c) served from a real loop, and the library's request
 * (chan_call in src/preload/fastpath.c), over socketpairs. Ordering and
 * sequence numbers across the 32-bit wrap, an answer that waits, CANCEL,
 * and peers that break the rules: garbage, a second request before the
 * answer, passed fds, a peer that dies or never reads; the library's own
 * answer to a QBUF it posts. The daemon's end must close the channel and
 * go on, leaking nothing. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "share/channel.h"
#include "fastpath.h"
#include "core/log.h"
#include "core/loop.h"
#include "fd_count.h"
#include "unit_run.h"

static struct loop *loop;
static struct channel *ch;
static int peer = -1;
static int requests, cancels, closes;
static struct uvcuse_chan_msg last;
static bool hold; /* keep the request unanswered (a waiting DQBUF) */

static void on_request(void *ctx, struct channel *c, const struct uvcuse_chan_msg *m)
{
	(void)ctx;
	requests++;
	last = *m;
	if (hold)
		return;
	struct v4l2_buffer b = m->buf;
	b.sequence = m->seq ^ 0x5a5a; /* proves the answer is this request's */
	b.bytesused = b.index * 10;
	channel_answer(c, m->buf.index == 99 ? -EINVAL : 0, &b, -1);
}

static void on_cancel(void *ctx, struct channel *c)
{
	(void)ctx;
	cancels++;
	channel_answer(c, -EINTR, NULL, -1);
}

static void on_closed(void *ctx, struct channel *c)
{
	(void)ctx;
	closes++;
	ck_assert_ptr_eq(c, ch);
	channel_free(c);
	ch = NULL;
}

static const struct channel_ops ops = { on_request, on_cancel, on_closed };

static unsigned fds_before;

static void setup(void)
{
	log_set_level(LOG_LEVEL_ERROR);
	fds_before = open_fd_count();
	ck_assert_int_eq(loop_new(&loop), 0);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(channel_new(loop, sv[0], getpid(), &ops, NULL, &ch), 0);
	peer = sv[1];
	requests = cancels = closes = 0;
	hold = false;
}

static void teardown(void)
{
	if (ch)
		channel_free(ch);
	ch = NULL;
	if (peer >= 0)
		close(peer);
	peer = -1;
	loop_free(loop);
	ck_assert_uint_eq(open_fd_count(), fds_before); /* nothing leaked */
}

static void spin(int times)
{
	for (int i = 0; i < times; i++)
		ck_assert_int_ge(loop_run_once(loop, 0, NULL), 0);
}

static void send_msg(uint32_t op, uint32_t seq, uint32_t index)
{
	struct uvcuse_chan_msg m = { .magic = UVCUSE_MAGIC, .op = op, .seq = seq };
	m.buf.index = index;
	ck_assert_int_eq(send(peer, &m, sizeof(m), 0), (ssize_t)sizeof(m));
}

static bool recv_msg(struct uvcuse_chan_msg *m)
{
	return recv(peer, m, sizeof(*m), MSG_DONTWAIT) == (ssize_t)sizeof(*m);
}

/* --- the form of a message ---------------------------------------------- */

START_TEST(parse_checks_form)
{
	struct uvcuse_chan_msg m = { .magic = UVCUSE_MAGIC, .op = UVCUSE_CHAN_DQBUF }, out;
	ck_assert_int_eq(channel_parse(&m, sizeof(m), &out), 0);
	ck_assert_int_eq(channel_parse(&m, sizeof(m) - 1, &out), -EPROTO);
	ck_assert_int_eq(channel_parse(&m, sizeof(m) + 1, &out), -EPROTO);
	m.op = 0;
	ck_assert_int_eq(channel_parse(&m, sizeof(m), &out), -EPROTO);
	m.op = 77;
	ck_assert_int_eq(channel_parse(&m, sizeof(m), &out), -EPROTO);
	m.op = UVCUSE_CHAN_QBUF;
	m.magic = ~UVCUSE_MAGIC;
	ck_assert_int_eq(channel_parse(&m, sizeof(m), &out), -EPROTO);
}
END_TEST

/* --- a well-behaved peer --------------------------------------------------- */

/* Answers come in order and carry their request's number, across the wrap
 * of the 32-bit sequence. */
START_TEST(answers_in_order_across_wrap)
{
	uint32_t seq = UINT32_MAX - 3;
	for (int i = 0; i < 8; i++, seq++) {
		send_msg(i % 2 ? UVCUSE_CHAN_DQBUF : UVCUSE_CHAN_QBUF, seq, (uint32_t)i);
		spin(1);
		struct uvcuse_chan_msg a;
		ck_assert(recv_msg(&a));
		ck_assert_uint_eq(a.seq, seq);
		ck_assert_uint_eq(a.op, i % 2 ? UVCUSE_CHAN_DQBUF : UVCUSE_CHAN_QBUF);
		ck_assert_int_eq(a.result, 0);
		ck_assert_uint_eq(a.buf.sequence, seq ^ 0x5a5a);
		ck_assert_uint_eq(a.buf.bytesused, (uint32_t)i * 10);
	}
	ck_assert_int_eq(requests, 8);
	ck_assert_uint_eq(channel_requests(ch), 8);
	ck_assert_int_eq(closes, 0);
}
END_TEST

/* A waiting request: no answer until the owner gives one; CANCEL of
 * another number is ignored, of its own answers -EINTR. */
START_TEST(waiting_request_and_cancel)
{
	hold = true;
	send_msg(UVCUSE_CHAN_DQBUF, 41, 0);
	spin(2);
	struct uvcuse_chan_msg a;
	ck_assert(!recv_msg(&a));
	ck_assert(channel_busy(ch));
	send_msg(UVCUSE_CHAN_CANCEL, 40, 0); /* an old one: its answer crossed */
	spin(1);
	ck_assert_int_eq(cancels, 0);
	ck_assert(!recv_msg(&a));
	send_msg(UVCUSE_CHAN_CANCEL, 41, 0);
	spin(1);
	ck_assert_int_eq(cancels, 1);
	ck_assert(recv_msg(&a));
	ck_assert_uint_eq(a.seq, 41);
	ck_assert_int_eq(a.result, -EINTR);
	ck_assert(!channel_busy(ch));
	/* a cancel after the answer changes nothing */
	send_msg(UVCUSE_CHAN_CANCEL, 41, 0);
	spin(1);
	ck_assert_int_eq(cancels, 1);
	ck_assert_int_eq(closes, 0);
}
END_TEST

/* --- peers that break the rules --------------------------------------------- */

START_TEST(garbage_closes)
{
	uint8_t junk[sizeof(struct uvcuse_chan_msg)];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 31 + 7);
	ck_assert_int_eq(send(peer, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	spin(1);
	ck_assert_int_eq(closes, 1);
	ck_assert_int_eq(requests, 0);
	ck_assert_ptr_null(ch);
}
END_TEST

START_TEST(short_and_long_messages_close)
{
	struct uvcuse_chan_msg m = { .magic = UVCUSE_MAGIC, .op = UVCUSE_CHAN_QBUF };
	ck_assert_int_eq(send(peer, &m, 3, 0), 3);
	spin(1);
	ck_assert_int_eq(closes, 1);
	close(peer);
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(channel_new(loop, sv[0], getpid(), &ops, NULL, &ch), 0);
	peer = sv[1];
	char big[sizeof(m) + 64] = { 0 };
	memcpy(big, &m, sizeof(m));
	ck_assert_int_eq(send(peer, big, sizeof(big), 0), (ssize_t)sizeof(big));
	spin(1);
	ck_assert_int_eq(closes, 2);
	ck_assert_int_eq(requests, 0);
}
END_TEST

START_TEST(second_request_before_answer_closes)
{
	hold = true;
	send_msg(UVCUSE_CHAN_DQBUF, 1, 0);
	send_msg(UVCUSE_CHAN_QBUF, 2, 1);
	spin(2);
	ck_assert_int_eq(requests, 1);
	ck_assert_int_eq(closes, 1);
}
END_TEST

/* fds passed to the daemon are refused and not kept */
START_TEST(passed_fds_close_and_do_not_leak)
{
	int extra = memfd_create("x", MFD_CLOEXEC);
	ck_assert_int_ge(extra, 0);
	struct uvcuse_chan_msg m = { .magic = UVCUSE_MAGIC, .op = UVCUSE_CHAN_QBUF, .seq = 1 };
	struct iovec iov = { &m, sizeof(m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &extra, sizeof(int));
	ck_assert_int_eq(sendmsg(peer, &mh, 0), (ssize_t)sizeof(m));
	close(extra);
	spin(1);
	ck_assert_int_eq(closes, 1);
	ck_assert_int_eq(requests, 0);
	/* teardown counts the fds */
}
END_TEST

/* The peer dies with a request waiting: the owner hears of it, no answer. */
START_TEST(peer_dies_while_waiting)
{
	hold = true;
	send_msg(UVCUSE_CHAN_DQBUF, 9, 0);
	spin(1);
	ck_assert(ch && channel_busy(ch));
	close(peer);
	peer = -1;
	spin(1);
	ck_assert_int_eq(closes, 1);
}
END_TEST

/* A peer that sends without reading: the loop never blocks on it; once
 * its answers cannot be sent, the channel closes. */
START_TEST(peer_that_never_reads)
{
	ck_assert_int_eq(fcntl(peer, F_SETFL, O_NONBLOCK), 0);
	int sent = 0;
	for (int round = 0; round < 10000 && ch; round++) {
		struct uvcuse_chan_msg m = { .magic = UVCUSE_MAGIC, .op = UVCUSE_CHAN_QBUF,
					     .seq = (uint32_t)round };
		while (send(peer, &m, sizeof(m), 0) == (ssize_t)sizeof(m))
			sent++;
		spin(1);
	}
	ck_assert_int_eq(closes, 1);
	ck_assert_int_gt(sent, 0);
}
END_TEST

/* --- the library's request (chan_call) --------------------------------------- */

struct fake_daemon {
	int fd;
	int mode; /* 0: right answer with a memfd, 1: wrong seq, 2: two fds, 3: hang up */
};

static void *fake_daemon(void *arg)
{
	struct fake_daemon *f = arg;
	struct uvcuse_chan_msg m;
	if (recv(f->fd, &m, sizeof(m), 0) != (ssize_t)sizeof(m))
		return NULL;
	if (f->mode == 3) {
		shutdown(f->fd, SHUT_RDWR);
		return NULL;
	}
	m.result = 0;
	m.buf.bytesused = 1234;
	if (f->mode == 1)
		m.seq++;
	int fds[2] = { memfd_create("a", MFD_CLOEXEC), memfd_create("b", MFD_CLOEXEC) };
	int nfds = f->mode == 2 ? 2 : 1;
	struct iovec iov = { &m, sizeof(m) };
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int)) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	sendmsg(f->fd, &mh, 0);
	close(fds[0]);
	close(fds[1]);
	return NULL;
}

static enum chan_call_status call_fake(int mode, struct v4l2_buffer *b, int *result, int *memfd)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	struct fake_daemon f = { sv[1], mode };
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, fake_daemon, &f), 0);
	enum chan_call_status s = chan_call(sv[0], 77, UVCUSE_CHAN_DQBUF, b, result, memfd);
	pthread_join(t, NULL);
	close(sv[0]);
	close(sv[1]);
	return s;
}

START_TEST(call_answer_with_memfd)
{
	unsigned before = open_fd_count();
	struct v4l2_buffer b = { .index = 2 };
	int result = -1, memfd = -1;
	ck_assert_int_eq(call_fake(0, &b, &result, &memfd), CHAN_ANSWERED);
	ck_assert_int_eq(result, 0);
	ck_assert_uint_eq(b.bytesused, 1234);
	ck_assert_int_ge(memfd, 0);
	close(memfd);
	ck_assert_uint_eq(open_fd_count(), before);
}
END_TEST

START_TEST(call_refuses_wrong_answers)
{
	unsigned before = open_fd_count();
	struct v4l2_buffer b = { .index = 2 };
	int result = 0, memfd = -1;
	ck_assert_int_eq(call_fake(1, &b, &result, &memfd), CHAN_LOST); /* another seq */
	ck_assert_int_eq(memfd, -1);
	ck_assert_uint_eq(b.bytesused, 0); /* untouched */
	ck_assert_int_eq(call_fake(2, &b, &result, &memfd), CHAN_ANSWERED); /* extra fd closed */
	ck_assert_int_ge(memfd, 0);
	close(memfd);
	ck_assert_int_eq(call_fake(3, &b, &result, &memfd), CHAN_LOST); /* hung up */
	ck_assert_uint_eq(open_fd_count(), before);
}
END_TEST

START_TEST(call_on_dead_socket_not_sent)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]);
	struct v4l2_buffer b = { 0 };
	int result, memfd;
	ck_assert_int_eq(chan_call(sv[0], 1, UVCUSE_CHAN_QBUF, &b, &result, &memfd), CHAN_NOT_SENT);
	close(sv[0]);
}
END_TEST

/* The library's request against the daemon's end, through the loop. */
static void *client_thread(void *arg)
{
	int *out = arg;
	struct v4l2_buffer b = { .index = 99 };
	int result = 0, memfd;
	out[0] = chan_call(out[1], 5, UVCUSE_CHAN_QBUF, &b, &result, &memfd);
	out[2] = result;
	b.index = 3;
	out[0] |= chan_call(out[1], 6, UVCUSE_CHAN_QBUF, &b, &result, &memfd);
	out[3] = result;
	out[4] = (int)b.bytesused;
	out[5] = 1;
	return NULL;
}

START_TEST(call_against_channel)
{
	int io[6] = { 0, peer, 0, 0, 0, 0 };
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, client_thread, io), 0);
	for (int i = 0; i < 2000 && !__atomic_load_n(&io[5], __ATOMIC_ACQUIRE); i++)
		ck_assert_int_ge(loop_run_once(loop, 5, NULL), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(io[0], CHAN_ANSWERED);
	ck_assert_int_eq(io[2], -EINVAL);
	ck_assert_int_eq(io[3], 0);
	ck_assert_int_eq(io[4], 30);
}
END_TEST

/* --- the ring: the library's take ----------------------------------------- */

static void publish(struct uvcuse_ring *r, uint32_t gen, uint32_t count)
{
	for (uint32_t k = 0; k < count; k++) {
		struct v4l2_buffer *e = &r->entry[k % UVCUSE_RING_ENTRIES];
		memset(e, 0, sizeof(*e));
		e->index = k % 4;
		e->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		e->memory = V4L2_MEMORY_MMAP;
		e->sequence = 100 + k;
	}
	__atomic_store_n(&r->published, ((uint64_t)gen << 32) | count, __ATOMIC_RELEASE);
}

START_TEST(ring_takes_in_order_once)
{
	static struct uvcuse_ring r;
	memset(&r, 0, sizeof(r));
	r.taken = (uint64_t)7 << 32;
	publish(&r, 7, 3);
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	for (uint32_t k = 0; k < 3; k++) {
		ck_assert(fastpath_ring_ready(&r)); /* poll() answers POLLIN */
		b.sequence = 0;
		ck_assert(fastpath_ring_take(&r, &b));
		ck_assert_uint_eq(b.sequence, 100 + k);
	}
	ck_assert(!fastpath_ring_ready(&r));
	ck_assert(!fastpath_ring_take(&r, &b)); /* all taken */
	ck_assert_uint_eq(r.taken, ((uint64_t)7 << 32) | 3);
}
END_TEST

/* A revocation (the daemon moved 'taken' to a new generation) wins over a
 * take: nothing of the old generation can be taken after it. */
START_TEST(ring_revoked_entries_cannot_be_taken)
{
	static struct uvcuse_ring r;
	memset(&r, 0, sizeof(r));
	r.taken = (uint64_t)1 << 32;
	publish(&r, 1, 2);
	r.taken = (uint64_t)2 << 32; /* revoked; 'published' still of gen 1 */
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	ck_assert(!fastpath_ring_ready(&r));
	ck_assert(!fastpath_ring_take(&r, &b));
	ck_assert_uint_eq(r.taken, (uint64_t)2 << 32);
	publish(&r, 2, 1);
	ck_assert(fastpath_ring_take(&r, &b));
	ck_assert_uint_eq(b.sequence, 100);
}
END_TEST

/* A DQBUF of another type or memory is the daemon's to refuse: no take. */
START_TEST(ring_other_type_not_taken)
{
	static struct uvcuse_ring r;
	memset(&r, 0, sizeof(r));
	publish(&r, 0, 1);
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP };
	ck_assert(!fastpath_ring_take(&r, &b));
	b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	b.memory = V4L2_MEMORY_USERPTR;
	ck_assert(!fastpath_ring_take(&r, &b));
	ck_assert_uint_eq(r.taken, 0);
}
END_TEST

/* The QBUF answer the library gives itself: the daemon's kept answer for
 * that buffer plus the app's flags QBUF keeps; nothing when the ring does
 * not offer it, keeps nothing valid for the buffer (its bit clear, or the
 * daemon writing: an odd or moved seqlock), or the QBUF is unusual. */
START_TEST(posted_answer_from_kept)
{
	static struct uvcuse_ring r;
	memset(&r, 0, sizeof(r));
	struct v4l2_buffer in = { .index = 3, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				  .memory = V4L2_MEMORY_MMAP,
				  .flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_DONE | 0x10000000 };
	struct v4l2_buffer out;
	struct v4l2_buffer kept = { .index = 3, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				    .memory = V4L2_MEMORY_MMAP, .length = 4096, .m.offset = 8192,
				    .flags = V4L2_BUF_FLAG_QUEUED | V4L2_BUF_FLAG_MAPPED };
	r.qbuf[3] = kept;
	r.qbuf_keep_flags = 0x10000000;
	r.qbuf_valid = 1u << 3;
	ck_assert(!fastpath_posted_answer(&r, &in, &out)); /* not offered */
	r.features = UVCUSE_RING_QBUF_POSTED;
	r.qbuf_seq = 5; /* the daemon writing */
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	r.qbuf_seq = 6;
	r.qbuf_valid = 1u << 4; /* forgotten */
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	r.qbuf_valid = 1u << 3;
	ck_assert(fastpath_posted_answer(&r, &in, &out));
	ck_assert_uint_eq(out.flags, V4L2_BUF_FLAG_QUEUED | V4L2_BUF_FLAG_MAPPED | 0x10000000);
	ck_assert_uint_eq(out.m.offset, 8192);
	ck_assert_uint_eq(out.length, 4096);
	ck_assert_uint_eq(out.index, 3);
	in.flags |= V4L2_BUF_FLAG_REQUEST_FD; /* the daemon's to refuse (EBADR) */
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	in.flags = 0;
	in.memory = V4L2_MEMORY_USERPTR;
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	in.memory = V4L2_MEMORY_MMAP;
	in.index = 4; /* nothing kept */
	r.qbuf_valid |= 1u << 4; /* even if the bit says so: zeroes are no answer */
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	in.index = 99;
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	in.index = 3;
	r.qbuf[3].index = 5; /* kept for another buffer */
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	r.qbuf[3] = kept;
	r.qbuf[3].flags = 0; /* not a QBUF answer */
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	/* DMABUF: only the dma-buf and length the buffer was queued with */
	r.qbuf[3] = kept;
	r.qbuf[3].memory = V4L2_MEMORY_DMABUF;
	r.qbuf[3].m.fd = 17;
	in.memory = V4L2_MEMORY_DMABUF;
	in.m.fd = 17;
	in.length = 4096;
	ck_assert(fastpath_posted_answer(&r, &in, &out));
	ck_assert_int_eq(out.m.fd, 17);
	in.m.fd = 18;
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
	in.m.fd = 17;
	in.length = 0; /* the whole dma-buf: the daemon decides what that is */
	ck_assert(!fastpath_posted_answer(&r, &in, &out));
}
END_TEST

/* Two threads taking from one ring at once get each entry exactly once. */
static struct uvcuse_ring race_ring;
static void *taker(void *arg)
{
	uint32_t *seen = arg;
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP };
	for (int spins = 0; spins < 100000; spins++) {
		if (fastpath_ring_take(&race_ring, &b))
			seen[b.sequence - 100]++;
		if ((uint32_t)__atomic_load_n(&race_ring.taken, __ATOMIC_ACQUIRE) == UVCUSE_RING_ENTRIES)
			break;
	}
	return NULL;
}

START_TEST(ring_concurrent_takes_once_each)
{
	memset(&race_ring, 0, sizeof(race_ring));
	publish(&race_ring, 0, UVCUSE_RING_ENTRIES);
	static uint32_t seen_a[UVCUSE_RING_ENTRIES], seen_b[UVCUSE_RING_ENTRIES];
	memset(seen_a, 0, sizeof(seen_a));
	memset(seen_b, 0, sizeof(seen_b));
	pthread_t t1, t2;
	pthread_create(&t1, NULL, taker, seen_a);
	pthread_create(&t2, NULL, taker, seen_b);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	for (unsigned k = 0; k < UVCUSE_RING_ENTRIES; k++)
		ck_assert_uint_eq(seen_a[k] + seen_b[k], 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("channel");
	TCase *tc = tcase_create("channel");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parse_checks_form);
	tcase_add_test(tc, answers_in_order_across_wrap);
	tcase_add_test(tc, waiting_request_and_cancel);
	tcase_add_test(tc, garbage_closes);
	tcase_add_test(tc, short_and_long_messages_close);
	tcase_add_test(tc, second_request_before_answer_closes);
	tcase_add_test(tc, passed_fds_close_and_do_not_leak);
	tcase_add_test(tc, peer_dies_while_waiting);
	tcase_add_test(tc, peer_that_never_reads);
	tcase_add_test(tc, call_answer_with_memfd);
	tcase_add_test(tc, call_refuses_wrong_answers);
	tcase_add_test(tc, call_on_dead_socket_not_sent);
	tcase_add_test(tc, call_against_channel);
	tcase_add_test(tc, ring_takes_in_order_once);
	tcase_add_test(tc, ring_revoked_entries_cannot_be_taken);
	tcase_add_test(tc, ring_other_type_not_taken);
	tcase_add_test(tc, ring_concurrent_takes_once_each);
	tcase_add_test(tc, posted_answer_from_kept);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
