/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `lsusb -v` text back to configuration descriptor bytes (lsusb_rebuild.h).
 *
 * lsusb prints each descriptor as a header line ("Interface Descriptor:")
 * and one line per field in byte order; a field's name says its width
 * (USB's Hungarian prefixes). The text loses some bytes (see
 * ../shared/corpus/README.md, "Fidelity"): bLength keeps each descriptor's
 * size right regardless, and what cannot be known is logged. */
#include "lsusb_rebuild.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DESC_MAX 512 /* a printed descriptor may run past its bLength */

struct rebuild {
	uint8_t *out;
	size_t len, cap;
	bool failed; /* out of memory */

	uint8_t desc[DESC_MAX];
	size_t desc_len;
	bool open, raw;          /* a descriptor is being built; raw: from a hex dump */
	bool sized_by_fields;    /* lsusb printed no bLength (CDC): the fields are all */
	bool endpoint;           /* the standard endpoint descriptor (SS companion follows) */
	int control_size;        /* this descriptor's bControlSize, -1 before it */
	unsigned guid_digits;    /* hex digits of a GUID still to come (wrapped line) */
	size_t guid_at;

	bool guid_rfc_order;     /* usbutils 009+: first three groups little-endian */
	bool super_speed;        /* MaxPower in 8 mA units */
	lsusb_rebuild_log_fn *log;
	void *opaque;
};

static void say(struct rebuild *r, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!r->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->log(r->opaque, line);
}

static void emit(struct rebuild *r, const uint8_t *bytes, size_t n)
{
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4096;
		while (cap < r->len + n)
			cap *= 2;
		uint8_t *grown = realloc(r->out, cap);
		if (!grown) {
			r->failed = true;
			return;
		}
		r->out = grown;
		r->cap = cap;
	}
	memcpy(r->out + r->len, bytes, n);
	r->len += n;
}

static void put(struct rebuild *r, uint64_t value, unsigned width)
{
	for (unsigned i = 0; i < width && r->desc_len < DESC_MAX; i++)
		r->desc[r->desc_len++] = (uint8_t)(i < 8 ? value >> (8 * i) : 0);
}

static void finish_descriptor(struct rebuild *r)
{
	if (!r->open)
		return;
	r->open = false;
	if (r->raw) { /* a hex dump is the descriptor's bytes, bLength included */
		emit(r, r->desc, r->desc_len);
		return;
	}
	if (r->desc_len == 0)
		return;
	if (r->sized_by_fields)
		r->desc[0] = (uint8_t)r->desc_len;
	size_t length = r->desc[0];
	if (length < 2) {
		say(r, "lsusb text: a descriptor with bLength %zu dropped", length);
		return;
	}
	if (r->desc_len < length) /* fields lsusb did not print */
		memset(r->desc + r->desc_len, 0, length - r->desc_len);
	emit(r, r->desc, length);
}

static void start_descriptor(struct rebuild *r, bool raw, bool endpoint)
{
	finish_descriptor(r);
	r->open = true;
	r->raw = raw;
	r->sized_by_fields = false;
	r->endpoint = endpoint;
	r->desc_len = 0;
	r->control_size = -1;
	r->guid_digits = 0;
}

uint16_t lsusb_parse_bcd(const char *s)
{
	unsigned major = 0, minor = 0;

	if (sscanf(s, "%x.%2x", &major, &minor) < 1)
		return 0;
	return (uint16_t)((major & 0xff) << 8 | (minor & 0xff));
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The next hex byte pair of a dump at *s, moving past it: 0..255; -1 at
 * the end of the line, -2 at anything else. */
static int next_hex_byte(const char **s)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	*s = p;
	if (!*p || *p == '\r' || *p == '\n')
		return -1;
	int hi = hex_digit(p[0]), lo = hi < 0 ? -1 : hex_digit(p[1]);
	if (hi < 0 || lo < 0 || (p[2] && !isspace((unsigned char)p[2])))
		return -2;
	*s = p + 2;
	return hi << 4 | lo;
}

