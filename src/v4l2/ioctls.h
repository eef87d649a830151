/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one table of the V4L2 ioctls the node answers, in the shape of the
 * kernel's v4l2_ioctls[]: for each command its handler, what the dispatch
 * does around it (priority, the camera, what to wake after), and what a
 * transport needs to carry its argument (the user memory it points to).
 * Adding an ioctl is adding a line to the table in ioctls.c. */
#ifndef V4L2_IOCTLS_H
#define V4L2_IOCTLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

struct node;
struct node_file;

/* What the dispatch does around the handler, and what the device does
 * after it answered. */
enum {
	/* needs a priority at least the highest one held (v4l2_prio_check),
	 * checked before the handler runs */
	NODE_IOC_PRIO = 1u << 0,
	/* may need the camera: on an asynchronous node the call may answer
	 * NODE_CAMERA, and one such call runs at a time */
	NODE_IOC_CAMERA = 1u << 1,
	/* once it succeeded, requests that wait for a frame or an event may
	 * get another answer (the stream stopped, the buffers went) */
	NODE_IOC_WAKES = 1u << 2,
	/* once it succeeded, what --status and STATUS= show changed */
	NODE_IOC_STATUS = 1u << 3,
	/* the argument goes back to the app also on error (error_idx) */
	NODE_IOC_COPY_ON_ERROR = 1u << 4,
	/* may answer NODE_WAIT: a blocking DQBUF or DQEVENT */
	NODE_IOC_MAY_WAIT = 1u << 5,
};

/* One call: the argument in daemon memory, the user memory it points to
 * read in after it (extra), and, for a USERPTR DQBUF, the frame bytes the
 * caller must copy to the app (data, data_len; NULL: leave them staged). */
struct node_ioc {
	unsigned int cmd;
	void *arg;
	void *extra;
	size_t extra_len;
	bool nonblock;
	const void **data;
	size_t *data_len;
};

typedef int node_ioctl_fn(struct node *n, struct node_file *f, struct node_ioc *a);

/* The user memory an argument points to: given the argument, the regions
 * to copy in (and back out where out[i] is set). Returns how many, or
 * -errno for a bad argument (a count above the limit). */
typedef int node_ioctl_regions_fn(const void *arg, struct iovec *iov, bool *out, unsigned max);

struct node_ioctl {
	unsigned int cmd;
	const char *name;          /* "VIDIOC_QUERYCAP" */
	unsigned flags;            /* NODE_IOC_* */
	node_ioctl_fn *run;
	node_ioctl_regions_fn *regions; /* NULL: no embedded pointers */
};

/* The entry of cmd, or NULL (ENOTTY, the caller's memory untouched). */
const struct node_ioctl *node_ioctl_find(unsigned int cmd);
/* The whole table, for transports, tests and fuzzers. */
const struct node_ioctl *node_ioctl_table(size_t *count);

#endif
