/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status socket's message (see status_msg.h). */
#include "device/status_msg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"

struct writer {
	char *buf;
	size_t len, used;
	bool full;
};

/* Appends n bytes and keeps the text terminated; out of room, the writer
 * is full and takes nothing more. */
static void w_append(struct writer *w, const char *s, size_t n)
{
	if (w->full || w->used + n >= w->len) {
		w->full = true;
		return;
	}
	memcpy(w->buf + w->used, s, n);
	w->used += n;
	w->buf[w->used] = '\0';
}

static void w_printf(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void w_printf(struct writer *w, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		w->full = true;
		return;
	}
	w_append(w, tmp, (size_t)n);
}

static void put(struct writer *w, const char *key, const char *value)
{
	size_t need = strlen(key) + 1 + strlen(value) + 1;
	if (w->full || w->used + need >= w->len) {
		w->full = true;
		return;
	}
	char *p = w->buf + w->used;
	p += sprintf(p, "%s=", key);
	for (const char *v = value; *v; v++)
		*p++ = (unsigned char)*v < 0x20 || *v == 0x7f ? '?' : *v;
	*p++ = '\n';
	*p = '\0';
	w->used = (size_t)(p - w->buf);
}

static void put_u64(struct writer *w, const char *key, uint64_t value)
{
	char num[24];
	snprintf(num, sizeof(num), "%" PRIu64, value);
	put(w, key, num);
}

static void put_hex4(struct writer *w, const char *key, unsigned value)
{
	char num[8];
	snprintf(num, sizeof(num), "%04x", value & 0xffff);
	put(w, key, num);
}

int status_msg_encode(const struct device_status *st, char *buf, size_t len)
{
	struct writer w = { buf, len, 0, false };
	char fourcc[5] = "";
	if (st->fourcc) {
		memcpy(fourcc, &st->fourcc, 4);
		fourcc[4] = '\0';
	}
	put(&w, "version", "1");
	put(&w, "node", st->node);
	put(&w, "meta_node", st->meta_node);
	put(&w, "card", st->card);
	put(&w, "manufacturer", st->manufacturer);
	put(&w, "product", st->product);
	put_hex4(&w, "vid", st->vid);
	put_hex4(&w, "pid", st->pid);
	put(&w, "serial", st->serial);
	put(&w, "port", st->port_path);
	put(&w, "bus_info", st->bus_info);
	put_u64(&w, "interface", st->interface);
	put(&w, "fourcc", fourcc);
	put_u64(&w, "width", st->width);
	put_u64(&w, "height", st->height);
	put_u64(&w, "interval", st->interval);
	put_u64(&w, "streaming", st->streaming);
	put_u64(&w, "away", st->away);
	put_u64(&w, "frames", st->frames);
	put_u64(&w, "dropped", st->dropped);
	put_u64(&w, "errors", st->errors);
	put_u64(&w, "clients", st->clients);
	put_u64(&w, "streamers", st->streamers);
	put_u64(&w, "iso_bytes", st->iso_bytes);
	put_u64(&w, "measured_mfps", st->measured_mfps);
	for (unsigned i = 0; i < st->n_streams && i < STATUS_MAX_STREAMS; i++) {
		char key[16], value[48];
		snprintf(key, sizeof(key), "stream%u", i);
		snprintf(value, sizeof(value), "%" PRIu64 ",%" PRIu64, st->streams[i].frames,
			 st->streams[i].lost);
		put(&w, key, value);
	}
	return w.full ? -ENOSPC : (int)w.used;
}

