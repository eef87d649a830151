/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's clock on the host's time line (clock.h): the edge of the
 * SCR samples' lower convex hull that is closest to them all. Times are
 * kept relative to the newest sample, in 64-bit integers and doubles no
 * larger than the window, so that nothing loses precision however long
 * the host has been up. */
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

/* Whether a sample at u, host_ns falls in the newest sample's slice of
 * the camera's clock, and was delayed no less than it: then it adds
 * nothing. When it was delayed less, it takes the newest's place (*slot). */
static bool same_slice(const struct uvc_clock *c, int64_t u, uint64_t host_ns, unsigned *slot)
{
	unsigned newest = (c->next + UVC_CLOCK_SAMPLES - 1) % UVC_CLOCK_SAMPLES;
	int64_t slice = c->hz / UVC_CLOCK_BUCKETS_PER_S;
	if (!c->n || !slice || u < 0 || c->s[newest].stc < 0 ||
	    u / slice != c->s[newest].stc / slice)
		return false;
	double later = (double)(int64_t)(host_ns - c->s[newest].host_ns) -
		       (double)(u - c->s[newest].stc) * 1e9 / (double)c->hz;
	*slot = later < 0 ? newest : UVC_CLOCK_SAMPLES;
	return true;
}

void uvc_clock_sample(struct uvc_clock *c, uint32_t stc, uint64_t host_ns)
{
	int64_t u = c->n ? unwrap(c, stc) : (int64_t)stc;
	unsigned slot;

	if (same_slice(c, u, host_ns, &slot)) {
		if (slot < UVC_CLOCK_SAMPLES) {
			c->s[slot].stc = u;
			c->s[slot].host_ns = host_ns;
			if (u > c->last_stc) {
				c->last_stc = u;
				c->last_raw = stc;
			}
		}
		return;
	}
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

struct point {
	double x, y; /* the camera's clock (ticks) and the host's (ns), relative */
};

/* z's side of the line o->a: > 0 when o, a, z turn left. */
static double cross(struct point o, struct point a, struct point z)
{
	return (a.x - o.x) * (z.y - o.y) - (a.y - o.y) * (z.x - o.x);
}

/* The samples as points relative to the newest, sorted by the camera's
 * clock, and the lower convex hull of them in hull (returns its size). */
static unsigned lower_hull(const struct uvc_clock *c, uint64_t host0, struct point *p,
			   struct point *hull)
{
	for (unsigned k = 0; k < c->n; k++) {
		struct point q = { (double)(c->s[at(c, k)].stc - c->last_stc),
				   (double)(int64_t)(c->s[at(c, k)].host_ns - host0) };
		unsigned i = k;
		for (; i > 0 && p[i - 1].x > q.x; i--)
			p[i] = p[i - 1];
		p[i] = q;
	}
	unsigned h = 0;
	for (unsigned k = 0; k < c->n; k++) {
		while (h >= 2 && cross(hull[h - 2], hull[h - 1], p[k]) <= 0)
			h--;
		hull[h++] = p[k];
	}
	return h;
}

/* The nominal rate through the least-delayed sample: for a window too
 * short to fit a slope in (the camera's clock drifts by parts per million,
 * nothing over the few frames this lasts), and when no hull edge has a
 * camera clock's slope. */
static uint64_t nominal_line(const struct uvc_clock *c, uint32_t pts)
{
	uint64_t host0 = c->s[at(c, c->n - 1)].host_ns;
	double nominal = 1e9 / (double)c->hz, base = 0;
	for (unsigned k = 0; k < c->n; k++) {
		unsigned i = at(c, k);
		double y = (double)(int64_t)(c->s[i].host_ns - host0) -
			   nominal * (double)(c->s[i].stc - c->last_stc);
		if (k == 0 || y < base)
			base = y;
	}
	return (uint64_t)((int64_t)host0 +
			  (int64_t)(base + nominal * (double)(unwrap(c, pts) - c->last_stc)));
}

bool uvc_clock_to_host(const struct uvc_clock *c, uint32_t pts, uint64_t *host_ns)
{
	struct point p[UVC_CLOCK_SAMPLES], hull[UVC_CLOCK_SAMPLES];

	if (!c->hz || !c->n)
		return false;
	if (c->n < MIN_SAMPLES || c->last_stc - c->s[at(c, 0)].stc < (int64_t)(c->hz / 10)) {
		*host_ns = nominal_line(c, pts);
		return true;
	}
	uint64_t host0 = c->s[at(c, c->n - 1)].host_ns;
	unsigned h = lower_hull(c, host0, p, hull);
	double sum_x = 0, sum_y = 0, nominal = 1e9 / (double)c->hz;
	for (unsigned k = 0; k < c->n; k++) {
		sum_x += p[k].x;
		sum_y += p[k].y;
	}
	/* the line under every sample closest to them all (the least sum of
	 * delays): a hull edge; a slope more than 1 % from the nominal one is
	 * no camera clock, and the nominal line stands in */
	double best_cost = 0, slope = nominal, base = 0;
	bool found = false;
	for (unsigned k = 0; k + 1 < h; k++) {
		double dx = hull[k + 1].x - hull[k].x;
		if (dx <= 0)
			continue;
		double b = (hull[k + 1].y - hull[k].y) / dx;
		if (b < nominal * 0.99 || b > nominal * 1.01)
			continue;
		double a = hull[k].y - b * hull[k].x;
		double cost = sum_y - (double)c->n * a - b * sum_x;
		if (!found || cost < best_cost) {
			found = true;
			best_cost = cost;
			slope = b;
			base = a;
		}
	}
	if (!found) {
		*host_ns = nominal_line(c, pts);
		return true;
	}
	double t = base + slope * (double)(unwrap(c, pts) - c->last_stc);
	*host_ns = (uint64_t)((int64_t)host0 + (int64_t)t);
	return true;
}
