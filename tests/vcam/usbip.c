/* SPDX-License-Identifier: GPL-2.0-or-later */
/* USB/IP wire format (all fields big endian) and vhci-hcd sysfs glue. */
#include "usbip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

int usbip_decode_command(const uint8_t raw[USBIP_HEADER_SIZE], struct usbip_header *h)
{
	memset(h, 0, sizeof(*h));
	h->command = get32(raw);
	h->seqnum = get32(raw + 4);
	h->devid = get32(raw + 8);
	h->direction = get32(raw + 12);
	h->ep = get32(raw + 16);
	if (h->direction > USBIP_DIR_IN || h->ep > 15)
		return -EPROTO;
	switch (h->command) {
	case USBIP_CMD_SUBMIT:
		h->transfer_flags = get32(raw + 20);
		h->length = (int32_t)get32(raw + 24);
		h->start_frame = (int32_t)get32(raw + 28);
		h->packets = (int32_t)get32(raw + 32);
		h->interval = (int32_t)get32(raw + 36);
		memcpy(h->setup, raw + 40, 8);
		/* vhci sends -1 packets for non-isochronous URBs on some kernels */
		if (h->packets < 0)
			h->packets = 0;
		if (h->length < 0 || h->packets > USBIP_MAX_ISO_PACKETS)
			return -EPROTO;
		return 0;
	case USBIP_CMD_UNLINK:
		h->unlink_seqnum = get32(raw + 20);
		return 0;
	default:
		return -EPROTO;
	}
}

static void encode_basic(uint8_t raw[USBIP_HEADER_SIZE], uint32_t command, uint32_t seqnum)
{
	memset(raw, 0, USBIP_HEADER_SIZE);
	put32(raw, command);
	put32(raw + 4, seqnum);
	/* devid, direction and ep are zero in replies, as usbip-host sends them. */
}

void usbip_encode_ret_submit(uint8_t raw[USBIP_HEADER_SIZE], uint32_t seqnum, int32_t status,
			     int32_t actual_length, int32_t start_frame, int32_t packets,
			     int32_t error_count)
{
	encode_basic(raw, USBIP_RET_SUBMIT, seqnum);
	put32(raw + 20, (uint32_t)status);
	put32(raw + 24, (uint32_t)actual_length);
	put32(raw + 28, (uint32_t)start_frame);
	put32(raw + 32, (uint32_t)packets);
	put32(raw + 36, (uint32_t)error_count);
}

void usbip_encode_ret_unlink(uint8_t raw[USBIP_HEADER_SIZE], uint32_t seqnum, int32_t status)
{
	encode_basic(raw, USBIP_RET_UNLINK, seqnum);
	put32(raw + 20, (uint32_t)status);
}

void usbip_decode_iso(const uint8_t *raw, struct usbip_iso_desc *d)
{
	d->offset = get32(raw);
	d->length = get32(raw + 4);
	d->actual_length = get32(raw + 8);
	d->status = (int32_t)get32(raw + 12);
}

void usbip_encode_iso(uint8_t *raw, const struct usbip_iso_desc *d)
{
	put32(raw, d->offset);
	put32(raw + 4, d->length);
	put32(raw + 8, d->actual_length);
	put32(raw + 12, (uint32_t)d->status);
}

static int write_sysfs(const char *name, const char *text)
{
	char path[128];
	snprintf(path, sizeof(path), VHCI_SYSFS "/%s", name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* vhci's status files list one port a line: "hs  0003 004 ..." where 004
 * (VDEV_ST_NULL) means free. Controller 0 has "status", the others
 * "status.N". Returns the next free port after `after` on the wanted hub. */
static int find_free_port(bool super_speed, int after)
{
	const char *hub = super_speed ? "ss" : "hs";
	int best = -1;
	for (int c = 0; c < 32 && best < 0; c++) {
		char path[128];
		if (c == 0)
			snprintf(path, sizeof(path), VHCI_SYSFS "/status");
		else
			snprintf(path, sizeof(path), VHCI_SYSFS "/status.%d", c);
		FILE *f = fopen(path, "re");
		if (!f)
			break;
		char line[256];
		while (fgets(line, sizeof(line), f)) {
			char kind[8];
			unsigned port, state;
			if (sscanf(line, "%7s %u %u", kind, &port, &state) != 3)
				continue;
			if (strcmp(kind, hub) == 0 && state == 4 && (int)port > after) {
				best = (int)port;
				break;
			}
		}
		fclose(f);
	}
	return best;
}

int usbip_attach(bool super_speed, uint32_t devid, int *fd, int *port)
{
	if (access(VHCI_SYSFS "/attach", W_OK) != 0)
		return -ENODEV;
	int after = -1;
	for (;;) {
		int p = find_free_port(super_speed, after);
		if (p < 0)
			return -EBUSY;
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return -errno;
		char text[64];
		snprintf(text, sizeof(text), "%d %d %u %d", p, sv[1], devid,
			 super_speed ? USBIP_SPEED_SUPER : USBIP_SPEED_HIGH);
		int err = write_sysfs("attach", text);
		/* The kernel holds its own reference to the socket now. */
		close(sv[1]);
		if (err == 0) {
			*fd = sv[0];
			*port = p;
			return 0;
		}
		close(sv[0]);
		if (err != -EBUSY && err != -EINVAL)
			return err;
		after = p; /* another camera took it first: try the next port */
	}
}

int usbip_detach(int port)
{
	char text[16];
	snprintf(text, sizeof(text), "%d", port);
	return write_sysfs("detach", text);
}