static void copy_value(char *dst, size_t size, const char *v, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static uint64_t number(const char *v, size_t n, int base)
{
	char tmp[24];
	copy_value(tmp, sizeof(tmp), v, n);
	return strtoull(tmp, NULL, base);
}

/* "frames,lost" of the index-th process streaming. */
static void decode_stream(struct device_status *out, unsigned index, const char *v, size_t n)
{
	const char *comma = memchr(v, ',', n);
	if (!comma)
		return;
	out->streams[index].frames = number(v, (size_t)(comma - v), 10);
	out->streams[index].lost = number(comma + 1, n - (size_t)(comma - v) - 1, 10);
	if (out->n_streams <= index)
		out->n_streams = index + 1;
}

int status_msg_decode(const char *buf, size_t len, struct device_status *out)
{
	memset(out, 0, sizeof(*out));
	bool version = false;
	size_t pos = 0;
	while (pos < len) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		const char *eq = memchr(line, '=', n);
		if (!eq)
			continue;
		size_t klen = (size_t)(eq - line);
		const char *v = eq + 1;
		size_t vlen = n - klen - 1;
#define KEY(name) (klen == strlen(name) && !memcmp(line, name, klen))
		if (KEY("version"))
			version = vlen == 1 && v[0] == '1';
		else if (KEY("node"))
			copy_value(out->node, sizeof(out->node), v, vlen);
		else if (KEY("meta_node"))
			copy_value(out->meta_node, sizeof(out->meta_node), v, vlen);
		else if (KEY("card"))
			copy_value(out->card, sizeof(out->card), v, vlen);
		else if (KEY("manufacturer"))
			copy_value(out->manufacturer, sizeof(out->manufacturer), v, vlen);
		else if (KEY("product"))
			copy_value(out->product, sizeof(out->product), v, vlen);
		else if (KEY("vid"))
			out->vid = (uint16_t)number(v, vlen, 16);
		else if (KEY("pid"))
			out->pid = (uint16_t)number(v, vlen, 16);
		else if (KEY("serial"))
			copy_value(out->serial, sizeof(out->serial), v, vlen);
		else if (KEY("port"))
			copy_value(out->port_path, sizeof(out->port_path), v, vlen);
		else if (KEY("bus_info"))
			copy_value(out->bus_info, sizeof(out->bus_info), v, vlen);
		else if (KEY("interface"))
			out->interface = (uint8_t)number(v, vlen, 10);
		else if (KEY("fourcc") && vlen == 4)
			memcpy(&out->fourcc, v, 4);
		else if (KEY("width"))
			out->width = (unsigned)number(v, vlen, 10);
		else if (KEY("height"))
			out->height = (unsigned)number(v, vlen, 10);
		else if (KEY("interval"))
			out->interval = (uint32_t)number(v, vlen, 10);
		else if (KEY("streaming"))
			out->streaming = number(v, vlen, 10) != 0;
		else if (KEY("away"))
			out->away = number(v, vlen, 10) != 0;
		else if (KEY("frames"))
			out->frames = number(v, vlen, 10);
		else if (KEY("dropped"))
			out->dropped = number(v, vlen, 10);
		else if (KEY("errors"))
			out->errors = number(v, vlen, 10);
		else if (KEY("clients"))
			out->clients = (unsigned)number(v, vlen, 10);
		else if (KEY("streamers"))
			out->streamers = (unsigned)number(v, vlen, 10);
		else if (KEY("iso_bytes"))
			out->iso_bytes = (uint32_t)number(v, vlen, 10);
		else if (KEY("measured_mfps"))
			out->measured_mfps = (uint32_t)number(v, vlen, 10);
		else if (klen == 7 && !memcmp(line, "stream", 6) && line[6] >= '0' && line[6] <= '7')
			decode_stream(out, (unsigned)(line[6] - '0'), v, vlen);
#undef KEY
	}
	return version && out->node[0] ? 0 : -EPROTO;
}

/* "camera away" while it is unplugged and the node waits for it; how many
 * processes share the stream when several do */
static const char *state_text(const struct device_status *st, char *buf, size_t len)
{
	if (st->away)
		return "camera away";
	if (!st->streaming)
		return "idle";
	if (st->streamers < 2)
		return "streaming";
	snprintf(buf, len, "streaming to %u processes", st->streamers);
	return buf;
}

static void format_text(const struct device_status *st, char *out, size_t len)
{
	if (!st->fourcc) {
		snprintf(out, len, "no format");
		return;
	}
	unsigned fps100 = st->interval ? (unsigned)(1000000000ull / st->interval) : 0;
	snprintf(out, len, "%.4s %ux%u %u.%02u fps", (const char *)&st->fourcc, st->width, st->height,
		 fps100 / 100, fps100 % 100);
}

