/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Start-up: the camera opened (the error says which camera was asked
 * for), its quirks, and what uvcvideo reads when it binds: the node's
 * identity, the controls' GET_INFO, the start-up probe. Synchronous: no
 * app can be served yet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <linux/usb/video.h>
#include <linux/version.h>

#include "core/log.h"
#include "device/internal.h"
#include "uvc/quirks.h"

static uint32_t running_kernel_version(void)
{
	struct utsname u;
	unsigned a = 0, b = 0, c = 0;
	if (uname(&u) == 0)
		sscanf(u.release, "%u.%u.%u", &a, &b, &c);
	return KERNEL_VERSION(a, b, c > 255 ? 255 : c);
}

/* The start-up probe, as uvc_video_init: SET_CUR with the camera's
 * defaults (GET_DEF) when it has them, then GET_CUR. */
void startup_probe(struct usb_camera *cam, struct uvc_probe *probe)
{
	struct uvc_probe def;
	memset(probe, 0, sizeof(*probe));
	if (usb_probe_get(cam, 0, UVC_GET_DEF, &def) == 0)
		usb_probe_set(cam, 0, false, &def);
	if (usb_probe_get(cam, 0, UVC_GET_CUR, probe) < 0)
		log_warn("camera refuses GET_CUR of the probe control: starting with its first format");
}

/* The camera's controls with the flags it reports (GET_INFO of each), read
 * before the start-up probe as uvcvideo does when it binds. */
void startup_controls(struct usb_camera *cam, struct ctrls *c)
{
	struct ctrls_request r;
	unsigned failed = 0;
	if (ctrls_init(c, usb_camera_model(cam))) {
		log_warn("too many controls: the camera is served without controls");
		memset(c, 0, sizeof(*c));
		return;
	}
	if (!c->chain.n)
		log_warn("no video chain in the camera's descriptors (uvcvideo would not bind it): "
			 "served without controls");
	else if (c->chain.fallback)
		log_info("the camera's units are not linked into a chain: using uvcvideo's "
			 "fallback chain (its one input and output terminal, every unit between)");
	while (ctrls_next_info(c, &r)) {
		uint8_t info = 0;
		int res = usb_query_ctrl(cam, UVC_GET_INFO, r.entity, r.selector, &info, 1);
		if (res < 0)
			failed++;
		ctrls_feed(c, &r, &info, res);
	}
	if (failed)
		log_warn("GET_INFO refused for %u of %u controls: using uvcvideo's flags for them",
			 failed, c->n_uvc);
	log_debug("%u UVC controls, %u V4L2 controls", c->n_uvc, c->n_maps);
}

int startup_open_camera(struct usb_ctx *usb, const struct usb_match *m, struct usb_camera **cam)
{
	char err[256] = "";
	int res = usb_camera_open(usb, m, cam, err, sizeof(err));
	if (!res)
		return 0;
	/* say which camera was asked for: "... (asked for serial X)" */
	char what[200] = "";
	size_t w = 0;
	if (m->by_id)
		w += (size_t)snprintf(what + w, sizeof(what) - w, " device %04x:%04x", m->vid, m->pid);
	if (m->port_path && w < sizeof(what))
		w += (size_t)snprintf(what + w, sizeof(what) - w, " bus path %s", m->port_path);
	if (m->serial && w < sizeof(what))
		snprintf(what + w, sizeof(what) - w, " serial %s", m->serial);
	if (what[0])
		log_error("%s (asked for%s)", err[0] ? err : strerror(-res), what);
	else
		log_error("%s", err[0] ? err : strerror(-res));
	return res;
}

void startup_quirks(struct usb_camera *cam, const uint32_t *override)
{
	const char *entry;
	uint32_t quirks = usb_camera_apply_quirks(cam, override, &entry);
	if (!quirks && !entry && !override)
		return;
	char names[256];
	uvc_quirks_format(quirks, names, sizeof(names));
	log_info("quirks: %s (%s%s)", names,
		 override ? "set by the configuration" : "uvcvideo's device table: ",
		 override ? "" : entry ? entry : "no entry");
	if (quirks & ~UVC_QUIRKS_APPLIED) {
		uvc_quirks_format(quirks & ~UVC_QUIRKS_APPLIED, names, sizeof(names));
		log_warn("quirks uvcuse does not apply yet: %s", names);
	}
}

/* The function's name after the product's, as uvcvideo (6.1) tells a
 * device's functions apart: ": " and the string, whenever the function has
 * one, even unreadable; whole characters only, as the kernel's
 * usb_string() writes it. */
static void append_function(char *card, size_t size, const char *function)
{
	size_t n = strlen(card);
	if (n + 2 < size) {
		memcpy(card + n, ": ", 3);
		n += 2;
	}
	for (const char *s = function; *s;) {
		size_t c = 1;
		while ((s[c] & 0xc0) == 0x80)
			c++;
		if (n + c >= size)
			break;
		memcpy(card + n, s, c);
		n += c;
		s += c;
	}
	card[n] = '\0';
}

void startup_identity(const struct usb_camera_id *id, struct node_identity *ident)
{
	*ident = (struct node_identity){ .version = running_kernel_version() };
	/* cut to the V4L2 fields' size, as the kernel's strscpy does */
	if (id->product[0])
		memcpy(ident->card, id->product, sizeof(ident->card) - 1);
	else
		snprintf(ident->card, sizeof(ident->card), "UVC Camera (%04x:%04x)", id->vid,
			 id->pid);
	if (id->function_index)
		append_function(ident->card, sizeof(ident->card), id->function);
	memcpy(ident->bus_info, id->bus_info, sizeof(ident->bus_info) - 1);
}

/* Microsoft's metadata, as uvcvideo 6.17 turns it on: GET_CUR of the MSXU's
 * metadata control; non-zero: the camera sends it already; else GET_MAX and
 * SET_CUR of that maximum. Any refusal: none (UVCH only). */
bool startup_msxu(struct usb_camera *cam)
{
	const struct uvc_entity *unit = uvc_meta_msxu_unit(usb_camera_model(cam));
	uint8_t v[4] = { 0 };
	if (!unit || usb_query_ctrl(cam, UVC_GET_CUR, unit->id, UVC_MSXU_CONTROL_METADATA, v, 4) < 0)
		return false;
	bool on = v[0] | v[1] | v[2] | v[3];
	if (!on && usb_query_ctrl(cam, UVC_GET_MAX, unit->id, UVC_MSXU_CONTROL_METADATA, v, 4) == 4 &&
	    (v[0] | v[1] | v[2] | v[3]))
		on = usb_query_ctrl(cam, UVC_SET_CUR, unit->id, UVC_MSXU_CONTROL_METADATA, v, 4) == 4;
	if (on)
		log_info("the camera sends Microsoft's UVC 1.5 metadata (its MSXU, unit %u): the "
			 "metadata node offers UVCM", unit->id);
	return on;
}
