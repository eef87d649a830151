/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status socket's message (pure): what one daemon tells `uvcuse
 * --status` and `uvcuse --udev-properties`. On accept the daemon sends one
 * SOCK_SEQPACKET message and closes: text lines "key=value\n", the first
 * "version=1"; readers ignore keys they do not know. Keys: node card
 * manufacturer product vid pid (4 hex digits) serial port bus_info
 * interface fourcc (4 chars, "" for none) width height interval (100 ns)
 * streaming (0/1) away (0/1: the camera is unplugged, the node waits for
 * it) frames dropped errors clients streamers (processes streaming: several
 * share the camera) iso_bytes measured_mfps (the frame rate measured over
 * the last second, in frames per 1000 s; 0 when no frame came for 2 s)
 * stream0..stream7 ("frames,lost" of each process streaming, in the order
 * they came: frames delivered to it, frames it lost for want of a
 * buffer). Values never hold
 * a newline or other control characters (they become '?'). */
#ifndef UVCUSE_STATUS_MSG_H
#define UVCUSE_STATUS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATUS_MSG_MAX 4096
/* The processes streaming that the message counts one by one. */
#define STATUS_MAX_STREAMS 8

/* What `uvcuse --status` and systemd's STATUS= show of a device. */
struct device_status {
	char node[64];            /* "video10" */
	char meta_node[64];       /* its metadata node, "video11" ("": none) */
	char card[32];
	char manufacturer[128], product[128];
	uint16_t vid, pid;
	char serial[128];
	char port_path[32];       /* "1-2.3" */
	char bus_info[64];        /* "usb-vhci_hcd.0-1" */
	uint8_t interface;        /* the VideoControl interface */
	uint32_t fourcc;
	unsigned width, height;
	uint32_t interval;        /* 100 ns units, 0 when unknown */
	bool streaming;
	bool away;                /* unplugged: the node waits for the camera */
	uint64_t frames, dropped, errors;
	unsigned clients;         /* open files (a count: no names) */
	unsigned streamers;       /* processes streaming (a count: no names) */
	uint32_t iso_bytes;       /* bytes per interval of the alt setting in use, 0 when none */
	uint32_t measured_mfps;   /* measured frames per 1000 s, 0: no frame for 2 s */
	unsigned n_streams;       /* the processes streaming, at most STATUS_MAX_STREAMS */
	struct {
		uint64_t frames, lost;
	} streams[STATUS_MAX_STREAMS];
};

/* Returns the message length, or -ENOSPC. */
int status_msg_encode(const struct device_status *st, char *buf, size_t len);
/* -EPROTO for a message that is not version 1 or misses node. */
int status_msg_decode(const char *buf, size_t len, struct device_status *out);

/* One JSON object of `uvcuse --status --json` (no newline). Returns the
 * length, or -ENOSPC. */
int status_msg_json(const struct device_status *st, char *out, size_t len);
/* One line of `uvcuse --status` (no newline). */
void status_msg_line(const struct device_status *st, char *out, size_t len);
/* systemd's STATUS= text. */
void status_msg_summary(const struct device_status *st, char *out, size_t len);
/* The udev properties of `uvcuse --udev-properties`, as udev's usb_id and
 * path_id would give them for the camera's VideoControl interface:
 * ID_VENDOR_ID, ID_MODEL_ID, ID_SERIAL, ID_SERIAL_SHORT (when the camera
 * has a serial), ID_PATH, ID_PATH_TAG, ID_USB_INTERFACE_NUM; and ours:
 * UVCUSE=1, UVCUSE_INDEX (0: the video node, 1: its metadata node, as the
 * kernel's index attribute); lines end in '\n'. Returns the length or
 * -ENOSPC. */
int status_msg_udev_properties(const struct device_status *st, unsigned index, char *out,
			       size_t len);

#endif
