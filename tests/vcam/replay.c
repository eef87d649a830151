/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usbmon text traces played again (replay.h). A text line is
 *   URB-tag timestamp-us event address status length [= hex words | < | >]
 * event S (submission) or C (completion), address "Bi:bus:dev:ep" for a
 * bulk IN endpoint, status a number (or "s" for a setup packet). */
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENDPOINTS 16

struct line {
	uint64_t time_us;
	char event;
	char address[24];
	int status;
	uint32_t length;
	uint8_t data[VCAM_REPLAY_HEAD];
	unsigned data_len;
};

static unsigned hex_bytes(const char *p, uint8_t *out, unsigned cap)
{
	unsigned n = 0;
	while (*p && n < cap) {
		unsigned v;
		int used = 0;
		while (*p == ' ')
			p++;
		if (sscanf(p, "%2x%n", &v, &used) != 1 || used != 2)
			break;
		out[n++] = (uint8_t)v;
		p += 2;
	}
	return n;
}

/* The line after the one s starts, or NULL after the last. */
static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');
	return nl ? nl + 1 : NULL;
}

/* One line of the trace, or false for a line that is not one (mail text). */
static bool parse_line(const char *s, struct line *l)
{
	char tag[40], event[4], status[16];
	unsigned long long t;
	unsigned length;
	int used = 0;

	memset(l, 0, sizeof(*l));
	if (sscanf(s, "%39s %llu %3s %23s %15s %u%n", tag, &t, event, l->address, status, &length,
		   &used) != 6 || (event[0] != 'S' && event[0] != 'C') || event[1])
		return false;
	l->time_us = t;
	l->event = event[0];
	l->status = atoi(status);
	l->length = length;
	const char *rest = s + used;
	while (*rest == ' ')
		rest++;
	if (*rest == '=')
		l->data_len = hex_bytes(rest + 1, l->data, VCAM_REPLAY_HEAD);
	return true;
}

/* A UVC payload header at the start of these bytes: bHeaderLength 2 to 12
 * and within them, the end-of-header bit set. */
static bool looks_like_header(const struct line *l)
{
	return l->data_len >= 2 && l->data[0] >= 2 && l->data[0] <= 12 && l->data[0] <= l->length &&
	       (l->data[1] & 0x80);
}

/* The bulk IN endpoint whose completions most often begin with a header. */
static int pick_endpoint(const char *text, char *out, size_t cap)
{
	char names[MAX_ENDPOINTS][24];
	unsigned votes[MAX_ENDPOINTS] = { 0 }, n = 0, best = 0;
	struct line l;

	for (const char *s = text; s && *s; s = next_line(s)) {
		if (!parse_line(s, &l) || l.event != 'C' || strncmp(l.address, "Bi:", 3) ||
		    !looks_like_header(&l))
			continue;
		unsigned k = 0;
		while (k < n && strcmp(names[k], l.address))
			k++;
		if (k == n && n < MAX_ENDPOINTS)
			snprintf(names[n++], sizeof(names[0]), "%s", l.address);
		if (k < n)
			votes[k]++;
	}
	for (unsigned k = 1; k < n; k++)
		if (votes[k] > votes[best])
			best = k;
	if (!n)
		return -EINVAL;
	snprintf(out, cap, "%s", names[best]);
	return 0;
}

static struct vcam_replay_payload *new_payload(struct vcam_replay *r, uint64_t time_us, int status)
{
	struct vcam_replay_payload *more = realloc(r->payloads, (r->n + 1) * sizeof(*more));

	if (!more)
		return NULL;
	r->payloads = more;
	more += r->n++;
	memset(more, 0, sizeof(*more));
	more->time_us = time_us;
	more->status = status;
	return more;
}

static int add_piece(struct vcam_replay_payload *p, const struct line *l)
{
	struct vcam_replay_piece *more = realloc(p->pieces, (p->n_pieces + 1) * sizeof(*more));

	if (!more)
		return -ENOMEM;
	p->pieces = more;
	more += p->n_pieces++;
	memset(more, 0, sizeof(*more));
	more->offset = p->length;
	more->length = l->length;
	memcpy(more->head, l->data, l->data_len);
	more->head_len = (uint8_t)l->data_len;
	p->length += l->length;
	return 0;
}

/* dwMaxPayloadTransferSize of the last commit (SET_CUR of
 * VS_COMMIT_CONTROL: bRequest 0x01, wValue 0x0200) sent to the endpoint's
 * device, or 0: what ends a payload that fills its URBs. */
static uint32_t committed_payload(const char *text, const char *endpoint)
{
	char device[24], setup[40], *colon;
	uint32_t size = 0;

	/* "Bi:1:004:1" -> "Co:1:004:0" */
	snprintf(device, sizeof(device), "Co:%s", endpoint + 3);
	colon = strrchr(device, ':');
	if (!colon)
		return 0;
	snprintf(colon, sizeof(device) - (size_t)(colon - device), ":0");
	for (const char *s = text; s && *s; s = next_line(s)) {
		char tag[40], event[4], address[24];
		unsigned long long t;
		unsigned type, request, value, index, length, len;
		int used = 0;
		uint8_t data[VCAM_REPLAY_HEAD];

		if (sscanf(s, "%39s %llu %3s %23s %39s %x %x %x %x %x %u =%n", tag, &t, event, address,
			   setup, &type, &request, &value, &index, &length, &len, &used) != 11 ||
		    strcmp(event, "S") || strcmp(address, device) || strcmp(setup, "s") ||
		    type != 0x21 || request != 0x01 || value != 0x0200 || !used)
			continue;
		if (hex_bytes(s + used, data, sizeof(data)) >= 26)
			size = (uint32_t)data[22] | (uint32_t)data[23] << 8 | (uint32_t)data[24] << 16 |
			       (uint32_t)data[25] << 24;
	}
	return size;
}

