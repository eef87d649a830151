/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A camera's metadata capture node, as uvcvideo's (uvc_metadata.c; the
 * facts, 6.1 and 7.x, in docs/uvcvideo-metadata.md): QUERYCAP; ENUM_FMT,
 * G_FMT, S_FMT and TRY_FMT of V4L2_BUF_TYPE_META_CAPTURE (UVCH, and UVCM
 * for a camera that sends Microsoft's metadata; the buffer size settable
 * from 10240 bytes up, as 7.1); one buffer queue with vb2's helpers' rules
 * (v4l2/queue.h: the first file that asks for buffers owns it), MMAP and
 * USERPTR; STREAMON and STREAMOFF of the queue alone (the camera streams
 * for the video node: meta buffers fill only while it does); G_PRIORITY and
 * S_PRIORITY shared with the video node; ENUMINPUT, G_INPUT and S_INPUT
 * of the video node's one input. Everything else ENOTTY. The
 * device fills buffers with meta_node_next() and meta_node_done(), one
 * per video frame, with the frame's sequence, timestamp and error.
 * Where uvcuse differs: the buffer size has a ceiling (META_BUFFERSIZE_MAX)
 * where 7.1 has none, so that no app makes the daemon allocate without
 * bound; and the input ioctls, which uvcvideo's metadata node leaves to its
 * media controller: CUSE can make no media device, and V4L2 requires them
 * of a capture node without one (v4l2-compliance fails it otherwise).
 * Pure: no I/O, one loop thread. */
#ifndef V4L2_META_NODE_H
#define V4L2_META_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/videodev2.h>

#include "v4l2/node.h"
#include "v4l2/prio.h"
#include "v4l2/queue.h"

#define META_BUFFERSIZE_MIN 10240u      /* uvcvideo's UVC_METADATA_BUF_SIZE */
#define META_BUFFERSIZE_MAX (1u << 20) /* ours: what TRY_FMT clamps to */
#define META_MAX_FORMATS 2

struct meta_node_config {
	/* QUERYCAP's, as the video node's */
	const char *card, *bus_info;
	uint32_t version;
	uint32_t video_caps;      /* the video node's device_caps */
	bool msxu;                /* the camera sends MSXU 1.5 metadata: UVCM too */
	struct v4l2_input input;  /* the video node's input 0 */
	struct v4l2_prios *prios; /* the video node's: one priority for both */
	const struct vq_mem_ops *mem_ops;
	void *mem_data;
};

struct meta_file {
	enum v4l2_priority prio;
};

struct meta_node {
	struct vq queue;
	struct v4l2_prios *prios;
	struct v4l2_capability cap;
	uint32_t formats[META_MAX_FORMATS];
	unsigned n_formats;
	uint32_t format;      /* the current dataformat */
	uint32_t buffersize;  /* the current buffer size */
	struct v4l2_input input;
};

/* m may not move afterwards (its queue hands out pointers). */
void meta_node_init(struct meta_node *m, const struct meta_node_config *cfg);
void meta_node_destroy(struct meta_node *m);

void meta_node_open(struct meta_node *m, struct meta_file *f);
/* The file's last close: its buffers go if it owned the queue. */
void meta_node_release(struct meta_node *m, struct meta_file *f);

/* One ioctl: 0 or -errno (ENOTTY for what the node does not answer), or
 * NODE_WAIT for a blocking DQBUF with no buffer done (park it, call again
 * after meta_node_done). On a DQBUF, *dequeued (when not NULL) is the
 * buffer, whose mem the caller copies to a USERPTR app. */
int meta_node_ioctl(struct meta_node *m, struct meta_file *f, unsigned cmd, void *arg,
		    bool nonblock, struct vq_buffer **dequeued);
/* The commands meta_node_ioctl() answers (the rest are ENOTTY), for a
 * transport's argument layouts. */
const unsigned *meta_node_commands(size_t *count);
/* poll(): POLLIN|POLLRDNORM, POLLERR, or 0 (vq_poll). */
unsigned meta_node_poll(const struct meta_node *m, const struct meta_file *f);

/* The buffer the next frame's payload headers go to (NULL: the node does
 * not stream, or no buffer is queued), and its end: bytesused, the video
 * frame's sequence and timestamp, errored (the frame's error, or blocks
 * left out for want of room). */
struct vq_buffer *meta_node_next(struct meta_node *m);
void meta_node_done(struct meta_node *m, struct vq_buffer *b, uint32_t bytesused, bool errored,
		    uint32_t sequence, const struct timeval *timestamp);

#endif
