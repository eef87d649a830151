/* SPDX-License-Identifier: GPL-2.0-or-later */
/* USB/IP as vhci-hcd speaks it: the 48-byte headers of CMD_SUBMIT,
 * RET_SUBMIT, CMD_UNLINK and RET_UNLINK, isochronous packet descriptors,
 * and attaching a socket to a vhci-hcd port through sysfs. */
#ifndef VCAM_USBIP_H
#define VCAM_USBIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	USBIP_CMD_SUBMIT = 1,
	USBIP_CMD_UNLINK = 2,
	USBIP_RET_SUBMIT = 3,
	USBIP_RET_UNLINK = 4,
};
enum { USBIP_DIR_OUT = 0, USBIP_DIR_IN = 1 };

#define USBIP_HEADER_SIZE 48
#define USBIP_ISO_DESC_SIZE 16
/* vhci-hcd never sends more packets than this per URB (USBIP_MAX_ISO_PACKETS). */
#define USBIP_MAX_ISO_PACKETS 1024

struct usbip_header {
	uint32_t command, seqnum, devid, direction, ep;
	/* CMD_SUBMIT */
	uint32_t transfer_flags;
	int32_t length, start_frame, packets, interval;
	uint8_t setup[8];
	/* CMD_UNLINK */
	uint32_t unlink_seqnum;
};

struct usbip_iso_desc {
	uint32_t offset, length, actual_length;
	int32_t status;
};

/* Decodes a command from the host; -EPROTO for anything vhci never sends
 * or fields out of range. */
int usbip_decode_command(const uint8_t raw[USBIP_HEADER_SIZE], struct usbip_header *h);

void usbip_encode_ret_submit(uint8_t raw[USBIP_HEADER_SIZE], uint32_t seqnum, int32_t status,
			     int32_t actual_length, int32_t start_frame, int32_t packets,
			     int32_t error_count);
void usbip_encode_ret_unlink(uint8_t raw[USBIP_HEADER_SIZE], uint32_t seqnum, int32_t status);

void usbip_decode_iso(const uint8_t *raw, struct usbip_iso_desc *d);
void usbip_encode_iso(uint8_t *raw, const struct usbip_iso_desc *d);

/* Kernel USB speeds as vhci's attach file takes them. */
enum { USBIP_SPEED_HIGH = 3, USBIP_SPEED_SUPER = 5 };

#define VHCI_SYSFS "/sys/devices/platform/vhci_hcd.0"

/* Attaches a new socketpair to a free vhci-hcd port of the right hub.
 * Returns 0 with our end in *fd and the port in *port, or a negative errno
 * (-ENODEV: vhci-hcd is not loaded; -EBUSY: no free port). */
int usbip_attach(bool super_speed, uint32_t devid, int *fd, int *port);

/* Unplugs the device on that port. */
int usbip_detach(int port);

#endif
