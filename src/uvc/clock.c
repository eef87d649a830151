/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's clock on the host's time line (clock.h): the lower
 * envelope of the SCR samples. Times are kept relative to the newest
 * sample, in 64-bit integers and doubles no larger than the window, so
 * that nothing loses precision however long the host has been up. */
#include "uvc/clock.h"

#include <string.h>

#define MIN_SAMPLES 8

void uvc_clock_init(struct uvc_clock *c, uint32_t hz)
{
	memset(c, 0, sizeof(*c));
	c->hz = hz;
}

/* A 32-bit reading of the camera's clock placed on the unwrapped line,
 * next to the newest sample (a reading up to half the range away). */
static int64_t unwrap(const struct uvc_clock *c, uint32_t raw)
{
	return c->last_stc + (int32_t)(raw - c->last_raw);
}

void uvc_clock_sample(struct uvc_clock *c, uint32_t stc, uint64_t host_ns)
{
	int64_t u = c->n ? unwrap(c, stc) : (int64_t)stc;

	c->s[c->next].stc = u;
	c->s[c->next].host_ns = host_ns;
	c->next = (c->next + 1) % UVC_CLOCK_SAMPLES;
	if (c->n < UVC_CLOCK_SAMPLES)
		c->n++;
	if (c->n == 1 || u > c->last_stc) {
		c->last_stc = u;
		c->last_raw = stc;
	}
}

/* Sample k, oldest first. */
static unsigned at(const struct uvc_clock *c, unsigned k)
{
	return (c->next + UVC_CLOCK_SAMPLES - c->n + k) % UVC_CLOCK_SAMPLES;
}

/* A sample's height above the line of slope ns_per_tick through the
 * newest sample's clock: its delivery delay up to a constant. */
static double height(const struct uvc_clock *c, unsigned i, double ns_per_tick, uint64_t host0)
{
	return (double)(int64_t)(c->s[i].host_ns - host0) -
	       ns_per_tick * (double)(c->s[i].stc - c->last_stc);
}

/* The lowest sample among samples first..last-1 (oldest-first order). */
static unsigned lowest(const struct uvc_clock *c, unsigned first, unsigned last,
		       double ns_per_tick, uint64_t host0)
{
	unsigned best = at(c, first);
	for (unsigned k = first + 1; k < last; k++)
		if (height(c, at(c, k), ns_per_tick, host0) < height(c, best, ns_per_tick, host0))
			best = at(c, k);
	return best;
}

bool uvc_clock_to_host(const struct uvc_clock *c, uint32_t pts, uint64_t *host_ns)
{
	if (!c->hz || c->n < MIN_SAMPLES)
		return false;
	int64_t span = c->last_stc - c->s[at(c, 0)].stc;
	if (span < (int64_t)(c->hz / 10))
		return false;
	uint64_t host0 = c->s[at(c, c->n - 1)].host_ns;
	double slope = 1e9 / (double)c->hz;
	/* the drift: through the envelope's lowest points of the older and the
	 * newer half, found again under the slope they give (a drift of
	 * hundreds of ppm can make a higher sample look lowest under the
	 * nominal slope) */
	for (int pass = 0; pass < 3; pass++) {
		unsigned a = lowest(c, 0, c->n / 2, slope, host0);
		unsigned b = lowest(c, c->n / 2, c->n, slope, host0);
		if (c->s[b].stc - c->s[a].stc < (int64_t)(c->hz / 20))
			break;
		slope += (height(c, b, slope, host0) - height(c, a, slope, host0)) /
			 (double)(c->s[b].stc - c->s[a].stc);
	}
	/* the offset: the lowest sample under that slope */
	double base = height(c, lowest(c, 0, c->n, slope, host0), slope, host0);
	double t = base + slope * (double)(unwrap(c, pts) - c->last_stc);
	*host_ns = (uint64_t)((int64_t)host0 + (int64_t)t);
	return true;
}
