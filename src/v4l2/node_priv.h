/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to the node's files: what each asks of the others. node.c:
 * queues per process, streaming, read(), poll(), the ioctl dispatch;
 * node_fmt.c: formats; node_ctrls.c: controls, control events, extension
 * units; node_log.c: LOG_STATUS; ioctls.c: the table of ioctls and their
 * handlers. */
#ifndef V4L2_NODE_PRIV_H
#define V4L2_NODE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

#include "v4l2/node.h"

/* --- node.c -------------------------------------------------------------- */

/* V4L2 priorities as the core keeps them (v4l2-dev.c v4l2_prio_*): every
 * open file starts at DEFAULT; ioctls that change state (NODE_IOC_PRIO)
 * need a priority at least the highest one held. node_prio_check: -EBUSY
 * when another file holds a higher priority (the daemon's own file is
 * never held back), else 0. */
int node_prio_check(const struct node *n, const struct node_file *f);
bool node_prio_valid(uint32_t p);
enum v4l2_priority node_prio_max(const struct node *n);
void node_prio_set(struct node *n, struct node_file *f, enum v4l2_priority p);
/* The queue of process p (every process's under --exclusive). */
struct vq *node_proc_queue(struct node *n, struct node_proc *p);
/* The queue stopped streaming by itself (REQBUFS, read restart): its
 * process is fed no more. */
void node_follow_queue(struct node *n, struct node_proc *p);
/* STREAMON, STREAMOFF: the queue first, then the camera for the first
 * process to stream and after the last one stopped. */
int node_streamon(struct node *n, struct node_file *f, const int *type);
int node_streamoff(struct node *n, struct node_file *f, const int *type);

/* --- node_fmt.c ------------------------------------------------------------ */

/* A format V4L2 sees (known fourcc) by its bFormatIndex, or NULL. */
const struct uvc_format *node_find_format(const struct uvc_streaming *s, uint8_t index);
/* dst takes the camera's answer probe (and the conversion it feeds). */
void node_adopt_probe(const struct node *n, struct node_fmt *dst, const struct uvc_probe *probe,
		      const struct cfmt_choice *conv);
/* The ioctls, as uvcvideo 6.1 answers them. */
int node_g_input(struct node *n, unsigned *input);
int node_s_input(struct node *n, unsigned input);
int node_try_format(struct node *n, struct node_proc *p, struct v4l2_format *fmt,
		    struct uvc_probe *out, struct cfmt_choice *conv);
int node_g_fmt(struct node *n, struct node_proc *p, struct v4l2_format *fmt);
int node_s_fmt(struct node *n, struct node_file *f, struct v4l2_format *fmt);
int node_g_parm(struct node *n, struct node_proc *p, struct v4l2_streamparm *parm);
int node_s_parm(struct node *n, struct node_file *f, struct v4l2_streamparm *parm);

/* --- node_ctrls.c -------------------------------------------------------- */

/* More requests than any one control operation makes (GET_CUR of a master,
 * GET_DEF/MIN/MAX/RES, GET_CUR): a camera answering without end is broken. */
#define CTRL_MAX_ROUNDS 16

/* One request to the camera (r->size bytes at data): from the call's
 * journal in asynchronous mode (CALL_PENDING when the camera must answer
 * first), else synchronous through node_ops->ctrl_request. */
int node_ctrl_request(struct node *n, const struct ctrls_request *r, uint8_t *data);
/* Makes the request the control layer asked for and feeds the answer. */
void node_ctrl_feed(struct node *n);

/* Runs a control operation until it answers (see controls.h). */
#define CTRL_RUN(n, ret, call)                                        \
	do {                                                          \
		unsigned rounds_ = 0;                                 \
		while (((ret) = (call)) == CTRLS_NEED) {              \
			if (++rounds_ > CTRL_MAX_ROUNDS) {            \
				(ret) = -EIO;                         \
				break;                                \
			}                                             \
			node_ctrl_feed(n);                            \
		}                                                     \
	} while (0)

/* The ioctls, answered as uvcvideo 6.1 and the V4L2 core answer them:
 * VIDIOC_G/S_CTRL, VIDIOC_G/S/TRY_EXT_CTRLS (the array in extra),
 * SUBSCRIBE/UNSUBSCRIBE_EVENT, DQEVENT (NODE_WAIT when blocking and none is
 * pending), UVCIOC_CTRL_QUERY and UVCIOC_CTRL_MAP. */
int node_g_s_ctrl(struct node *n, struct node_file *f, unsigned int cmd, struct v4l2_control *p);
int node_ext_ctrls(struct node *n, struct node_file *f, unsigned int cmd,
		   struct v4l2_ext_controls *c, void *extra, size_t extra_len);
int node_subscribe(struct node *n, struct node_file *f, const struct v4l2_event_subscription *sub);
int node_unsubscribe(struct node_file *f, const struct v4l2_event_subscription *sub);
int node_dqevent(struct node_file *f, struct v4l2_event *ev, bool nonblock);
int node_xu_query(struct node *n, struct uvc_xu_control_query *q, void *extra, size_t extra_len);
int node_xu_map(struct node *n, struct uvc_xu_control_mapping *xm, const void *extra,
		size_t extra_len);

/* The file's subscription to (type, id), or NULL. */
struct node_sub *node_sub_find(struct node_file *f, uint32_t type, uint32_t id);
/* Queues ev on subscription s of f (a pending one is replaced, merged). */
void node_event_queue(struct node *n, struct node_file *f, struct node_sub *s,
		      const struct v4l2_event *ev);
/* The camera's own control change (node_status_event's work). */
int node_ctrl_status_event(struct node *n, uint8_t originator, uint8_t selector,
			   const uint8_t *value, size_t len);

#endif
