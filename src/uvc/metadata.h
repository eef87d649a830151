/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Payload headers as uvcvideo's metadata node hands them out: blocks of
 * struct uvc_meta_buf (<linux/uvcvideo.h>: the host's time and USB frame
 * number when the header came, then the header itself), back to back in a
 * buffer, for the formats V4L2_META_FMT_UVC ('UVCH': the header's standard
 * part, and only when its SCR is new) and V4L2_META_FMT_UVC_MSXU_1_5
 * ('UVCM': the whole header, Microsoft's metadata items included). The
 * rules are uvcvideo 7.x's (uvc_video_decode_meta), facts in
 * docs/uvcvideo-metadata.md:
 *  - a header of bHeaderLength 2 (no PTS, SCR or more) is not kept;
 *  - UVCH keeps 2, 6, 8 or 12 bytes (bmHeaderInfo, PTS, SCR); a header of
 *    just those bytes is kept only when it carries an SCR that differs from
 *    the last one kept;
 *  - a block that does not fit marks the buffer errored and is left out;
 *  - a block's length field is the header's bHeaderLength, also where UVCH
 *    kept less of it.
 * Where a header's flags announce more than its packet holds, the block
 * takes what the packet has and zeroes the rest (uvcvideo would read on
 * past the packet). Pure: bytes in, bytes out. */
#ifndef UVC_METADATA_H
#define UVC_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/videodev2.h>

#ifndef V4L2_META_FMT_UVC_MSXU_1_5 /* Linux 6.17 */
#define V4L2_META_FMT_UVC_MSXU_1_5 v4l2_fourcc('U', 'V', 'C', 'M')
#endif

/* Microsoft's UVC 1.5 extension unit (UVC_GUID_MSXU_1_5 in the kernel's
 * <linux/usb/uvc.h>, which Debian 12's uapi headers lack) and its metadata
 * control: a camera whose MSXU answers it sends Microsoft's metadata in its
 * payload headers once the control is set to its maximum (uvcvideo 6.17's
 * uvc_meta_detect_msxu). */
extern const uint8_t uvc_msxu_guid[16];
#define UVC_MSXU_CONTROL_METADATA 0x09

struct uvc_camera;
struct uvc_entity;
/* The camera's MSXU, or NULL. */
const struct uvc_entity *uvc_meta_msxu_unit(const struct uvc_camera *camera);

/* A block's fixed part: ns (8), sof (2), length (1), flags (1). */
#define UVC_META_BLOCK_HEAD 12
/* uvcvideo's buffer size (UVC_METADATA_BUF_SIZE), and 7.1's least. */
#define UVC_META_BUF_SIZE 10240

struct uvc_meta_writer {
	uint8_t *buf; /* NULL: nothing is kept (no buffer queued) */
	size_t cap, used;
	bool whole_headers; /* UVCM; else UVCH */
	bool error;         /* a block did not fit */
	/* the SCR of the last block kept, across buffers and streams (as
	 * uvcvideo's, never reset) */
	bool has_last_scr;
	uint8_t last_scr[6];
};

/* A new buffer: blocks go to buf (cap bytes) from its start. */
void uvc_meta_begin(struct uvc_meta_writer *w, uint8_t *buf, size_t cap);

/* The header at the start of a packet (packet_len bytes: its header and
 * what follows), received at host time ns (CLOCK_MONOTONIC) and USB frame
 * sof: a block for it when the rules say so. Returns the bytes added. */
size_t uvc_meta_header(struct uvc_meta_writer *w, const uint8_t *packet, size_t packet_len,
		       uint64_t ns, uint16_t sof);

/* The USB frame number the host would read at ns: a 1 kHz count, 11 bits.
 * usbfs gives a program no frame number, so it is derived from the time. */
uint16_t uvc_meta_sof_of(uint64_t ns);

#endif