/* Appends a dump's hex byte pairs ("20 41 01") to the descriptor, up to
 * the first thing that is not one. */
static void put_hex_bytes(struct rebuild *r, const char *s)
{
	int b;
	while ((b = next_hex_byte(&s)) >= 0)
		put(r, (uint64_t)b, 1);
}

/* A line made only of hex byte pairs: a hex dump's continuation. */
static bool is_hex_line(const char *s)
{
	int b, n = 0;
	while ((b = next_hex_byte(&s)) >= 0)
		n++;
	return b == -1 && n > 0;
}

/* GUID digits, in the byte order the usbutils version printed them. */
static void put_guid_digits(struct rebuild *r, const char *s)
{
	static const uint8_t rfc_order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

	for (; *s && r->guid_digits; s++) {
		int d = hex_digit(*s);
		if (*s == '}')
			break;
		if (d < 0)
			continue;
		unsigned k = 32 - r->guid_digits--; /* the k-th printed digit */
		unsigned byte = r->guid_rfc_order ? rfc_order[k / 2] : k / 2;
		if (r->guid_at + byte < DESC_MAX)
			r->desc[r->guid_at + byte] |= (uint8_t)(k % 2 ? d : d << 4);
	}
}

/* The field's width from its name, 0 for a line that is no field. */
static unsigned field_width(const struct rebuild *r, const char *name, size_t n, bool indexed,
			    const char *value)
{
#define PREFIX(p) (n > strlen(p) && !strncmp(name, p, strlen(p)) && isupper((unsigned char)name[strlen(p)]))
	if (n == 8 && !strncmp(name, "MaxPower", 8))
		return 1;
	if (PREFIX("bcd") || PREFIX("id") || PREFIX("w"))
		return 2;
	if (PREFIX("guid"))
		return 16;
	if (PREFIX("dw"))
		return 4;
	if (PREFIX("t")) /* tSamFreq: 3 bytes */
		return 3;
	if (PREFIX("bm") || PREFIX("bma")) {
		bool hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
		/* A unit's bmControls and a streaming header's per-format
		 * bmaControls are bControlSize wide, whatever lsusb printed. */
		if (r->control_size > 0 && ((!indexed && !strncmp(name, "bmControls", 10)) ||
					    (indexed && !hex && !strncmp(name, "bmaControls", 11))))
			return (unsigned)r->control_size;
		if (!hex)
			return 1;
		size_t digits = strspn(value + 2, "0123456789abcdefABCDEF");
		return digits > 2 ? (unsigned)((digits + 1) / 2) : 1;
	}
	if (PREFIX("b") || PREFIX("ba") || PREFIX("i"))
		return 1;
	return 0;
#undef PREFIX
}

/* An SS endpoint companion, which old usbutils print inside the endpoint. */
static bool companion_field(struct rebuild *r, const char *name, size_t n, unsigned long value)
{
	if (r->endpoint && n == 9 && !strncmp(name, "bMaxBurst", 9)) {
		start_descriptor(r, false, false);
		put(r, 6, 1);
		put(r, 0x30, 1); /* USB_DT_SS_ENDPOINT_COMP */
		put(r, value, 1);
		return true;
	}
	if (r->open && !r->raw && r->desc_len >= 3 && r->desc[1] == 0x30) {
		if (n == 4 && !strncmp(name, "Mult", 4)) {
			r->desc_len = 3;
			put(r, value, 1);
			return true;
		}
		if (n == 10 && !strncmp(name, "MaxStreams", 10)) { /* printed as 2^n */
			unsigned log2 = 0;
			while (log2 < 31 && (1ul << (log2 + 1)) <= value)
				log2++;
			r->desc_len = 3;
			put(r, value > 1 ? log2 : 0, 1);
			return true;
		}
	}
	return false;
}

