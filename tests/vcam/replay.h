/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A real camera's bulk traffic played again (`uvcuse-vcam --replay TRACE`):
 * the payloads of a usbmon text trace (Documentation/usb/usbmon.rst, the
 * "1u" text format: one line per URB submission and completion, the first
 * 32 bytes of data in hex) in their order and at their recorded times,
 * whatever the host negotiated. usbmon keeps only the first bytes of each
 * URB: the rest of a payload is filler, the same for every host, so two
 * drivers given the same trace can be compared byte for byte. Pure apart
 * from reading the trace's file: text in, payloads out, URBs filled on
 * request. */
#ifndef VCAM_REPLAY_H
#define VCAM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VCAM_REPLAY_HEAD 32 /* bytes usbmon text shows of a URB */

/* One URB's part of a payload as recorded. */
struct vcam_replay_piece {
	uint32_t offset, length;       /* in the payload */
	uint8_t head[VCAM_REPLAY_HEAD]; /* its first bytes as recorded */
	uint8_t head_len;
};

/* One payload transfer, or a transfer error (status < 0, no bytes). */
struct vcam_replay_payload {
	uint64_t time_us;   /* since the trace's first payload */
	int status;         /* 0, or the completion's negative errno (-EPROTO) */
	uint32_t length;
	unsigned n_pieces;
	struct vcam_replay_piece *pieces;
};

struct vcam_replay {
	char endpoint[24];  /* "Bi:1:004:1": the one played */
	unsigned n;
	struct vcam_replay_payload *payloads;
	uint64_t duration_us; /* first to last payload, plus one gap */
	unsigned frames;      /* payloads with EOF set in their header */
	/* playing: the payload, bytes of it sent, the loop */
	unsigned at;
	uint32_t sent;
	uint64_t loops;
	bool zlp_owed;
};

/* Reads a usbmon text trace: the bulk IN endpoint whose completions most
 * often begin with a UVC payload header, its completions grouped into
 * payload transfers (one ends at a completion shorter than its URB, or
 * where the next completion begins with a header), unlinked ones (-ENOENT,
 * -ECONNRESET) left out. Returns 0, -EINVAL (no such endpoint; why in err),
 * -ENOMEM. */
int vcam_replay_parse(const char *text, struct vcam_replay *r, char *err, size_t err_cap);

/* The same from a file (at most 16 MiB). */
int vcam_replay_load(const char *path, struct vcam_replay *r, char *err, size_t err_cap);

void vcam_replay_free(struct vcam_replay *r);

/* When the current payload is due, in microseconds since the replay
 * started (the trace plays in a loop). */
uint64_t vcam_replay_due_us(const struct vcam_replay *r);

/* Fills one bulk URB of room bytes with the current payload: returns the
 * bytes written (0: a zero-length packet ending a payload that filled its
 * last URB), or the payload's negative status for a recorded transfer
 * error; moves on when the payload is done. */
long vcam_replay_urb(struct vcam_replay *r, uint8_t *out, size_t room);

#endif
