/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The buffer socket: hands the memfd behind a QUERYBUF offset to the
 * preload library (src/preload/), which maps it where the kernel would
 * have (CUSE has no mmap). Protocol: include/uvcuse/uvcuse.h.
 *
 * Who gets memory: UVCUSE_IOC_HELLO on an open file of the node issues a
 * one-time random token bound to that file, the calling process (its
 * thread group) and user (bufshare_hello()). A socket request is served
 * only when the token is known, SO_PEERCRED shows that process and user,
 * and the owner's lookup callback gives memory for that file and offset.
 * So a process must hold the node open to get anything, and gets only what
 * its own open file may map. The socket (RUNTIME_DIR/NAME.sock) is served
 * from the daemon's loop. */
#ifndef UVCUSE_BUFSHARE_H
#define UVCUSE_BUFSHARE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uvcuse/uvcuse.h"

struct loop;
struct bufshare;

/* The memory that 'file' may map at offset, length bytes (mmap's checks,
 * e.g. vq_mmap_find() and the queue's owner): sets *memfd (still owned by
 * the caller; bufshare sends a duplicate) and returns 0, or -errno
 * (-EINVAL, -EACCES...), which the client gets as its mmap's errno. */
typedef int (*bufshare_lookup_cb)(void *ctx, void *file, uint64_t offset, uint64_t length,
				  int *memfd);

/* A request for UVCUSE_CHANNEL_OFFSET, authorized for 'file': the owner
 * takes the connection fd (of process pid, off bufshare's watch) as the
 * file's fast-path channel and returns 0, with *memfd set to memory to
 * send with the answer (the ring, still the owner's) or -1, and *bell to
 * an fd sent after it (the ring's doorbell) or -1; or returns -errno
 * leaving fd alone. bufshare then sends the answer on fd (and closes it
 * on failure). */
typedef int (*bufshare_channel_cb)(void *ctx, void *file, int fd, pid_t pid, int *memfd,
				   int *bell);

/* A DMABUF import (UVCUSE_IMPORT_OFFSET) authorized for 'file': the app's
 * dma-buf 'dmabuf' (received here) for DMABUF buffer index, which the app
 * calls app_fd. Returns 0 and keeps dmabuf, or -errno (bufshare closes it). */
typedef int (*bufshare_import_cb)(void *ctx, void *file, unsigned index, int app_fd,
				  int dmabuf);

/* Tokens a file may hold unused; the oldest is dropped beyond. */
#define BUFSHARE_TOKENS_PER_FILE 8
/* Connections waiting for their request; a new one is refused beyond
 * (never an older one dropped while it may still send its request). */
#define BUFSHARE_MAX_CONNS 32
/* Connections one process may have waiting: one process cannot fill the
 * table and starve other apps' mmaps (the library uses one at a time per
 * thread that maps). */
#define BUFSHARE_CONNS_PER_PROCESS 4
/* Connections one user may have waiting, all its processes together: a
 * user's children cannot fill the table either. */
#define BUFSHARE_CONNS_PER_UID 16
/* How long a connection may wait before its request: the library sends it
 * as soon as it is connected; one that has not is closed when a newcomer
 * needs its slot, so an idle connection holds a slot this long at most. */
#define BUFSHARE_IDLE_MS 2000

struct bufshare_limits {
	unsigned conns;             /* at most BUFSHARE_MAX_CONNS */
	unsigned conns_per_process;
	unsigned conns_per_uid;
	unsigned idle_ms;
};
/* Connections accepted per wake-up of the loop. */
#define BUFSHARE_ACCEPTS_PER_WAKE 8

/* Listens on RUNTIME_DIR/NAME.sock. runtime_dir NULL: $RUNTIME_DIRECTORY
 * (systemd's RuntimeDirectory=), else /run/uvcuse for root and
 * $XDG_RUNTIME_DIR/uvcuse for other users (created 0711). The
 * directory must be ours and writable by nobody else (-EPERM otherwise).
 * Connections are served from loop's callbacks. Returns 0 or -errno
 * (-ENAMETOOLONG, -EACCES...), logged. */
int bufshare_new(struct loop *loop, const char *runtime_dir, const char *name,
		 bufshare_lookup_cb lookup, void *ctx, struct bufshare **out);
/* The limits on waiting connections (the defaults above until then). */
void bufshare_set_limits(struct bufshare *bs, const struct bufshare_limits *limits);
/* Without it, a channel request is refused (-EOPNOTSUPP). */
void bufshare_set_channel(struct bufshare *bs, bufshare_channel_cb channel);
/* Without it, an import is refused (-EINVAL). */
void bufshare_set_import(struct bufshare *bs, bufshare_import_cb import);
/* /dev/udmabuf (udmabuf_open(): an fd, or -errno saying why not; not
 * owned): a request for UVCUSE_DMABUF_FLAG | offset is answered with a
 * dma-buf over that buffer's memory instead of the memfd (VIDIOC_EXPBUF).
 * Until then, and without the device: -ENOTTY, logged once. */
void bufshare_set_dmabuf(struct bufshare *bs, int udmabuf);
/* Stops listening, removes the socket, forgets every token. */
void bufshare_free(struct bufshare *bs);
const char *bufshare_path(const struct bufshare *bs);
/* The listening socket (for tests that run the loop themselves). */
int bufshare_fd(const struct bufshare *bs);

/* UVCUSE_IOC_HELLO from pid (cuse_req_pid: a thread id) and uid on file:
 * fills *out with a new token for it. Returns 0 or -errno (-ESRCH: the
 * caller vanished, -ENOMEM). */
int bufshare_hello(struct bufshare *bs, void *file, pid_t pid, uid_t uid,
		   struct uvcuse_hello *out);
/* Gives the socket the node's group, group permission bits and POSIX
 * ACL (mode 0600 until then): those who may open node_path may connect.
 * Cheap; called at each HELLO so that udev's later changes apply.
 * At accept, only a peer whose uid holds an unused token is kept.
 * Returns 0 or -errno (e.g. -EPERM: the daemon may not chown to that
 * group). */
int bufshare_follow_node(struct bufshare *bs, const char *node_path);
/* Sends one message on sock with fd (>= 0) passed along, without blocking
 * and without SIGPIPE: sendmsg's answer. */
ssize_t bufshare_send(int sock, const void *msg, size_t len, int fd);
/* The same with up to two fds, in order (-1s are skipped). */
ssize_t bufshare_send2(int sock, const void *msg, size_t len, int fd, int fd2);
/* Seals memfd's size before it goes to an app (which could shrink it
 * under the daemon's writes). 0 or -EIO (logged). */
int bufshare_seal(int memfd);
/* file was released: its tokens die. */
void bufshare_forget(struct bufshare *bs, void *file);

/* --- the pure parts, for the unit suite -------------------------------- */

/* Checks one received request message: -EPROTO when the size, magic or
 * version is wrong. */
int bufshare_parse_request(const void *msg, size_t len, struct uvcuse_buf_request *req);
/* The decision for a request from a connection whose SO_PEERCRED is
 * peer_pid/peer_uid: the token is consumed (known or not, used or refused)
 * and its file is set in *file. -EACCES (unknown token, other process or
 * user), the reason logged (at most 5 lines a second). */
int bufshare_authorize(struct bufshare *bs, const struct uvcuse_buf_request *req, pid_t peer_pid,
		       uid_t peer_uid, void **file);
/* Unused tokens held now (for tests). */
size_t bufshare_tokens(const struct bufshare *bs);
/* Connections waiting for their request now (for tests). */
size_t bufshare_conns(const struct bufshare *bs);

#endif
