/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to src/v4l2/: the continuation of a node call that waits for the
 * camera (node.h: NODE_CAMERA). A call runs from its start each time an
 * answer arrives; the answers it already had are replayed in order from its
 * journal, so the camera sees each request once and the run that finally
 * answers made exactly the requests a synchronous run would have made. A
 * run that meets a request without an answer records it (the need), fails
 * every further request, and is undone: the controls go back to their
 * snapshot and the events it queued are dropped. */
#ifndef V4L2_NODE_CALL_H
#define V4L2_NODE_CALL_H

#include "v4l2/node.h"

/* An event queued by a run, delivered only if the run answers. */
struct call_event {
	struct node_file *f;
	struct node_sub *s;
	struct v4l2_event ev;
};

/* Starts a run (snapshot of the controls). 0 or -ENOMEM. */
int call_begin(struct node *n);
/* In a run: whether the request goes through the journal (else: the
 * synchronous ops->ctrl_request). */
bool call_running(const struct node *n);
/* The run met a request without an answer: it will be undone, so state
 * outside the controls (a subscription) must not change. */
bool call_aborted(const struct node *n);
/* One request of a run: the journal's answer (result as
 * node_ops->ctrl_request, GET_* bytes into data), or CALL_PENDING when the
 * camera must be asked first. */
#define CALL_PENDING (-EINPROGRESS)
int call_request(struct node *n, const struct ctrls_request *r, uint8_t *data);
/* Keeps an event of the run for call_end; false outside a run. */
bool call_defer_event(struct node *n, struct node_file *f, struct node_sub *s,
		      const struct v4l2_event *ev);
/* Ends a run. true: it needs the camera (undone, node_camera_need() says
 * what); false: it answered, its events (events, count) are to be delivered now,
 * and the journal is cleared. */
bool call_end(struct node *n, struct call_event **events, unsigned *count);
void call_free(struct node *n);

#endif
