/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The private ABI between the uvcuse daemon and its preload library
 * (libuvcuse-preload.so, src/preload/).
 *
 * Linux CUSE cannot mmap, so the library maps the daemon's buffer memory
 * itself: it proves it holds the node open with UVCUSE_IOC_HELLO (answered
 * only by uvcuse, on that open file), then asks the daemon's buffer socket
 * for the memfd behind a QUERYBUF offset:
 *
 *   ioctl(node, UVCUSE_IOC_HELLO, &hello)     -> magic, version, token, socket
 *   connect(hello.socket_path) (SOCK_SEQPACKET)
 *   send(struct uvcuse_buf_request)           token + m.offset + length
 *   recvmsg(struct uvcuse_buf_reply)          status + the memfd (SCM_RIGHTS)
 *   mmap(memfd, offset 0)
 *
 * A token is random, valid once, and bound to the open file it was issued
 * on and to the caller's process and user: the daemon serves a request only
 * when SO_PEERCRED of the connection shows that process (its thread group)
 * and user. One request per connection. All fields in host byte order.
 *
 * Two more private ioctls carry what CUSE does not:
 *  - UVCUSE_IOC_SET_FLAGS: the file's O_NONBLOCK after fcntl(F_SETFL) or
 *    FIONBIO (CUSE tells the daemon the file flags only at open and read);
 *  - UVCUSE_IOC_DQBUF_STAGED: VIDIOC_DQBUF of a USERPTR queue that leaves
 *    the frame in the daemon's staging memory of that buffer, which the
 *    library then fetches (offset UVCUSE_STAGING_OFFSET(index)) and copies
 *    to the app's pointer: no 128 KiB limit of a CUSE ioctl reply.
 *
 * The fast path (the "channel"): a buffer socket request for offset
 * UVCUSE_CHANNEL_OFFSET is answered status 0, and the connection then stays
 * open as that open file's channel for the per-frame traffic, which then
 * costs no CUSE round trip (two per ioctl):
 *
 *   send(struct uvcuse_chan_msg)  op QBUF or DQBUF, seq, the v4l2_buffer
 *   recv(struct uvcuse_chan_msg)  the same op and seq, result, the
 *                                 v4l2_buffer as VIDIOC_QBUF/DQBUF leave it;
 *                                 a USERPTR DQBUF's answer carries the
 *                                 buffer's staging memfd, to pread from
 *   send(op CANCEL, seq)          the caller of a waiting DQBUF was
 *                                 interrupted: the daemon answers it -EINTR
 *                                 unless it was answered already
 *
 * One request at a time per connection; a request runs as the same ioctl
 * on the file would (its queue, ownership and O_NONBLOCK), a blocking DQBUF
 * waits on the connection. Anything else (a wrong size, magic or op, a
 * second request before the answer, passed fds) closes the channel; the
 * library then goes through CUSE, which always works. A USERPTR QBUF is
 * refused (-EOPNOTSUPP: through CUSE the kernel checks the pointer). poll()
 * stays on the node fd.
 *
 * The answer to the channel request may carry a memfd: the ring, a struct
 * uvcuse_ring the library maps shared (and then an eventfd: its doorbell,
 * see UVCUSE_RING_POLL_BELL). The daemon publishes in it, in
 * order, what DQBUF would answer for each done buffer of the file's MMAP
 * or DMABUF queue; the library's DQBUF takes the next entry with one compare-and-swap
 * on 'taken' (no system call, no round trip), and the daemon applies the
 * takes (dequeues those buffers) before it next touches the queue. Before
 * anything else may change what DQBUF answers (another request of the
 * file, a DQBUF through the channel, a stream error, an unplug), the
 * daemon revokes the entries not taken: it moves 'taken' to a new
 * generation with a compare-and-swap, so a take and a revocation never
 * both win. 'taken' beyond 'published', or of another generation, is the
 * peer breaking the protocol: the channel closes.
 *
 * QBUF without waiting (ring feature UVCUSE_RING_QBUF_POSTED): before a
 * buffer's DQBUF answer is published or sent, the daemon writes in
 * qbuf[index] what QBUF of that buffer will answer (no app flags) and sets
 * bit index of qbuf_valid; it clears the bits before it answers anything
 * that could change that answer (any CUSE ioctl of the file, a DQBUF or
 * QBUF through a channel, a stream error, an unplug), under the seqlock
 * qbuf_seq (odd while it writes). A QBUF of a buffer the library got by
 * DQBUF on that fd, whose bit is set (a DMABUF buffer only with the m.fd and
 * length of qbuf[index]), is answered by the library from
 * qbuf[] (plus the app's flags QBUF keeps, qbuf_keep_flags) and posted in
 * post[] (no system call): the daemon runs the posted QBUFs, in order,
 * before it serves anything of the process's queue (any request, poll
 * included) and before a frame needs a buffer, so a posted QBUF is never
 * overtaken by the app's next call. What can still make it fail is
 * something the app did not order after it (an unplug, a stream error,
 * another thread's STREAMOFF): as a QBUF that won and then met that event,
 * the buffer is simply not filled. */
#ifndef UVCUSE_UVCUSE_H
#define UVCUSE_UVCUSE_H

#include <linux/ioctl.h>
#include <linux/videodev2.h>
#include <stdint.h>

#define UVCUSE_MAGIC 0x75637573u /* "sucu": "ucus" in memory on little endian */
#define UVCUSE_ABI_VERSION 1u
#define UVCUSE_TOKEN_LEN 16
#define UVCUSE_SOCKET_PATH_MAX 108 /* sizeof(sockaddr_un.sun_path) */

struct uvcuse_hello {
	uint32_t magic;        /* UVCUSE_MAGIC */
	uint32_t abi_version;  /* UVCUSE_ABI_VERSION */
	uint8_t token[UVCUSE_TOKEN_LEN];
	char socket_path[UVCUSE_SOCKET_PATH_MAX]; /* NUL-terminated */
};

/* 'u' 0x01: 'u' 0x20-0x3f is uvcvideo's, 0x40-0x4f udmabuf's; 0x00-0x1f
 * belonged to the long-gone smbfs. The size and direction are part of the
 * number too, so no V4L2/UVC driver answers it: ENOTTY elsewhere. */
#define UVCUSE_IOC_HELLO _IOR('u', 0x01, struct uvcuse_hello)

struct uvcuse_buf_request {
	uint32_t magic;        /* UVCUSE_MAGIC */
	uint32_t abi_version;  /* UVCUSE_ABI_VERSION */
	uint8_t token[UVCUSE_TOKEN_LEN];
	uint64_t offset;       /* QUERYBUF's m.offset (the mmap offset) */
	uint64_t length;       /* the mmap length */
};

struct uvcuse_buf_reply {
	uint32_t magic;        /* UVCUSE_MAGIC */
	int32_t status;        /* 0: a memfd comes with this message; -errno */
	uint64_t size;         /* the buffer's size (the memfd's, >= length) */
};

struct uvcuse_file_flags {
	uint32_t magic;        /* UVCUSE_MAGIC */
	uint32_t flags;        /* the file's status flags (F_GETFL); O_NONBLOCK is used */
};

#define UVCUSE_IOC_SET_FLAGS _IOW('u', 0x02, struct uvcuse_file_flags)

/* As VIDIOC_DQBUF; for a V4L2_MEMORY_USERPTR queue the frame is not
 * written to m.userptr but left for the caller to fetch. */
#define UVCUSE_IOC_DQBUF_STAGED _IOWR('u', 0x03, struct v4l2_buffer)

/* VIDIOC_EXPBUF without the fd, which CUSE cannot hand back: the daemon
 * checks the request as vb2 does and answers 0 with reserved[0] the
 * buffer's mmap offset, for which the buffer socket then hands a dma-buf
 * (UVCUSE_DMABUF_FLAG); ENOTTY, whatever the argument, where the daemon
 * makes no dma-bufs (no /dev/udmabuf), as a driver that cannot export. */
#define UVCUSE_IOC_EXPBUF _IOWR('u', 0x04, struct v4l2_exportbuffer)

/* The buffer request offset naming USERPTR buffer INDEX's staging memory
 * (QUERYBUF offsets of MMAP buffers are below 2^32). */
#define UVCUSE_STAGING_FLAG (UINT64_C(1) << 63)
#define UVCUSE_STAGING_OFFSET(index) (UVCUSE_STAGING_FLAG | (uint64_t)(index))

/* A buffer request for UVCUSE_DMABUF_FLAG | a QUERYBUF offset is answered
 * with a dma-buf over that MMAP buffer's memory (VIDIOC_EXPBUF, made by the
 * daemon through /dev/udmabuf) in place of its memfd; -ENOTTY where the
 * daemon cannot make one. */
#define UVCUSE_DMABUF_FLAG (UINT64_C(1) << 61)

/* DMABUF import (VIDIOC_QBUF or PREPARE_BUF of V4L2_MEMORY_DMABUF buffers;
 * CUSE carries no fd): the library sends the app's dma-buf (SCM_RIGHTS)
 * with a buffer request for UVCUSE_IMPORT_OFFSET(index, fd), fd the app's
 * number for it (QBUF's m.fd, which QUERYBUF and DQBUF give back), length
 * 0. The daemon maps it as DMABUF buffer index's memory for the file that
 * said HELLO and answers status only: 0, -EINVAL (not a dma-buf, not
 * mappable, no such DMABUF buffer), -EBUSY (the buffer is queued, or
 * another file owns the queue). The QBUF that follows names it by m.fd
 * (-EINVAL for any other fd, as vb2's dma_buf_get). */
#define UVCUSE_IMPORT_FLAG (UINT64_C(1) << 60)
#define UVCUSE_IMPORT_OFFSET(index, fd)                                                   \
	(UVCUSE_IMPORT_FLAG | ((uint64_t)((uint32_t)(fd) & 0x7fffffffu) << 8) |           \
	 ((uint64_t)(index) & 0xffu))
#define UVCUSE_IMPORT_INDEX(offset) ((unsigned)((offset) & 0xffu))
#define UVCUSE_IMPORT_FD(offset) ((int)(((offset) >> 8) & 0x7fffffffu))

/* The buffer request offset that makes its connection the file's channel. */
#define UVCUSE_CHANNEL_OFFSET (UINT64_C(1) << 62)

enum uvcuse_chan_op {
	UVCUSE_CHAN_QBUF = 1,
	UVCUSE_CHAN_DQBUF = 2,
	UVCUSE_CHAN_CANCEL = 3, /* no answer of its own */
};

/* struct uvcuse_ring's features */
#define UVCUSE_RING_QBUF_POSTED 1u /* qbuf[] and qbuf_keep_flags are kept */
#define UVCUSE_RING_POLL_BELL 2u   /* pollable and sleepers are kept, and the
				    * channel's answer carries the doorbell */

#define UVCUSE_RING_ENTRIES 32 /* VIDEO_MAX_FRAME: every buffer done at once */

/* struct v4l2_buffer as the ring and the channel carry it: as x86_64 lays
 * it out, whatever the library's own ABI, so that a 32-bit program's
 * library shares them with the 64-bit daemon; that library converts its
 * programs' layouts (uvcuse/compat32.h) to and from it. */
#if UINTPTR_MAX == UINT64_MAX
typedef struct v4l2_buffer uvcuse_wire_buffer;
#else
typedef struct uvcuse_buffer64 {
	uint32_t index, type, bytesused, flags, field;
	_Alignas(8) struct {
		int64_t tv_sec, tv_usec;
	} timestamp;
	struct v4l2_timecode timecode;
	uint32_t sequence, memory;
	_Alignas(8) union {
		uint32_t offset;
		uint64_t userptr;
		uint64_t planes;
		int32_t fd;
	} m;
	uint32_t length, reserved2;
	union {
		int32_t request_fd;
		uint32_t reserved;
	};
} uvcuse_wire_buffer;
#endif

struct uvcuse_ring {
	uint32_t magic;        /* UVCUSE_MAGIC */
	uint32_t size;         /* sizeof(struct uvcuse_ring) */
	/* (generation << 32) | entries of that generation taken: written by
	 * the library (a take) and the daemon (a revocation), only by
	 * compare-and-swap (__atomic builtins on both sides). Both 8-byte
	 * aligned for their atomics on 32-bit builds too, where a uint64_t
	 * alone is 4-byte aligned (the offsets are those of 64-bit builds) */
	_Alignas(8) uint64_t taken;
	/* (generation << 32) | entries of that generation published: written
	 * by the daemon (release store), after the entries */
	_Alignas(8) uint64_t published;
	/* entry k of a generation is at k % UVCUSE_RING_ENTRIES: VIDIOC_DQBUF's
	 * answer for it */
	uvcuse_wire_buffer entry[UVCUSE_RING_ENTRIES];
	uint32_t features;     /* UVCUSE_RING_*, set by the daemon */
	/* the app's v4l2_buffer.flags a QBUF keeps in its answer */
	uint32_t qbuf_keep_flags;
	/* by buffer index: QBUF's answer for it with no app flags, valid
	 * while its bit of qbuf_valid is set; both written by the daemon
	 * inside qbuf_seq's odd phase */
	uint32_t qbuf_seq;
	uint32_t qbuf_valid;
	uvcuse_wire_buffer qbuf[UVCUSE_RING_ENTRIES];
	/* QBUFs the library answered itself, in order: post k at k %
	 * UVCUSE_RING_ENTRIES. 'posted' counts them (the library's, release
	 * store after the entry), 'consumed' those the daemon ran (the
	 * daemon's, release store after reading the entry); the library posts
	 * only while posted - consumed < UVCUSE_RING_ENTRIES */
	uint32_t posted;
	uint32_t consumed;
	struct uvcuse_ring_post {
		uint32_t index; /* the buffer */
		uint32_t flags; /* the app's v4l2_buffer.flags */
	} post[UVCUSE_RING_ENTRIES];
	/* poll() without CUSE (UVCUSE_RING_POLL_BELL). 'pollable' (the
	 * daemon's) is 1 while a poll of the node for POLLIN alone answers
	 * POLLIN exactly when an entry can be taken, 0 otherwise (not
	 * streaming, an error, an unplug...: ask the kernel). 'sleepers' (the
	 * library's) counts its threads about to wait or waiting on the
	 * doorbell, an eventfd the daemon writes when, with sleepers, it
	 * publishes entries or changes 'pollable'. Both sides put a full fence
	 * between their store and their load of the other's word. */
	uint32_t pollable;
	uint32_t sleepers;
};

struct uvcuse_chan_msg {
	uint32_t magic;        /* UVCUSE_MAGIC */
	uint32_t op;           /* enum uvcuse_chan_op; the answer repeats it */
	uint32_t seq;          /* the request's number; the answer repeats it */
	int32_t result;        /* answer: 0 or -errno (as the ioctl's errno) */
	uvcuse_wire_buffer buf;
};

#endif
