/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A UVC camera as its configuration descriptor describes it: the model that
 * the rest of the daemon works from. Pure: bytes in, model out, no I/O. */
#ifndef UVC_DESCRIPTORS_H
#define UVC_DESCRIPTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum uvc_entity_kind {
	UVC_ENTITY_INPUT_TERMINAL,  /* camera terminal when type == UVC_ITT_CAMERA */
	UVC_ENTITY_OUTPUT_TERMINAL,
	UVC_ENTITY_SELECTOR_UNIT,
	UVC_ENTITY_PROCESSING_UNIT,
	UVC_ENTITY_EXTENSION_UNIT,
	UVC_ENTITY_ENCODING_UNIT,   /* UVC 1.5 */
};

struct uvc_entity {
	enum uvc_entity_kind kind;
	uint8_t id;
	uint16_t type;           /* wTerminalType for terminals, 0 for units */
	uint8_t assoc_terminal;  /* terminals */
	uint8_t n_sources;
	uint8_t *sources;        /* bSourceID / baSourceID[] */
	uint8_t control_size;    /* bControlSize (bytes in controls) */
	uint8_t *controls;       /* bmControls, little endian bit order */
	uint8_t guid[16];        /* extension units */
	uint8_t n_controls;      /* extension units: bNumControls */
	uint16_t max_multiplier; /* processing units: wMaxMultiplier */
	uint8_t video_standards; /* processing units, UVC >= 1.1: bmVideoStandards */
	uint16_t focal_min, focal_max, ocular_focal; /* camera terminals */
	uint8_t string_index;    /* terminals: iTerminal (0: none) */
	/* Its string, when whoever opened the camera read it (uvcvideo names
	 * an input terminal so); empty: none, or not read. */
	char name[64];
};

struct uvc_interval_range {
	uint32_t min, max, step;
};

struct uvc_frame {
	uint8_t index;
	uint8_t capabilities;          /* bmCapabilities */
	uint16_t width, height;
	uint32_t min_bit_rate, max_bit_rate;
	/* dwMaxVideoFrameBufferSize; for frame-based formats, which lack it,
	 * width * height * bpp / 8 as uvcvideo computes it (bpp 16 when the
	 * format says 0). */
	uint32_t max_buffer_size;
	uint32_t bytes_per_line;       /* frame-based only */
	uint32_t default_interval;     /* 100 ns units */
	bool continuous;               /* bFrameIntervalType == 0: see range */
	struct uvc_interval_range range;
	uint8_t n_intervals;           /* discrete intervals */
	uint32_t *intervals;
};

enum uvc_format_kind {
	UVC_FORMAT_UNCOMPRESSED,
	UVC_FORMAT_MJPEG,
	UVC_FORMAT_FRAME_BASED,
};

struct uvc_still_size {
	uint16_t width, height;
};

struct uvc_format {
	uint8_t index;
	enum uvc_format_kind kind;
	uint8_t guid[16];              /* zero for MJPEG */
	uint32_t fourcc;               /* V4L2_PIX_FMT_*, 0 when the GUID is unknown */
	uint8_t bpp;
	uint8_t default_frame;
	uint8_t flags;                 /* MJPEG bmFlags, frame-based bVariableSize */
	uint8_t interlace_flags;
	uint8_t n_frames_declared;     /* bNumFrameDescriptors */
	bool has_color;
	uint8_t primaries, transfer, matrix;
	unsigned n_frames;
	struct uvc_frame *frames;
	unsigned n_stills;             /* still image frame sizes */
	struct uvc_still_size *stills;
};

enum uvc_transfer { UVC_TRANSFER_ISOCHRONOUS, UVC_TRANSFER_BULK };

struct uvc_alt {
	uint8_t alt;                   /* bAlternateSetting */
	uint8_t endpoint;              /* bEndpointAddress (the stream's: others are dropped) */
	enum uvc_transfer transfer;    /* the endpoint's */
	uint16_t max_packet;           /* raw wMaxPacketSize */
	/* Bytes per service interval: HS (bits 0-10) * (bits 11-12 + 1);
	 * SS the companion's wBytesPerInterval (computed from bMaxBurst and
	 * Mult when the companion says 0). Bulk: the packet size. */
	uint32_t bytes;
};

