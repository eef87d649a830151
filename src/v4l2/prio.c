/* SPDX-License-Identifier: GPL-2.0-or-later */
/* V4L2 priorities (prio.h). */
#include "v4l2/prio.h"

#include <errno.h>

bool prio_valid(uint32_t p)
{
	return p == V4L2_PRIORITY_BACKGROUND || p == V4L2_PRIORITY_INTERACTIVE ||
	       p == V4L2_PRIORITY_RECORD;
}

enum v4l2_priority prio_max(const struct v4l2_prios *ps)
{
	for (int p = V4L2_PRIORITY_RECORD; p > V4L2_PRIORITY_UNSET; p--)
		if (ps->count[p])
			return p;
	return V4L2_PRIORITY_UNSET;
}

void prio_change(struct v4l2_prios *ps, enum v4l2_priority *cur, enum v4l2_priority p)
{
	if (prio_valid(*cur))
		ps->count[*cur]--;
	*cur = p;
	if (prio_valid(p))
		ps->count[p]++;
}

int prio_check(const struct v4l2_prios *ps, enum v4l2_priority cur)
{
	return cur < prio_max(ps) ? -EBUSY : 0;
}
