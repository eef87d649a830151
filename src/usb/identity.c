/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which camera: VID:PID parsing, and the identity a camera keeps across
 * replugs (the systemd instance name the udev rule builds). Pure. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "usb/usb.h"

static int parse_hex16(const char *s, size_t n, uint16_t *out)
{
	if (n < 1 || n > 4)
		return -EINVAL;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
		v = v * 16 + (unsigned)(isdigit((unsigned char)s[i]) ? s[i] - '0'
								    : tolower((unsigned char)s[i]) - 'a' + 10);
	}
	*out = (uint16_t)v;
	return 0;
}

int usb_match_parse_id(const char *s, struct usb_match *m)
{
	if (!s)
		return -EINVAL;
	const char *colon = strchr(s, ':');
	if (!colon)
		return -EINVAL;
	uint16_t vid, pid;
	if (parse_hex16(s, (size_t)(colon - s), &vid) < 0 ||
	    parse_hex16(colon + 1, strlen(colon + 1), &pid) < 0)
		return -EINVAL;
	m->by_id = true;
	m->vid = vid;
	m->pid = pid;
	return 0;
}

/* A port path as sysfs names a USB device: "BUS-PORT[.PORT...]", numbers. */
static bool port_path_valid(const char *s)
{
	const char *p = s;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '-')
		return false;
	for (;;) {
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
		if (!*p)
			return true;
		if (*p++ != '.')
			return false;
	}
}

int usb_match_parse_identity(const char *s, struct usb_match *m)
{
	if (!s)
		return -EINVAL;
	bool by_serial;
	if (!strncmp(s, "serial-", 7))
		by_serial = true;
	else if (!strncmp(s, "port-", 5))
		by_serial = false;
	else
		return -EINVAL;
	const char *ids = strchr(s, '-') + 1;
	/* VVVV-PPPP-rest: exactly four hex digits each */
	if (strlen(ids) < 11 || ids[4] != '-' || ids[9] != '-')
		return -EINVAL;
	uint16_t vid, pid;
	if (parse_hex16(ids, 4, &vid) < 0 || parse_hex16(ids + 5, 4, &pid) < 0)
		return -EINVAL;
	const char *rest = ids + 10;
	if (by_serial ? !*rest : !port_path_valid(rest))
		return -EINVAL;
	m->by_id = true;
	m->vid = vid;
	m->pid = pid;
	if (by_serial)
		m->serial = rest;
	else
		m->port_path = rest;
	return 0;
}

/* udev's ID_SERIAL_SHORT (its usb_id builtin): surrounding white space
 * dropped, each run of white space inside one '_', and every byte but
 * letters, digits, "#+-.:=@_" and non-ASCII (udev keeps valid UTF-8) '_'. */
void usb_serial_udev(const char *raw, char *out, size_t len)
{
	if (!len)
		return;
	size_t n = 0;
	const char *p = raw;
	while (isspace((unsigned char)*p))
		p++;
	while (*p && n + 1 < len) {
		unsigned char c = (unsigned char)*p;
		if (isspace(c)) {
			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			out[n++] = '_';
			continue;
		}
		out[n++] = (isalnum(c) || c >= 0x80 || strchr("#+-.:=@_", c)) ? (char)c : '_';
		p++;
	}
	out[n] = '\0';
}

bool usb_serial_matches(const char *want, const char *serial)
{
	if (!strcmp(want, serial))
		return true;
	char udev[sizeof(((struct usb_camera_id *)0)->serial)];
	usb_serial_udev(serial, udev, sizeof(udev));
	return !strcmp(want, udev);
}

int usb_camera_identity(const struct usb_camera_id *id, char *out, size_t len)
{
	int n;
	if (id->serial[0]) {
		char udev[sizeof(id->serial)];
		usb_serial_udev(id->serial, udev, sizeof(udev));
		n = snprintf(out, len, "serial-%04x-%04x-%s", id->vid, id->pid, udev);
	} else {
		n = snprintf(out, len, "port-%04x-%04x-%s", id->vid, id->pid, id->port_path);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