/* The completions of the endpoint, grouped into payloads as the host
 * that recorded them saw them: a payload ends at a completion shorter than
 * its URB (urb: the largest submission so far) or once it holds the
 * committed payload size (max_payload; none committed in the trace: a full
 * URB starting with a header starts a payload). */
static int group(const char *text, struct vcam_replay *r)
{
	struct vcam_replay_payload *open = NULL;
	uint32_t urb = 0, max_payload = committed_payload(text, r->endpoint);
	uint64_t t0 = 0;
	struct line l;

	for (const char *s = text; s && *s; s = next_line(s)) {
		if (!parse_line(s, &l) || strcmp(l.address, r->endpoint))
			continue;
		if (l.event == 'S') {
			urb = l.length > urb ? l.length : urb;
			continue;
		}
		if (l.status == -ENOENT || l.status == -ECONNRESET || l.status == -ESHUTDOWN)
			continue;
		if (!r->n)
			t0 = l.time_us;
		if (open && !max_payload && looks_like_header(&l))
			open = NULL;
		if (l.status < 0 || !open) {
			open = new_payload(r, l.time_us - t0, l.status < 0 ? l.status : 0);
			if (!open)
				return -ENOMEM;
		}
		if (l.status == 0 && add_piece(open, &l) < 0)
			return -ENOMEM;
		if (l.status < 0 || l.length < urb || (max_payload && open->length >= max_payload))
			open = NULL;
	}
	return 0;
}

int vcam_replay_parse(const char *text, struct vcam_replay *r, char *err, size_t err_cap)
{
	memset(r, 0, sizeof(*r));
	if (pick_endpoint(text, r->endpoint, sizeof(r->endpoint)) < 0) {
		snprintf(err, err_cap, "no bulk IN endpoint whose data begins with UVC payload headers");
		return -EINVAL;
	}
	int rc = group(text, r);
	if (rc < 0) {
		vcam_replay_free(r);
		return rc;
	}
	for (unsigned k = 0; k < r->n; k++) {
		const struct vcam_replay_payload *p = &r->payloads[k];
		if (p->n_pieces && p->pieces[0].head_len >= 2 && (p->pieces[0].head[1] & 0x02))
			r->frames++;
	}
	if (r->n > 1) /* one gap more than the last, so that a loop keeps the pace */
		r->duration_us = r->payloads[r->n - 1].time_us +
				 r->payloads[r->n - 1].time_us / (r->n - 1);
	return 0;
}

int vcam_replay_load(const char *path, struct vcam_replay *r, char *err, size_t err_cap)
{
	enum { MAX_TRACE = 16 << 20 };
	FILE *f = fopen(path, "r");
	char *text = malloc(MAX_TRACE + 1);
	size_t n = f && text ? fread(text, 1, MAX_TRACE + 1, f) : 0;
	int rc = !f ? -errno : !text ? -ENOMEM : n > MAX_TRACE ? -EFBIG : 0;

	if (f)
		fclose(f);
	if (rc == 0) {
		text[n] = 0;
		rc = vcam_replay_parse(text, r, err, err_cap);
	} else {
		snprintf(err, err_cap, "%s: %s", path, strerror(-rc));
	}
	free(text);
	return rc;
}

void vcam_replay_free(struct vcam_replay *r)
{
	for (unsigned k = 0; k < r->n; k++)
		free(r->payloads[k].pieces);
	free(r->payloads);
	memset(r, 0, sizeof(*r));
}

uint64_t vcam_replay_due_us(const struct vcam_replay *r)
{
	return r->n ? r->loops * r->duration_us + r->payloads[r->at].time_us : 0;
}

/* Byte i of payload p: what usbmon recorded, else filler that is the same
 * on every run (it never looks like a JPEG marker: no 0xff). */
static uint8_t payload_byte(const struct vcam_replay_payload *p, uint32_t i)
{
	for (unsigned k = 0; k < p->n_pieces; k++) {
		const struct vcam_replay_piece *c = &p->pieces[k];
		if (i >= c->offset && i < c->offset + c->length)
			return i - c->offset < c->head_len ? c->head[i - c->offset]
							   : (uint8_t)(i * 37u % 251u);
	}
	return 0;
}

static void next_payload(struct vcam_replay *r)
{
	r->sent = 0;
	if (++r->at == r->n) {
		r->at = 0;
		r->loops++;
	}
}

long vcam_replay_urb(struct vcam_replay *r, uint8_t *out, size_t room)
{
	const struct vcam_replay_payload *p;

	if (!r->n)
		return -EIO;
	p = &r->payloads[r->at];
	if (r->zlp_owed || p->status < 0) {
		int status = r->zlp_owed ? 0 : p->status;
		r->zlp_owed = false;
		if (status < 0)
			next_payload(r);
		return status;
	}
	uint32_t n = p->length - r->sent < room ? p->length - r->sent : (uint32_t)room;
	for (uint32_t i = 0; i < n; i++)
		out[i] = payload_byte(p, r->sent + i);
	r->sent += n;
	if (r->sent == p->length) {
		r->zlp_owed = n == room && n > 0;
		next_payload(r);
	}
	return n;
}
