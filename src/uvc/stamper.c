/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stream's frame timestamps (stamper.h). */
#include "uvc/stamper.h"

void uvc_stamper_init(struct uvc_stamper *s, uint32_t hz, bool use_clock, uint64_t interval_ns)
{
	uvc_clock_init(&s->clock, hz);
	s->use_clock = use_clock;
	s->interval_ns = interval_ns;
	s->last_ns = 0;
	s->last_from_clock = false;
	s->ease_ns = 0;
}

void uvc_stamper_sample(struct uvc_stamper *s, uint32_t stc, uint64_t host_ns)
{
	if (s->use_clock && host_ns)
		uvc_clock_sample(&s->clock, stc, host_ns);
}

/* Whether the camera clock's time t of a frame's exposure can be: not
 * after its first payload came (start, 0: unknown), give or take the 5 ms
 * the clock's delivery delay may be off; not a second before it. A camera
 * whose PTS or SCR is no clock gives times that are neither: the frame is
 * stamped at its first payload instead. */
static bool plausible_exposure(uint64_t t, uint64_t start)
{
	return !start || (t <= start + 5000000u && t + 1000000000u >= start);
}

/* The clock's time of the frame, or 0 when it cannot say. */
static uint64_t clock_time(const struct uvc_stamper *s, bool has_pts, uint32_t pts,
			   uint64_t start_ns)
{
	uint64_t t;
	if (!s->use_clock || !has_pts || !uvc_clock_to_host(&s->clock, pts, &t) ||
	    !plausible_exposure(t, start_ns))
		return 0;
	return t;
}

/* The carried-over difference, a quarter interval nearer 0 (all of it
 * when the interval is unknown). */
static int64_t eased(int64_t ease, uint64_t interval_ns)
{
	int64_t step = (int64_t)(interval_ns / 4);
	if (!step || (ease <= step && ease >= -step))
		return 0;
	return ease > 0 ? ease - step : ease + step;
}

uint64_t uvc_stamper_frame(struct uvc_stamper *s, bool has_pts, uint32_t pts, uint64_t start_ns,
			   uint64_t now_ns, bool *from_clock)
{
	uint64_t soe = start_ns ? start_ns : now_ns;
	uint64_t t = clock_time(s, has_pts, pts, start_ns);
	bool clock = t != 0;
	if (clock && !s->last_from_clock && s->last_ns)
		s->ease_ns = (int64_t)(soe - t); /* go on from the first-payload times */
	if (clock) {
		t = (uint64_t)((int64_t)t + s->ease_ns);
		s->ease_ns = eased(s->ease_ns, s->interval_ns);
	} else {
		t = soe;
		s->ease_ns = 0;
	}
	if (s->last_ns && t < s->last_ns + 1000)
		t = s->last_ns + 1000; /* a microsecond: a timeval's step */
	s->last_ns = t;
	s->last_from_clock = clock;
	if (from_clock)
		*from_clock = clock;
	return t;
}