void status_msg_line(const struct device_status *st, char *out, size_t len)
{
	char fmt[64], state[48], measured[32] = "";
	format_text(st, fmt, sizeof(fmt));
	if (st->measured_mfps)
		snprintf(measured, sizeof(measured), ", measured %u.%02u fps",
			 st->measured_mfps / 1000, st->measured_mfps % 1000 / 10);
	snprintf(out, len,
		 "/dev/%s: %s (%04x:%04x, serial %s), %s, %s, frames %" PRIu64 ", dropped %" PRIu64
		 ", errors %" PRIu64 ", clients %u, iso %" PRIu32 " bytes/interval%s",
		 st->node, st->card, st->vid, st->pid, st->serial[0] ? st->serial : "none", fmt,
		 state_text(st, state, sizeof(state)), st->frames, st->dropped, st->errors, st->clients,
		 st->iso_bytes, measured);
}

/* A JSON string, escaped. */
static void json_string(struct writer *w, const char *s)
{
	char esc[6 * 256 + 1];
	size_t n = json_escape(esc, sizeof(esc), s);
	w_append(w, "\"", 1);
	w_append(w, esc, n);
	w_append(w, "\"", 1);
}

static void json_field(struct writer *w, const char *key, const char *value)
{
	w_printf(w, "%s\"%s\": ", w->used > 1 ? ", " : "", key);
	json_string(w, value);
}

static void json_number(struct writer *w, const char *key, uint64_t value)
{
	w_printf(w, "%s\"%s\": %" PRIu64, w->used > 1 ? ", " : "", key, value);
}

/* What each process streaming got: [{"frames": N, "lost": N}, ...]. */
static void json_streams(struct writer *w, const struct device_status *st)
{
	w_printf(w, ", \"streams\": [");
	for (unsigned i = 0; i < st->n_streams && i < STATUS_MAX_STREAMS; i++)
		w_printf(w, "%s{\"frames\": %" PRIu64 ", \"lost\": %" PRIu64 "}", i ? ", " : "",
			 st->streams[i].frames, st->streams[i].lost);
	w_printf(w, "]");
}

int status_msg_json(const struct device_status *st, char *out, size_t len)
{
	struct writer w = { out, len, 0, false };
	char fourcc[5] = "", text[16];
	if (st->fourcc)
		memcpy(fourcc, &st->fourcc, 4);
	w_append(&w, "{", 1);
	json_field(&w, "node", st->node);
	json_field(&w, "meta_node", st->meta_node);
	json_field(&w, "card", st->card);
	json_field(&w, "manufacturer", st->manufacturer);
	json_field(&w, "product", st->product);
	snprintf(text, sizeof(text), "%04x", st->vid);
	json_field(&w, "vid", text);
	snprintf(text, sizeof(text), "%04x", st->pid);
	json_field(&w, "pid", text);
	json_field(&w, "serial", st->serial);
	json_field(&w, "port", st->port_path);
	json_field(&w, "bus_info", st->bus_info);
	json_field(&w, "fourcc", fourcc);
	json_number(&w, "width", st->width);
	json_number(&w, "height", st->height);
	/* the nominal rate from the interval, the measured one in fps */
	w_printf(&w, ", \"fps\": %.3f", st->interval ? 1e7 / st->interval : 0.0);
	w_printf(&w, ", \"measured_fps\": %.3f", st->measured_mfps / 1000.0);
	w_printf(&w, ", \"streaming\": %s, \"away\": %s", st->streaming ? "true" : "false",
		 st->away ? "true" : "false");
	json_number(&w, "frames", st->frames);
	json_number(&w, "dropped", st->dropped);
	json_number(&w, "errors", st->errors);
	json_number(&w, "clients", st->clients);
	json_number(&w, "iso_bytes", st->iso_bytes);
	json_streams(&w, st);
	w_append(&w, "}", 1);
	return w.full ? -ENOSPC : (int)w.used;
}

