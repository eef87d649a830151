/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to the descriptor parser (descriptors.c walks the configuration,
 * descriptors_vc.c and descriptors_vs.c take the VideoControl and the
 * VideoStreaming class descriptors): the parser's state and the helpers
 * its parts share. */
#ifndef UVC_DESCRIPTORS_PRIV_H
#define UVC_DESCRIPTORS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "descriptors.h"

struct parser {
	struct uvc_camera *cam;
	struct uvc_parse_status *status;
	int want_vc;           /* the VideoControl interface to parse, -1: first */
	bool have_vc;          /* the first VideoControl interface was seen */
	bool vendor_class;     /* ... and it is vendor-specific (asked for by number) */
	bool vc_done;          /* ... and a later one started: ignore it */
	bool have_header;
	uint8_t n_collection;  /* VC header bInCollection */
	uint8_t collection[32];
	enum { IN_OTHER, IN_VC, IN_VS } where;
	struct uvc_streaming *vs;  /* current VS interface */
	uint8_t alt;
	struct uvc_alt *last_alt;  /* for the SS companion */
	struct uvc_format *format; /* current format */
	size_t cut_at;             /* offset of an invalid bLength that ended the
				    * configuration (0: none), for the error */
	/* (interface, alternate setting) pairs seen: bit alt of seen[intf] */
	uint8_t seen[256][256 / 8];
};

static inline unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Sets the parse status's error; returns -EINVAL. */
__attribute__((format(printf, 2, 3))) int desc_fail(struct parser *ps, const char *fmt, ...);
/* Counts a tolerated oddity and keeps its message as the last warning. */
__attribute__((format(printf, 2, 3))) void desc_warn(struct parser *ps, const char *fmt, ...);
/* Appends one zeroed element to *array; NULL on ENOMEM. */
void *desc_append(void *array_ptr, unsigned *n, size_t size);

/* descriptors_vc.c: a class-specific descriptor of the VideoControl
 * interface (the header, a terminal or a unit). */
int desc_parse_vc(struct parser *ps, const uint8_t *d, unsigned l);

/* descriptors_vs.c: a class-specific descriptor of a VideoStreaming
 * interface. avail: the bytes from d to the interface's next standard
 * descriptor, which is what uvcvideo checks an input header against, not
 * its bLength; only an input header needs it. */
int desc_parse_vs(struct parser *ps, const uint8_t *d, unsigned l, size_t avail);

#endif