static void field_line(struct rebuild *r, const char *s)
{
	const char *name = s;
	while (isalnum((unsigned char)*s))
		s++;
	size_t n = (size_t)(s - name);
	bool indexed = *s == '(' || *s == '[';
	if (indexed) {
		const char *close = strpbrk(s, ")]");
		if (!close)
			return;
		s = close + 1;
	}
	bool guid = n > 4 && !strncmp(name, "guid", 4);
	if (n == 0 || (*s != ' ' && *s != '\t' && !(guid && !*s))) /* a GUID may wrap whole */
		return;
	while (*s == ' ' || *s == '\t')
		s++;

	char *end;
	unsigned long long value = strtoull(s, &end, 0);
	if (companion_field(r, name, n, (unsigned long)value))
		return;
	unsigned width = field_width(r, name, n, indexed, s);
	if (width == 0 || !r->open || r->raw)
		return;

	if (!strncmp(name, "bcd", 3)) {
		value = lsusb_parse_bcd(s);
	} else if (guid) {
		r->guid_at = r->desc_len;
		put(r, 0, 16);
		r->guid_digits = 32;
		put_guid_digits(r, s);
		return;
	} else if (!strncmp(name, "dwClockFrequency", 16)) {
		double v = strtod(s, &end);
		value = (unsigned long long)(v * (strstr(end, "MHz") ? 1e6 : 1.0) + 0.5);
	} else if (n == 8 && !strncmp(name, "MaxPower", 8)) {
		value /= r->super_speed ? 8 : 2; /* printed in mA */
	}
	put(r, value, width);
	if (n == 12 && !strncmp(name, "bControlSize", 12))
		r->control_size = (int)value;
}


static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Indentation and e-mail quote markers. */
static const char *skip_indent(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '>')
		s++;
	return s;
}

/* A hex dump of a whole descriptor that lsusb could not decode; the
 * prefix's length, or 0. */
static size_t raw_dump(const char *s)
{
	static const char *const prefixes[] = { "** UNRECOGNIZED:", "INTERFACE CLASS:" };
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts(s, prefixes[i]))
			return strlen(prefixes[i]);
	return 0;
}

/* lsusb prints communications class functional descriptors without their
 * first three bytes: the header names the subtype. */
static int cdc_subtype(const char *s)
{
	static const struct {
		const char *header;
		uint8_t subtype;
	} cdc[] = { { "CDC Header:", 0x00 },	     { "CDC Call Management:", 0x01 },
		    { "CDC ACM:", 0x02 },	     { "CDC Union:", 0x06 },
		    { "CDC Ethernet:", 0x0f },	     { "CDC NCM:", 0x1a } };
	for (size_t i = 0; i < sizeof(cdc) / sizeof(cdc[0]); i++)
		if (!strcmp(s, cdc[i].header))
			return cdc[i].subtype;
	return -1;
}

/* A header line that begins a descriptor of the configuration. */
static bool descriptor_header(const char *s, size_t n)
{
	if (n < 2 || s[n - 1] != ':' || starts(s, "Report Descriptors"))
		return false;
	return strstr(s, "Descriptor:") == s + n - 11 || starts(s, "Interface Association:") ||
	       starts(s, "CDC ");
}

