/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera's frame source: the test picture (tests/common/) with
 * each frame's stamp, or access units of an H.264 file.
 *
 * Raw formats: the picture of each phase is made once (lazily) and kept; a
 * frame is that buffer with the stamp band rewritten (no copy).
 * MJPEG: each phase is encoded once (libjpeg-turbo, 4:2:2, quality 85, a
 * restart marker after every MCU row); a frame is a copy of it with the stamp
 * as a COM segment after SOI and the band's MCU rows re-encoded with the
 * stamp's blocks, so the stamp also survives decoding.
 * H.264: the file's access units in file order, one per frame, looping. */
#ifndef VCAM_FRAMES_H
#define VCAM_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vcam_pixel {
	VCAM_PIXEL_YUYV,
	VCAM_PIXEL_NV12,
	VCAM_PIXEL_MJPEG,
	VCAM_PIXEL_H264,
	/* for impersonated cameras (the test picture in these layouts too) */
	VCAM_PIXEL_YU12,
	VCAM_PIXEL_YV12,
	VCAM_PIXEL_RGB24,
	VCAM_PIXEL_BGR24,
	VCAM_PIXEL_UYVY,
	VCAM_PIXEL_SBGGR8, /* 8-bit Bayer mosaics of the test picture */
	VCAM_PIXEL_SGBRG8,
	VCAM_PIXEL_SGRBG8,
	VCAM_PIXEL_SRGGB8,
	/* formats the test picture has no layout for (GREY, Y16, 10-bit Bayer,
	 * ...): frames of the right length, grey, without a stamp; 8, 12, 16,
	 * 24 or 32 bits per pixel */
	VCAM_PIXEL_OPAQUE8,
	VCAM_PIXEL_OPAQUE12,
	VCAM_PIXEL_OPAQUE16,
	VCAM_PIXEL_OPAQUE24,
	VCAM_PIXEL_OPAQUE32,
};
#define VCAM_PIXEL_LAST VCAM_PIXEL_OPAQUE32

/* Bits per pixel of an opaque format, 0 for the others. */
unsigned vcam_pixel_opaque_bits(enum vcam_pixel pixel);

#define VCAM_JPEG_QUALITY 85

struct vcam_frames;

/* NULL + errno on failure: EINVAL for a size the picture cannot have (even,
 * 16..16384 each way, and wide enough for the stamp band), ENOMEM.
 * H264 succeeds without a file; vcam_frames_get() then fails with ENODATA
 * until vcam_frames_set_h264_file() has loaded one. */
struct vcam_frames *vcam_frames_new(enum vcam_pixel pixel, unsigned width, unsigned height,
				    int brightness);

/* Takes effect from the next frame; each phase is remade when first needed.
 * Clamped to -32768..32767 (the picture itself saturates). 0 or -errno. */
int vcam_frames_set_brightness(struct vcam_frames *f, int brightness);
/* The brightness the pictures are (or will be) drawn with. */
int vcam_frames_brightness(const struct vcam_frames *f);

/* Loads an Annex-B stream and splits it into access units. 0, or -EINVAL
 * (not H264 frames, or no slice in the file), -ENOENT/-EACCES/..., -EFBIG. */
int vcam_frames_set_h264_file(struct vcam_frames *f, const char *path);

/* Makes the next H.264 frame the file's first access unit (for a new
 * stream, so that it starts with the file's IDR). No-op for other formats. */
void vcam_frames_rewind(struct vcam_frames *f);

/* Draws (and for MJPEG encodes) every phase now, so that streaming never
 * waits for one: the camera calls it before a stream starts and after a
 * brightness change. 0 or a negative errno. */
int vcam_frames_prepare(struct vcam_frames *f);

/* The frame with this sequence number and capture time. The buffer stays
 * valid until the next call. NULL + errno (ENOMEM, ENODATA, EOVERFLOW). */
const uint8_t *vcam_frames_get(struct vcam_frames *f, uint32_t sequence, uint64_t time_ns,
			       size_t *length);

/* Bound on the frames' length, for dwMaxVideoFrameSize: the frame size for
 * raw formats, width * height * 2 for MJPEG (frames never exceed it), the
 * largest access unit for H.264 (width * height * 2 before a file). */
size_t vcam_frames_max_size(const struct vcam_frames *f);

/* For tests: whether MJPEG frames code their band without libjpeg (the
 * per-frame fast path; it is used only when it matches libjpeg's output). */
bool vcam_frames_fast_band(const struct vcam_frames *f);

void vcam_frames_free(struct vcam_frames *f);

/* The corrupt-JPEG fault: writes RST7 markers (FF D7) over 32 bytes three
 * quarters into a JPEG, inside its entropy-coded data, which carries no
 * restart markers: a decoder warns (corrupt data) where it meets them. The
 * length, the headers and the stamp's COM segment stay as they were.
 * -EINVAL when the data is not a JPEG long enough to hold the damage. */
int vcam_frames_corrupt_jpeg(uint8_t *jpeg, size_t len);

#endif