struct uvc_streaming {
	uint32_t quirks;               /* the camera's (uvc/quirks.h), for the negotiation */
	bool full_speed;               /* the camera runs at 12 Mbit/s or less (1 ms
					* frames, not 125 us microframes); set by
					* whoever opens it, for FIX_BANDWIDTH */
	uint8_t interface;
	uint8_t endpoint;              /* 0 when none was found */
	enum uvc_transfer transfer;
	uint8_t info;                  /* input header bmInfo */
	uint8_t terminal_link;
	uint8_t still_method;
	uint8_t trigger_support, trigger_usage;
	unsigned n_alts;
	struct uvc_alt *alts;
	unsigned n_formats;
	struct uvc_format *formats;
};

struct uvc_ctrl_mapping;

struct uvc_camera {
	/* uvcvideo's quirks for this camera (uvc/quirks.h: uvc_quirks_apply()),
	 * and the mapping its device table gives one control instead of the
	 * standard ones (NULL: none) */
	uint32_t quirks;
	const struct uvc_ctrl_mapping *custom_mapping;
	uint16_t bcd_uvc;
	uint32_t clock_frequency;
	uint8_t control_interface;
	uint8_t status_endpoint;       /* 0: no interrupt endpoint */
	uint16_t status_packet;
	unsigned n_entities;
	struct uvc_entity *entities;
	unsigned n_streams;
	struct uvc_streaming *streams;
};

/* What went wrong (error) or was tolerated (warning, last one kept). */
struct uvc_parse_status {
	char error[128];
	char warning[128];
	unsigned n_warnings;
};

/* Parses a configuration descriptor (as GET_DESCRIPTOR returns it) into a
 * new camera. Returns 0, -EINVAL with status->error set for a descriptor
 * that is malformed or describes no usable camera, -ENOMEM. status may be
 * NULL. Tolerated, with a warning: wTotalLength beyond the buffer (the
 * available bytes are parsed), a descriptor whose bLength is below 2 or
 * runs past the end, and a stray byte at the end (the configuration ends
 * there, what precedes is kept: the kernel's usb_parse_configuration()
 * rule, so the camera is what uvcvideo sees), a format with fewer frames than declared,
 * unknown VS subtypes, VS class descriptors after the endpoint; a format
 * without any frame descriptor is left out (every format in the model has
 * at least one frame). */
int uvc_parse_descriptors(const uint8_t *desc, size_t len, struct uvc_camera **camera,
			  struct uvc_parse_status *status);

/* The same for the video function whose VideoControl interface is
 * control_interface (a configuration can hold several, e.g. a colour and an
 * IR camera); -1 picks the first, as uvc_parse_descriptors() does. Only by
 * number is a vendor-specific interface (class 0xff, subclass 1) taken as
 * the VideoControl interface, as for the cameras uvcvideo's device table
 * binds so (uvc_quirks_match). */
int uvc_parse_function(const uint8_t *desc, size_t len, int control_interface,
		       struct uvc_camera **camera, struct uvc_parse_status *status);

void uvc_camera_free(struct uvc_camera *camera);

/* Walks a configuration descriptor: with *pos 0 at first, returns each
 * whole descriptor in turn (bLength at least 2, inside len) and moves *pos
 * past it; NULL at the end or at the first one that is not whole.
 *   for (size_t pos = 0; (d = uvc_next_descriptor(desc, len, &pos));) */
const uint8_t *uvc_next_descriptor(const uint8_t *desc, size_t len, size_t *pos);

/* The string descriptor index that names the video function whose
 * VideoControl interface is control_interface: the iFunction of the
 * interface association that holds it, else the interface's own iInterface
 * (uvcvideo appends that string to the card name, after ": "). 0: none. */
uint8_t uvc_function_string_index(const uint8_t *desc, size_t len, uint8_t control_interface);

/* V4L2 fourcc of a format GUID, 0 when unknown. */
uint32_t uvc_guid_to_fourcc(const uint8_t guid[16]);

const struct uvc_entity *uvc_camera_find_entity(const struct uvc_camera *camera, uint8_t id);

/* The format with bFormatIndex index, or NULL. */
const struct uvc_format *uvc_stream_find_format(const struct uvc_streaming *stream, uint8_t index);
/* The frame with bFrameIndex index, or NULL (also for a NULL format). */
const struct uvc_frame *uvc_format_find_frame(const struct uvc_format *format, uint8_t index);

/* Whether bit 'bit' of an entity's bmControls is set. */
bool uvc_entity_has_control(const struct uvc_entity *e, unsigned bit);

#endif
