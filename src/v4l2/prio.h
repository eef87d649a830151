/* SPDX-License-Identifier: GPL-2.0-or-later */
/* V4L2 priorities as the core keeps them (v4l2-dev.c v4l2_prio_*): a count
 * of open files per priority, shared by the nodes of one camera (uvcvideo's
 * video and metadata nodes share their chain's), and each file's own.
 * Every open file starts at DEFAULT; ioctls that change state need a
 * priority at least the highest one held. Pure. */
#ifndef V4L2_PRIO_H
#define V4L2_PRIO_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/videodev2.h>

struct v4l2_prios {
	unsigned count[4]; /* open files per priority (UNSET not counted) */
};

bool prio_valid(uint32_t p);
enum v4l2_priority prio_max(const struct v4l2_prios *ps);
/* A file's priority *cur becomes p (UNSET: the file goes). */
void prio_change(struct v4l2_prios *ps, enum v4l2_priority *cur, enum v4l2_priority p);
/* -EBUSY when another file holds a priority above cur, else 0. */
int prio_check(const struct v4l2_prios *ps, enum v4l2_priority cur);

#endif