static void line(struct rebuild *r, const char *s, size_t n)
{
	char buf[1024];
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	char *t = (char *)skip_indent(buf);
	n = strlen(t);

	if (r->guid_digits) { /* a GUID wrapped onto this line */
		put_guid_digits(r, t);
		return;
	}
	char *dump;
	size_t prefix = raw_dump(t);
	if (prefix) {
		start_descriptor(r, true, false);
		put_hex_bytes(r, t + prefix);
	} else if (descriptor_header(t, n)) {
		start_descriptor(r, false, !strcmp(t, "Endpoint Descriptor:"));
		int cdc = cdc_subtype(t);
		if (cdc >= 0) {
			r->sized_by_fields = true;
			put(r, 0, 1); /* bLength: what the fields add up to */
			put(r, 0x24, 1); /* USB_DT_CS_INTERFACE */
			put(r, (uint64_t)cdc, 1);
		} else if (starts(t, "CDC ")) {
			say(r, "lsusb text: \"%s\" is not known: dropped", t);
			r->open = false;
		}
	} else if (r->open && is_hex_line(t)) {
		put_hex_bytes(r, t); /* a dump wrapped, or "Junk at end" */
	} else if ((dump = strstr(t, "Invalid desc subtype:"))) {
		/* the rest after bLength, bDescriptorType and bDescriptorSubtype */
		*dump = 0;
		field_line(r, t);
		if (r->open && !r->raw)
			put_hex_bytes(r, dump + 21);
	} else {
		field_line(r, t);
	}
}

void lsusb_text_unbreak_spaces(char *text)
{
	for (char *nbsp = text; (nbsp = strstr(nbsp, "\xc2\xa0"));)
		*nbsp++ = ' ', *nbsp++ = ' ';
}

int lsusb_text_is_lsusb(const uint8_t *data, size_t len)
{
	/* a binary configuration descriptor starts 09 02 */
	if (len >= 2 && data[0] == 9 && data[1] == 2)
		return 0;
	return memmem(data, len, "Configuration Descriptor:", 25) != NULL;
}

/* Which order the GUIDs were printed in: a well-known format GUID's tail
 * says; without one, usbutils 009+ (RFC 4122) is assumed, and logged. */
static void guess_guid_order(struct rebuild *r, const char *text)
{
	const char *p;
	/* short of the GUID's end, which e-mail may have wrapped */
	for (p = text; (p = strstr(p, "-8000-00aa")); p++) {
		if (p - text >= 10 && !strncmp(p - 10, "-0000-1000", 10)) {
			r->guid_rfc_order = false;
			return;
		}
		if (p - text >= 10 && !strncmp(p - 10, "-0000-0010", 10)) {
			r->guid_rfc_order = true;
			return;
		}
	}
	r->guid_rfc_order = true;
	if (strstr(text, "guid"))
		say(r, "lsusb text: no well-known format GUID tells the byte order the GUIDs "
		       "were printed in; RFC 4122 order (usbutils 009 and later) assumed");
}

int lsusb_rebuild_config(const char *original, lsusb_rebuild_log_fn *log, void *opaque,
			 uint8_t **out, size_t *out_len, char *err, size_t err_cap)
{
	struct rebuild r = { .log = log, .opaque = opaque, .control_size = -1 };
	char *text = strdup(original);
	if (!text) {
		snprintf(err, err_cap, "out of memory");
		return -ENOMEM;
	}
	lsusb_text_unbreak_spaces(text);
	const char *usb = strstr(text, "bcdUSB");
	r.super_speed = usb && lsusb_parse_bcd(usb + 6 + strspn(usb + 6, " \t")) >= 0x0300;
	guess_guid_order(&r, text);

	bool in_config = false;
	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "\n");
		const char *t = skip_indent(s);
		if (starts(t, "Configuration Descriptor:")) {
			in_config = true;
		} else if (in_config && (starts(t, "Device Qualifier") || starts(t, "Binary Object Store") ||
					 starts(t, "Device Status") || starts(t, "Bus ") ||
					 starts(t, "Device Descriptor:"))) {
			break; /* the configurations end here */
		}
		if (in_config)
			line(&r, s, n);
		s += n;
		if (*s)
			s++;
	}
	finish_descriptor(&r);
	free(text);
	if (r.failed) {
		free(r.out);
		snprintf(err, err_cap, "out of memory");
		return -ENOMEM;
	}
	if (r.len < 9 || r.out[1] != 2) {
		free(r.out);
		snprintf(err, err_cap, "no configuration descriptor in the lsusb text");
		return -EINVAL;
	}
	*out = r.out;
	*out_len = r.len;
	return 0;
}