void status_msg_summary(const struct device_status *st, char *out, size_t len)
{
	char fmt[64], state[48];
	format_text(st, fmt, sizeof(fmt));
	snprintf(out, len, "%s (%04x:%04x%s%s) on /dev/%s: %s, %s, %u client%s", st->card, st->vid,
		 st->pid, st->serial[0] ? ", serial " : "", st->serial, st->node, fmt,
		 state_text(st, state, sizeof(state)), st->clients, st->clients == 1 ? "" : "s");
}

/* As udev's usb_id cleans strings: whitespace runs become one '_' (none at
 * the ends), characters outside its safe set become '_'. */
static void udev_clean(const char *in, char *out, size_t len)
{
	static const char safe[] = "#+-.:=@_";
	size_t o = 0;
	bool pending_space = false;
	while (*in == ' ' || *in == '\t')
		in++;
	for (; *in && o + 1 < len; in++) {
		unsigned char c = (unsigned char)*in;
		if (c == ' ' || c == '\t' || c == '\n') {
			pending_space = true;
			continue;
		}
		if (pending_space && o + 2 < len)
			out[o++] = '_';
		pending_space = false;
		bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c && strchr(safe, c));
		out[o++] = ok ? (char)c : '_';
	}
	out[o] = '\0';
}

/* path_id's name of the interface: the host controller's device ("pci-"
 * for a PCI address, else "platform-"), then "usb-0:PORTS:CONFIG.IF".
 * bus_info is "usb-<controller>-<ports>". */
static int udev_path(const struct device_status *st, char *out, size_t len)
{
	const char *bi = st->bus_info;
	if (strncmp(bi, "usb-", 4) != 0)
		return -EINVAL;
	const char *last = strrchr(bi + 4, '-');
	if (!last || last == bi + 4)
		return -EINVAL;
	int clen = (int)(last - (bi + 4));
	const char *ctrl = bi + 4;
	/* a PCI address: dddd:bb:dd.f */
	bool pci = clen == 12 && ctrl[4] == ':' && ctrl[7] == ':' && ctrl[10] == '.';
	/* path_id has the active configuration; UVC cameras have one */
	snprintf(out, len, "%s-%.*s-usb-0:%s:1.%u", pci ? "pci" : "platform", clen, ctrl, last + 1,
		 st->interface);
	return 0;
}

int status_msg_udev_properties(const struct device_status *st, unsigned index, char *out,
			       size_t len)
{
	char vendor[128], model[128], serial[128], path[160], tag[160];
	udev_clean(st->manufacturer, vendor, sizeof(vendor));
	udev_clean(st->product, model, sizeof(model));
	udev_clean(st->serial, serial, sizeof(serial));
	if (!vendor[0])
		snprintf(vendor, sizeof(vendor), "%04x", st->vid);
	if (!model[0])
		snprintf(model, sizeof(model), "%04x", st->pid);
	int n = snprintf(out, len, "ID_VENDOR_ID=%04x\nID_MODEL_ID=%04x\nID_SERIAL=%s_%s%s%s\n", st->vid,
			 st->pid, vendor, model, serial[0] ? "_" : "", serial);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	size_t used = (size_t)n;
	if (serial[0]) {
		n = snprintf(out + used, len - used, "ID_SERIAL_SHORT=%s\n", serial);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	if (udev_path(st, path, sizeof(path)) == 0) {
		size_t i = 0;
		for (; path[i] && i + 1 < sizeof(tag); i++) {
			char c = path[i];
			bool keep = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
				    (c >= 'A' && c <= 'Z') || c == '-';
			tag[i] = keep ? c : '_';
		}
		tag[i] = '\0';
		n = snprintf(out + used, len - used, "ID_PATH=%s\nID_PATH_TAG=%s\n", path, tag);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
	}
	/* UVCUSE=1: the udev rule's mark that a daemon of ours serves this node */
	n = snprintf(out + used, len - used, "ID_USB_INTERFACE_NUM=%02x\nUVCUSE=1\nUVCUSE_INDEX=%u\n",
		     st->interface, index);
	if (n < 0 || (size_t)n >= len - used)
		return -ENOSPC;
	return (int)(used + (size_t)n);
}
