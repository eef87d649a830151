/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Impersonating a real camera from its descriptor dump. See impersonate.h. */
#include "impersonate.h"
#include "dump_reader.h"
#include "lsusb_rebuild.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>
#include <linux/videodev2.h>

#define MAX_FILE (1u << 20)

static void say(vcam_impersonate_log_fn *log, void *opaque, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log(opaque, line);
}

static int fail(char *err, size_t cap, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
	return code;
}

static int read_file(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	uint8_t *buf = malloc(MAX_FILE + 1);
	size_t n = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
	int e = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!buf)
		return -ENOMEM;
	if (e || n > MAX_FILE) {
		free(buf);
		return e ? e : -EFBIG;
	}
	buf[n] = 0; /* text files are used as strings */
	*data = buf;
	*len = n;
	return 0;
}

/* ---- lsusb -v text ---- */

struct lsusb_device {
	bool found;
	uint16_t bcd_usb, vendor, product, bcd_device;
	uint8_t class, subclass, protocol, max_packet0;
	uint8_t i_manufacturer, i_product, i_serial;
};

/* Field value of a line "  name   value rest" when the line's key is name. */
static const char *field(const char *line, const char *name)
{
	while (*line == ' ' || *line == '\t')
		line++;
	size_t n = strlen(name);
	if (strncmp(line, name, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

static void set_string(struct vcam_impersonation *imp, unsigned index, const char *text)
{
	if (index == 0 || index > 255 || imp->strings[index])
		return;
	size_t n = strcspn(text, "\r\n"); /* trailing blanks are the string's own */
	if (n == 0)
		return; /* lsusb could not read it: invented later if referenced */
	if (n == 7 && !strncmp(text, "(error)", 7)) {
		/* lsusb could not read it from the camera: neither can a host */
		imp->unreadable[index] = true;
		return;
	}
	imp->strings[index] = strndup(text, n);
}

static void parse_lsusb(struct vcam_impersonation *imp, const char *text, struct lsusb_device *d)
{
	static const char *const string_keys[] = { "iManufacturer", "iProduct", "iSerial",
						    "iConfiguration", "iInterface", "iFunction" };
	const char *line = text;

	bool device_part = true; /* before the qualifier and BOS blocks */
	while (line && *line) {
		const char *v;
		if (!strncmp(line, "Device Qualifier", 16) || !strncmp(line, "Binary Object Store", 19) ||
		    !strncmp(line, "Device Status", 13))
			device_part = false;
		if (!device_part) {
			/* their fields are not the device descriptor's */
		} else if ((v = field(line, "bcdUSB")))
			d->bcd_usb = lsusb_parse_bcd(v), d->found = true;
		else if ((v = field(line, "bcdDevice")))
			d->bcd_device = lsusb_parse_bcd(v);
		else if ((v = field(line, "idVendor")))
			d->vendor = (uint16_t)strtoul(v, NULL, 16);
		else if ((v = field(line, "idProduct")))
			d->product = (uint16_t)strtoul(v, NULL, 16);
		else if ((v = field(line, "bDeviceClass")))
			d->class = (uint8_t)strtoul(v, NULL, 10);
		else if ((v = field(line, "bDeviceSubClass")))
			d->subclass = (uint8_t)strtoul(v, NULL, 10);
		else if ((v = field(line, "bDeviceProtocol")))
			d->protocol = (uint8_t)strtoul(v, NULL, 10);
		else if ((v = field(line, "bMaxPacketSize0")))
			d->max_packet0 = (uint8_t)strtoul(v, NULL, 10);
		for (size_t k = 0; k < sizeof(string_keys) / sizeof(string_keys[0]); k++) {
			if (!(v = field(line, string_keys[k])))
				continue;
			char *end;
			unsigned long index = strtoul(v, &end, 10);
			if (end == v || index > 255)
				continue;
			if (k == 0 && !d->i_manufacturer)
				d->i_manufacturer = (uint8_t)index;
			if (k == 1 && !d->i_product)
				d->i_product = (uint8_t)index;
			if (k == 2 && !d->i_serial)
				d->i_serial = (uint8_t)index;
			while (*end == ' ' || *end == '\t')
				end++;
			set_string(imp, (unsigned)index, end);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

/* ---- the configuration descriptor as served ---- */

/* Repairs what the kernel needs and a dump lost; each repair is logged. */
static void repair_config(struct vcam_impersonation *imp, vcam_impersonate_log_fn *log,
			  void *opaque)
{
	uint8_t *c = imp->config;
	size_t len = imp->config_len;
	unsigned declared = c[2] | c[3] << 8;

	if (declared > len) { /* lsusb did not print some descriptors */
		say(log, opaque, "wTotalLength %u is more than the %zu bytes of the dump: serving %zu",
		    declared, len, len);
		c[2] = (uint8_t)len;
		c[3] = (uint8_t)(len >> 8);
	} else if (declared < len && declared >= USB_DT_CONFIG_SIZE) {
		/* more configurations follow in the dump: the first is served */
		say(log, opaque, "wTotalLength %u is less than the %zu bytes of the dump: serving the "
				 "first %u", declared, len, declared);
		imp->config_len = len = declared;
	}
	/* SuperSpeed isochronous companions whose wBytesPerInterval the dump
	 * lost (lsusb did not print it): the kernel would give the endpoint no
	 * bandwidth at all. */
	const uint8_t *ep = NULL, *walk;
	for (size_t pos = 0; (walk = uvc_next_descriptor(c, len, &pos));) {
		uint8_t *d = c + (walk - c); /* repaired in place */
		if (d[1] == USB_DT_ENDPOINT && d[0] >= USB_DT_ENDPOINT_SIZE) {
			ep = d;
		} else if (d[1] == USB_DT_SS_ENDPOINT_COMP && d[0] >= USB_DT_SS_EP_COMP_SIZE && ep &&
			   (ep[3] & USB_ENDPOINT_XFERTYPE_MASK) == USB_ENDPOINT_XFER_ISOC &&
			   d[4] == 0 && d[5] == 0) {
			unsigned maxp = (ep[4] | ep[5] << 8) & 0x7ff;
			unsigned bytes = maxp * (d[2] + 1u) * ((d[3] & 3) + 1u);
			d[4] = (uint8_t)bytes;
			d[5] = (uint8_t)(bytes >> 8);
			say(log, opaque, "endpoint 0x%02x: SuperSpeed companion without wBytesPerInterval: "
					 "%u invented (wMaxPacketSize %u x bMaxBurst+1 %u x Mult+1 %u)",
			    ep[2], bytes, maxp, d[2] + 1u, (d[3] & 3) + 1u);
			ep = NULL;
		} else if (d[1] != USB_DT_SS_ENDPOINT_COMP) {
			ep = NULL;
		}
	}
}

/* Strings the configuration refers to that the lsusb text did not have. */
static int invent_strings(struct vcam_impersonation *imp, vcam_impersonate_log_fn *log,
			  void *opaque, const uint8_t *extra, size_t n_extra)
{
	uint8_t refs[512];
	size_t n = 0;
	const uint8_t *c = imp->config;

	refs[n++] = c[6]; /* iConfiguration */
	const uint8_t *d;
	for (size_t pos = 0; n < sizeof(refs) && (d = uvc_next_descriptor(c, imp->config_len, &pos));) {
		if (d[1] == USB_DT_INTERFACE && d[0] >= USB_DT_INTERFACE_SIZE)
			refs[n++] = d[8];
		else if (d[1] == USB_DT_INTERFACE_ASSOCIATION && d[0] >= 8)
			refs[n++] = d[7];
	}
	for (size_t k = 0; k < n_extra && n < sizeof(refs); k++)
		refs[n++] = extra[k];
	for (size_t k = 0; k < n; k++) {
		unsigned i = refs[k];
		char text[64];
		if (i == 0 || imp->strings[i] || imp->unreadable[i])
			continue;
		snprintf(text, sizeof(text), "String %u", i);
		if (!(imp->strings[i] = strdup(text)))
			return -ENOMEM;
		say(log, opaque, "string %u is referenced but not in the dump: \"%s\" invented", i, text);
	}
	return 0;
}

/* ---- the profile the rest of the vcam works from ---- */

static enum vcam_pixel pixel_of(const struct uvc_format *f)
{
	if (f->kind == UVC_FORMAT_MJPEG)
		return VCAM_PIXEL_MJPEG;
	switch (f->fourcc) {
	case V4L2_PIX_FMT_YUYV:
		return VCAM_PIXEL_YUYV;
	case V4L2_PIX_FMT_NV12:
		return VCAM_PIXEL_NV12;
	case V4L2_PIX_FMT_YUV420:
		return VCAM_PIXEL_YU12;
	case V4L2_PIX_FMT_YVU420:
		return VCAM_PIXEL_YV12;
	case V4L2_PIX_FMT_RGB24:
		return VCAM_PIXEL_RGB24;
	case V4L2_PIX_FMT_BGR24:
		return VCAM_PIXEL_BGR24;
	case V4L2_PIX_FMT_UYVY:
		return VCAM_PIXEL_UYVY;
	case V4L2_PIX_FMT_SBGGR8:
		return VCAM_PIXEL_SBGGR8;
	case V4L2_PIX_FMT_SGBRG8:
		return VCAM_PIXEL_SGBRG8;
	case V4L2_PIX_FMT_SGRBG8:
		return VCAM_PIXEL_SGRBG8;
	case V4L2_PIX_FMT_SRGGB8:
		return VCAM_PIXEL_SRGGB8;
	case V4L2_PIX_FMT_H264:
		return VCAM_PIXEL_H264;
	default:
		break;
	}
	switch (f->bpp) {
	case 8:
		return VCAM_PIXEL_OPAQUE8;
	case 12:
		return VCAM_PIXEL_OPAQUE12;
	case 24:
		return VCAM_PIXEL_OPAQUE24;
	case 32:
		return VCAM_PIXEL_OPAQUE32;
	default:
		return VCAM_PIXEL_OPAQUE16; /* logged with the format's own bpp */
	}
}

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void make_frame(const struct uvc_frame *src, struct vcam_frame_size *dst,
		       vcam_impersonate_log_fn *log, void *opaque, unsigned format_index)
{
	dst->width = src->width;
	dst->height = src->height;
	/* a zero interval is 1 (uvcvideo's repair; the vcam divides by it) */
	dst->default_interval = src->default_interval ? src->default_interval : 1;
	dst->max_frame_bytes = src->max_buffer_size;
	if (src->continuous) {
		dst->n_intervals = 2;
		dst->intervals[0] = src->range.min ? src->range.min : 1;
		dst->intervals[1] = src->range.max ? src->range.max : 1;
		dst->interval_step = src->range.step ? src->range.step : 1;
		return;
	}
	unsigned n = src->n_intervals;
	if (n > VCAM_MAX_INTERVALS) {
		say(log, opaque, "format %u frame %u: %u intervals, the vcam keeps the first %u",
		    format_index, src->index, n, VCAM_MAX_INTERVALS);
		n = VCAM_MAX_INTERVALS;
	}
	memcpy(dst->intervals, src->intervals, n * sizeof(uint32_t));
	for (unsigned i = 0; i < n; i++)
		dst->intervals[i] = dst->intervals[i] ? dst->intervals[i] : 1;
	qsort(dst->intervals, n, sizeof(uint32_t), compare_u32);
	dst->n_intervals = (uint8_t)n;
	if (n == 0) { /* the parser keeps a frame without intervals: its default */
		dst->intervals[0] = src->default_interval ? src->default_interval : 333333;
		dst->n_intervals = 1;
	}
}

static const struct uvc_streaming *served_stream(const struct uvc_camera *m)
{
	for (unsigned i = 0; i < m->n_streams; i++)
		if (m->streams[i].endpoint && m->streams[i].n_formats)
			return &m->streams[i];
	return NULL;
}

static int stream_profile(struct vcam_impersonation *imp, const struct uvc_streaming *s,
			  struct vcam_profile *p, bool super_speed, vcam_impersonate_log_fn *log,
			  void *opaque, char *err, size_t cap)
{
	p->name = imp->name;
	p->summary = "impersonated from its descriptors";
	p->bcd_uvc = imp->model->bcd_uvc;
	p->speed = super_speed ? VCAM_SUPER_SPEED : VCAM_HIGH_SPEED;
	p->transfer = s->transfer == UVC_TRANSFER_BULK ? VCAM_BULK : VCAM_ISOCHRONOUS;
	/* every alternate setting but 0 (which has no bandwidth), by number */
	for (unsigned i = 0; i < s->n_alts && p->transfer == VCAM_ISOCHRONOUS; i++) {
		const struct uvc_alt *a = &s->alts[i];
		if (a->alt == 0 || p->n_alts == VCAM_MAX_ALTS) {
			say(log, opaque, "alternate setting %u not served (%s)", a->alt,
			    a->alt ? "too many" : "alternate setting 0 carries no isochronous data");
			continue;
		}
		struct vcam_alt *v = &p->alts[p->n_alts++];
		v->number = a->alt;
		v->max_packet = a->max_packet & 0x7ff;
		if (!v->max_packet)
			v->max_packet = 1;
		unsigned times = a->bytes / v->max_packet;
		if (!times)
			times = 1;
		v->transactions = (uint8_t)(times > 16 ? 16 : times);
		v->mult = (uint8_t)(times > 16 ? (times + 15) / 16 : 1);
	}
	if (p->transfer == VCAM_ISOCHRONOUS && !p->n_alts)
		return fail(err, cap, -EINVAL, "isochronous interface %u has no alternate setting "
			    "with an endpoint", s->interface);
	for (unsigned i = 0; i < s->n_formats; i++) {
		const struct uvc_format *f = &s->formats[i];
		if (p->n_formats == VCAM_MAX_FORMATS) {
			say(log, opaque, "format %u not served (at most %u)", f->index,
			    VCAM_MAX_FORMATS);
			continue;
		}
		struct vcam_format *v = &p->formats[p->n_formats++];
		v->pixel = pixel_of(f);
		v->index = f->index;
		v->default_frame = f->default_frame;
		if (vcam_pixel_opaque_bits(v->pixel))
			say(log, opaque, "format %u (%.4s, bBitsPerPixel %u): frames of %u bits per "
					 "pixel, grey, unstamped",
			    f->index, f->fourcc ? (const char *)&f->fourcc : "????", f->bpp,
			    vcam_pixel_opaque_bits(v->pixel));
		for (unsigned k = 0; k < f->n_frames; k++) {
			if (v->n_frames == VCAM_MAX_FRAMES) {
				say(log, opaque, "format %u frame %u not served (at most %u)", f->index,
				    f->frames[k].index, VCAM_MAX_FRAMES);
				continue;
			}
			struct vcam_frame_size *fs = &v->frames[v->n_frames++];
			make_frame(&f->frames[k], fs, log, opaque, f->index);
			fs->index = f->frames[k].index;
		}
		if (!v->n_frames) {
			p->n_formats--;
			say(log, opaque, "format %u has no frame the vcam can serve", f->index);
		}
	}
	if (!p->n_formats)
		return fail(err, cap, -EINVAL, "no format the vcam can serve");
	return 0;
}

/* The first streaming interface streams; the others (an IR sensor, a
 * second stream) answer probe and commit so that the host can set them up. */
static int make_profiles(struct vcam_impersonation *imp, bool super_speed,
			 vcam_impersonate_log_fn *log, void *opaque, char *err, size_t cap)
{
	const struct uvc_streaming *s = served_stream(imp->model);

	if (!s)
		return fail(err, cap, -EINVAL, "no streaming interface with an endpoint and a format");
	imp->vs_interface = s->interface;
	imp->video_ep = s->endpoint;
	int rc = stream_profile(imp, s, &imp->profile, super_speed, log, opaque, err, cap);
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < imp->model->n_streams; i++) {
		const struct uvc_streaming *o = &imp->model->streams[i];
		char why[128];
		if (o == s || !o->n_formats)
			continue;
		if (imp->n_secondary == VCAM_MAX_SECONDARY) {
			say(log, opaque, "streaming interface %u not served (at most %u)", o->interface,
			    VCAM_MAX_SECONDARY + 1);
			continue;
		}
		struct vcam_secondary_stream *v = &imp->secondary[imp->n_secondary];
		if (stream_profile(imp, o, &v->profile, super_speed, log, opaque, why, sizeof(why)) < 0) {
			say(log, opaque, "streaming interface %u not served: %s", o->interface, why);
			continue;
		}
		v->interface = o->interface;
		imp->n_secondary++;
		say(log, opaque, "streaming interface %u: probe and commit answered, no frames",
		    o->interface);
	}
	return 0;
}

static uint32_t bitmap(const struct uvc_entity *e)
{
	uint32_t bits = 0;
	for (unsigned i = 0; i < e->control_size && i < 4; i++)
		bits |= (uint32_t)e->controls[i] << (8 * i);
	return bits;
}

static void assign_roles(struct vcam_impersonation *imp)
{
	const struct uvc_camera *m = imp->model;

	for (unsigned i = 0; i < m->n_entities; i++) {
		const struct uvc_entity *e = &m->entities[i];
		enum vcam_unit_role r = VCAM_ROLE_NO_CONTROLS;
		switch (e->kind) {
		case UVC_ENTITY_INPUT_TERMINAL:
			if (e->type == UVC_ITT_CAMERA) {
				r = VCAM_ROLE_CAMERA;
				imp->ct_bits |= bitmap(e);
				if (!imp->first_ct)
					imp->first_ct = e->id;
			}
			break;
		case UVC_ENTITY_PROCESSING_UNIT:
			r = VCAM_ROLE_PROCESSING;
			imp->pu_bits |= bitmap(e);
			if (!imp->first_pu)
				imp->first_pu = e->id;
			break;
		case UVC_ENTITY_EXTENSION_UNIT:
			r = VCAM_ROLE_EXTENSION;
			break;
		case UVC_ENTITY_SELECTOR_UNIT:
			r = VCAM_ROLE_SELECTOR;
			break;
		default:
			break;
		}
		/* an ID two entities share answers as the first that has
		 * controls (uvcvideo addresses the first it finds) */
		if (e->id && (imp->roles[e->id] == VCAM_ROLE_NONE ||
			      imp->roles[e->id] == VCAM_ROLE_NO_CONTROLS))
			imp->roles[e->id] = r;
	}
}

static void make_device(struct vcam_impersonation *imp, const struct lsusb_device *d,
			bool super_speed)
{
	uint8_t *o = imp->device;
	uint16_t bcd_usb = d->bcd_usb ? d->bcd_usb : super_speed ? 0x0300 : 0x0200;

	o[0] = USB_DT_DEVICE_SIZE;
	o[1] = USB_DT_DEVICE;
	o[2] = (uint8_t)bcd_usb;
	o[3] = (uint8_t)(bcd_usb >> 8);
	o[4] = d->found ? d->class : USB_CLASS_MISC;
	o[5] = d->found ? d->subclass : 0x02;
	o[6] = d->found ? d->protocol : 0x01;
	o[7] = super_speed ? 9 : d->max_packet0 ? d->max_packet0 : 64;
	o[8] = (uint8_t)imp->vendor;
	o[9] = (uint8_t)(imp->vendor >> 8);
	o[10] = (uint8_t)imp->product;
	o[11] = (uint8_t)(imp->product >> 8);
	o[12] = (uint8_t)d->bcd_device;
	o[13] = (uint8_t)(d->bcd_device >> 8);
	o[14] = d->i_manufacturer;
	o[15] = d->i_product;
	o[16] = d->i_serial;
	o[17] = 1;
}

/* Whether the configuration has SuperSpeed endpoint companions. */
static bool has_ss_companions(const uint8_t *c, size_t len)
{
	const uint8_t *d;
	for (size_t pos = 0; (d = uvc_next_descriptor(c, len, &pos));)
		if (d[1] == USB_DT_SS_ENDPOINT_COMP)
			return true;
	return false;
}

int vcam_impersonate_build(const char *name, const uint8_t *config, size_t config_len,
			   const char *lsusb_text, vcam_impersonate_log_fn *log, void *opaque,
			   struct vcam_impersonation **out, char *err, size_t err_cap)
{
	struct lsusb_device dev = { 0 };
	int rc;

	*out = NULL;
	snprintf(err, err_cap, "out of memory");
	if (config_len < USB_DT_CONFIG_SIZE || config[1] != USB_DT_CONFIG || config_len > 0xffff)
		return fail(err, err_cap, -EINVAL, "not a configuration descriptor (%zu bytes)",
			    config_len);
	struct vcam_impersonation *imp = calloc(1, sizeof(*imp));
	if (!imp)
		return -ENOMEM;
	snprintf(imp->name, sizeof(imp->name), "%s", name);
	imp->config = malloc(config_len);
	if (!imp->config) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(imp->config, config, config_len);
	imp->config_len = config_len;
	repair_config(imp, log, opaque);

	bool vendor;
	int vc = vcam_dump_find_vc(imp->config, imp->config_len, &vendor);
	if (!vendor)
		vc = -1;
	else
		say(log, opaque, "VideoControl interface %d is vendor-specific (class 0xff): uvcvideo "
				 "binds it only by its device table", vc);
	/* the vcam's own reading, never uvcuse's parser: a dump the parser
	 * refuses is served as it is, for the host's drivers to judge */
	rc = vcam_dump_read(imp->config, imp->config_len, vc, &imp->model);
	if (rc < 0) {
		rc = fail(err, err_cap, rc, "%s", rc == -EINVAL ? "no VideoControl interface"
								 : "out of memory");
		goto out;
	}
	if (lsusb_text) {
		char *text = strdup(lsusb_text);
		if (!text) {
			rc = -ENOMEM;
			goto out;
		}
		lsusb_text_unbreak_spaces(text);
		parse_lsusb(imp, text, &dev);
		free(text);
	}
	imp->vendor = dev.vendor;
	imp->product = dev.product;
	if (!dev.found) {
		unsigned v, p;
		if (sscanf(name, "%4x_%4x_", &v, &p) == 2) {
			imp->vendor = (uint16_t)v;
			imp->product = (uint16_t)p;
		}
		say(log, opaque, "no lsusb text: device descriptor invented (%04x:%04x, class 239/2/1)",
		    imp->vendor, imp->product);
	}
	bool ss = dev.bcd_usb ? dev.bcd_usb >= 0x0300 : has_ss_companions(imp->config, config_len);
	make_device(imp, &dev, ss);
	uint8_t device_strings[3] = { dev.i_manufacturer, dev.i_product, dev.i_serial };
	if ((rc = invent_strings(imp, log, opaque, device_strings, 3)) < 0)
		goto out;
	imp->vc_interface = imp->model->control_interface;
	imp->status_ep = imp->model->status_endpoint;
	assign_roles(imp);
	rc = make_profiles(imp, ss, log, opaque, err, err_cap);
out:
	if (rc < 0) {
		vcam_impersonate_free(imp);
		return rc;
	}
	*out = imp;
	return 0;
}

int vcam_impersonate_load(const char *config_path, const char *lsusb_path,
			  vcam_impersonate_log_fn *log, void *opaque,
			  struct vcam_impersonation **out, char *err, size_t err_cap)
{
	uint8_t *config = NULL, *text = NULL;
	size_t config_len, text_len;
	int rc = read_file(config_path, &config, &config_len);

	if (rc < 0)
		return fail(err, err_cap, rc, "%s: %s", config_path, strerror(-rc));
	if (lsusb_path && (rc = read_file(lsusb_path, &text, &text_len)) < 0) {
		free(config);
		return fail(err, err_cap, rc, "%s: %s", lsusb_path, strerror(-rc));
	}
	const char *base = strrchr(config_path, '/');
	char name[96];
	snprintf(name, sizeof(name), "%s", base ? base + 1 : config_path);
	name[strcspn(name, ".")] = 0;
	if (lsusb_text_is_lsusb(config, config_len)) {
		/* only the text was published: it is both the bytes and the strings */
		uint8_t *rebuilt;
		size_t rebuilt_len;
		rc = lsusb_rebuild_config((const char *)config, log, opaque, &rebuilt, &rebuilt_len,
					  err, err_cap);
		if (rc < 0) {
			free(config);
			free(text);
			return rc;
		}
		say(log, opaque, "lsusb text: configuration rebuilt as %zu bytes", rebuilt_len);
		if (!text)
			text = config;
		else
			free(config);
		config = rebuilt;
		config_len = rebuilt_len;
	}
	rc = vcam_impersonate_build(name, config, config_len, (const char *)text, log, opaque, out,
				    err, err_cap);
	if (text != config)
		free(text);
	free(config);
	return rc;
}

/* Whether an interface or association descriptor names string index. */
static bool string_in_config(const struct vcam_impersonation *imp, uint8_t index)
{
	const uint8_t *d;
	for (size_t pos = 0; (d = uvc_next_descriptor(imp->config, imp->config_len, &pos));) {
		if (d[1] == USB_DT_INTERFACE && d[0] >= USB_DT_INTERFACE_SIZE && d[8] == index)
			return true;
		if (d[1] == USB_DT_INTERFACE_ASSOCIATION && d[0] >= 8 && d[7] == index)
			return true;
	}
	return false;
}

int vcam_impersonate_set_status_packet(struct vcam_impersonation *imp, uint16_t size,
				       vcam_impersonate_log_fn *log, void *opaque)
{
	const uint8_t *d;
	if (!imp->status_ep)
		return -ENOENT;
	for (size_t pos = 0; (d = uvc_next_descriptor(imp->config, imp->config_len, &pos));) {
		if (d[1] != USB_DT_ENDPOINT || d[0] < USB_DT_ENDPOINT_SIZE || d[2] != imp->status_ep)
			continue;
		uint8_t *ep = imp->config + (d - imp->config);
		say(log, opaque, "status endpoint 0x%02x: wMaxPacketSize 0x%04x made %u", ep[2],
		    ep[4] | ep[5] << 8, size);
		ep[4] = (uint8_t)size;
		ep[5] = (uint8_t)(size >> 8);
		return 0;
	}
	return -ENOENT;
}

int vcam_impersonate_class_first(struct vcam_impersonation *imp, vcam_impersonate_log_fn *log,
				 void *opaque)
{
	const uint8_t *c = imp->config, *d, *e;
	size_t len = imp->config_len, o = 0, pos = 0;
	uint8_t *out = malloc(len);
	int moved = 0;

	if (!out)
		return -ENOMEM;
	while ((d = uvc_next_descriptor(c, len, &pos))) {
		memcpy(out + o, d, d[0]);
		o += d[0];
		if (d[1] != USB_DT_INTERFACE || d[0] < USB_DT_INTERFACE_SIZE ||
		    d[6] != UVC_SC_VIDEOSTREAMING)
			continue;
		/* the interface's run, up to the next interface descriptor: its
		 * class descriptors first, then its endpoints and the rest */
		size_t run = pos, end = pos, next = pos;
		while ((e = uvc_next_descriptor(c, len, &next)) && e[1] != USB_DT_INTERFACE)
			end = next;
		bool other = false, late = false;
		for (size_t p = run; (e = uvc_next_descriptor(c, end, &p));) {
			if (e[1] != USB_DT_CS_INTERFACE) {
				other = true;
				continue;
			}
			late |= other;
			memcpy(out + o, e, e[0]);
			o += e[0];
		}
		for (size_t p = run; (e = uvc_next_descriptor(c, end, &p));)
			if (e[1] != USB_DT_CS_INTERFACE) {
				memcpy(out + o, e, e[0]);
				o += e[0];
			}
		if (late) {
			moved++;
			say(log, opaque, "VS interface %u alternate setting %u: class descriptors moved "
					 "in front of its endpoint", d[2], d[3]);
		}
		pos = end;
	}
	if (moved) /* the bytes walked, rearranged; anything past them as it was */
		memcpy(imp->config, out, o);
	free(out);
	return moved;
}

int vcam_impersonate_set_serial(struct vcam_impersonation *imp, const char *serial)
{
	unsigned index = imp->device[16];
	char *copy = strdup(serial);

	if (!copy)
		return -ENOMEM;
	/* the dump's index, unless it has none or its product, manufacturer or
	 * a function shares it: then the highest index nothing uses */
	bool shared = index && (index == imp->device[14] || index == imp->device[15] ||
				index == imp->config[6] || string_in_config(imp, (uint8_t)index));
	if (index == 0 || shared)
		for (index = 255; index > 1 && (imp->strings[index] || imp->unreadable[index]);
		     index--)
			;
	free(imp->strings[index]);
	imp->strings[index] = copy;
	imp->unreadable[index] = false;
	imp->device[16] = (uint8_t)index;
	return 0;
}

void vcam_impersonate_free(struct vcam_impersonation *imp)
{
	if (!imp)
		return;
	for (unsigned i = 0; i < 256; i++)
		free(imp->strings[i]);
	uvc_camera_free(imp->model);
	free(imp->config);
	free(imp);
}

/* UTF-8 to the UTF-16LE of a string descriptor (characters beyond the
 * basic plane become U+FFFD; a string descriptor holds 126 at most). */
long vcam_impersonate_string(const struct vcam_impersonation *imp, uint8_t index, uint8_t *out,
			     size_t cap)
{
	size_t n = 2;

	if (cap < 4)
		return -ENOSPC;
	if (index == 0) {
		out[0] = 4;
		out[1] = USB_DT_STRING;
		out[2] = 0x09; /* US English */
		out[3] = 0x04;
		return 4;
	}
	const unsigned char *s = (const unsigned char *)imp->strings[index];
	if (!s)
		return -EINVAL;
	while (*s && n + 2 <= cap && n + 2 <= 254) {
		uint32_t cp = *s++;
		bool stray = cp >= 0x80 && cp < 0xc0; /* a continuation byte alone */
		int more = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;
		if (more)
			cp &= 0x3fu >> more;
		for (; more && (*s & 0xc0) == 0x80; more--)
			cp = cp << 6 | (*s++ & 0x3f);
		if (stray || more || cp > 0xffff)
			cp = 0xfffd;
		out[n++] = (uint8_t)cp;
		out[n++] = (uint8_t)(cp >> 8);
	}
	out[0] = (uint8_t)n;
	out[1] = USB_DT_STRING;
	return (long)n;
}
