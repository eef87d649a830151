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
 *    to the app's pointer: no 128 KiB limit of a CUSE ioctl reply. */
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

/* The buffer request offset naming USERPTR buffer INDEX's staging memory
 * (QUERYBUF offsets of MMAP buffers are below 2^32). */
#define UVCUSE_STAGING_FLAG (UINT64_C(1) << 63)
#define UVCUSE_STAGING_OFFSET(index) (UVCUSE_STAGING_FLAG | (uint64_t)(index))

/* The buffer request offset that makes its connection the file's channel. */
#define UVCUSE_CHANNEL_OFFSET (UINT64_C(1) << 62)

enum uvcuse_chan_op {
	UVCUSE_CHAN_QBUF = 1,
	UVCUSE_CHAN_DQBUF = 2,
	UVCUSE_CHAN_CANCEL = 3, /* no answer of its own */
};

struct uvcuse_chan_msg {
	uint32_t magic;        /* UVCUSE_MAGIC */
	uint32_t op;           /* enum uvcuse_chan_op; the answer repeats it */
	uint32_t seq;          /* the request's number; the answer repeats it */
	int32_t result;        /* answer: 0 or -errno (as the ioctl's errno) */
	struct v4l2_buffer buf;
};

#endif
