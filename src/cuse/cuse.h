/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CUSE character device: session on the daemon's loop, open files,
 * requests that may be answered later, and the unrestricted-ioctl
 * marshalling driven by one table (cuse/ioctl_table.h). The only code that
 * touches libfuse.
 *
 * Requests: every callback below gets a struct cuse_req that must be
 * answered exactly once with one of the cuse_reply_*() functions, either
 * inside the callback or later from the loop (a "parked" request, e.g. a
 * blocking DQBUF or read()). A parked request must be registered with
 * cuse_req_park() so that an interrupted caller (signal, SIGKILL) reaches
 * ops->interrupt, which must answer it (usually -EINTR). */
#ifndef UVCUSE_CUSE_H
#define UVCUSE_CUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct loop;
struct cuse_server;
struct cuse_file; /* one open file of the node, owned by the server */
struct cuse_req;  /* one request */
struct cuse_ioctl_desc; /* an ioctl's argument layout (ioctl_table.h) */

struct cuse_server_ops {
	/* open(2); flags are the open flags (O_NONBLOCK...). Returns 0 with
	 * *data set to the caller's per-file state, or -errno. */
	int (*open)(void *ctx, struct cuse_file *file, int flags, void **data);
	/* The last close. No request of the file is pending any more. */
	void (*release)(void *ctx, void *data);
	/* An ioctl whose argument the server has already copied in: arg holds
	 * the layout's size for cmd (zeros for _IOR ones), extra the embedded
	 * data the layout asked for (NULL when none). The callee may change
	 * arg; cuse_reply_ioctl() copies it out. */
	void (*ioctl)(void *ctx, void *data, struct cuse_req *req, unsigned int cmd, void *arg,
		      void *extra, size_t extra_len);
	/* One chunk of a read(2): CUSE splits a read() into chunks of at most
	 * cuse_max_chunk() bytes; off is 0 for the first chunk of a read()
	 * call and grows by the bytes returned. A short answer ends the read()
	 * call. flags are the file flags now (O_NONBLOCK as set by fcntl). */
	void (*read)(void *ctx, void *data, struct cuse_req *req, size_t size, off_t off,
		     int flags);
	/* poll(2): returns the ready events (POLLIN...) given the events the
	 * poller asked for (the kernel's poll_requested_events()). The server
	 * keeps the poll handle; cuse_file_notify_poll() wakes the poller. */
	unsigned (*poll)(void *ctx, void *data, unsigned requested);
	/* A parked request was interrupted: answer it now. */
	void (*interrupt)(void *ctx, void *data, struct cuse_req *req);
	/* An answer kept by cuse_reply_ioctl_data() will never be sent: the
	 * kernel did not come back for it (the caller's thread moved on to
	 * another request: a signal ended its ioctl), or it was crowded out.
	 * arg is the answer's argument as it was replied. Optional. */
	void (*answer_lost)(void *ctx, void *data, unsigned int cmd, const void *arg);
};

struct cuse_server_config {
	const char *devname;  /* "video10": becomes DEVNAME=video10, /dev/video10 */
	/* The commands the owner serves, with their argument layouts (size,
	 * direction, embedded pointers); kept, not copied. Any other command
	 * is ENOTTY, the caller's memory untouched but as the V4L2 core copies
	 * it. The server knows no command of its own. */
	const struct cuse_ioctl_desc *ioctls;
	size_t n_ioctls;
	/* /dev/cuse opened beforehand (cuse_open_control, by a caller that
	 * had the privilege then): the server's once it succeeds, still the
	 * caller's when it fails; NULL: opened here. */
	const int *control_fd;
	bool debug;           /* libfuse request tracing */
	/* a node the owner can do without (a camera's metadata node): the
	 * session's end does not quit the loop */
	bool optional;
};

/* Opens /dev/cuse for a server to come: the fd, or -errno (-ENOENT: no
 * /dev/cuse, -EACCES). Only this needs root; the rest may run without. */
int cuse_open_control(void);

/* Opens /dev/cuse, registers the device and hooks the channel into loop.
 * Returns 0 or -errno (-ENOENT: no /dev/cuse, -EACCES). The device node
 * appears once the kernel answers CUSE_INIT, shortly after the loop runs:
 * ops->... are called from loop callbacks only. */
int cuse_server_new(struct loop *loop, const struct cuse_server_config *cfg,
		    const struct cuse_server_ops *ops, void *ctx, struct cuse_server **out);
/* Unregisters the device (the node disappears) and frees the server. */
void cuse_server_free(struct cuse_server *server);
/* -errno when the session ended (the kernel refused the device: name taken,
 * or /dev/cuse closed); 0 while it runs. The loop is quit with status 1 by
 * the server when the session ends on its own, unless it is optional. */
int cuse_server_status(const struct cuse_server *server);

/* Largest read() chunk and largest ioctl data (in or out) the kernel moves
 * in one request (128 KiB on Linux 6.1). */
size_t cuse_max_chunk(void);

/* Callers of a request. */
pid_t cuse_req_pid(const struct cuse_req *req);
uid_t cuse_req_uid(const struct cuse_req *req);
struct cuse_file *cuse_req_file(const struct cuse_req *req);

/* Registers a request that will be answered later for interruption. If the
 * caller is already interrupted, ops->interrupt is called before this
 * returns. */
void cuse_req_park(struct cuse_req *req);

/* result >= 0: the ioctl's return value, arg is copied out for _IOR/_IOWR
 * commands. result < 0: -errno; arg is copied out only when the table marks
 * the command CUSE_IOCTL_ALWAYS_COPY (e.g. error_idx of EXT_CTRLS). */
void cuse_reply_ioctl(struct cuse_req *req, int result, const void *arg);
/* Like cuse_reply_ioctl(), and also writes len bytes of data to the
 * caller's memory at user_addr (a USERPTR buffer). When that region was not
 * part of this request, the server keeps the answer and asks the kernel to
 * retry the ioctl with the region mapped, then sends it; -E2BIG when len
 * (plus arg) exceeds cuse_max_chunk(). */
void cuse_reply_ioctl_data(struct cuse_req *req, int result, const void *arg,
			   unsigned long user_addr, const void *data, size_t len);
void cuse_reply_read(struct cuse_req *req, const void *data, size_t len);
/* err > 0 (an errno value) */
void cuse_reply_error(struct cuse_req *req, int err);

/* Wakes the file's poller, if any (call when events become ready). */
void cuse_file_notify_poll(struct cuse_file *file);
/* The file flags as of the last open/read (O_NONBLOCK). */
int cuse_file_flags(const struct cuse_file *file);
/* The thread that opened the file (as the open request's pid), and its
 * user (the request's uid). */
pid_t cuse_file_opener(const struct cuse_file *file);
uid_t cuse_file_opener_uid(const struct cuse_file *file);
/* Records the file flags after a change CUSE does not report (fcntl
 * F_SETFL, told by the preload library); the next read() reports them anew. */
void cuse_file_set_flags(struct cuse_file *file, int flags);
/* The owner's data for the file (what ops->open returned). */
void *cuse_file_data(const struct cuse_file *file);

#endif
