/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remembered control settings, the pure part. See settings.h. */
#include "settings/settings.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

/* ---- the list ---- */

static int index_of(const struct settings *s, uint32_t id)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->e[i].id == id)
			return (int)i;
	return -1;
}

int settings_put(struct settings *s, uint32_t id, int32_t value)
{
	int i = index_of(s, id);

	if (i >= 0) {
		if (s->e[i].value == value)
			return 0;
		s->e[i].value = value;
		return 1;
	}
	if (s->n == SETTINGS_MAX)
		return -ENOSPC;
	s->e[s->n++] = (struct settings_entry){ id, value };
	return 1;
}

bool settings_get(const struct settings *s, uint32_t id, int32_t *value)
{
	int i = index_of(s, id);

	if (i < 0)
		return false;
	if (value)
		*value = s->e[i].value;
	return true;
}

void settings_drop(struct settings *s, uint32_t id)
{
	int i = index_of(s, id);

	if (i < 0)
		return;
	memmove(&s->e[i], &s->e[i + 1], (s->n - (unsigned)i - 1) * sizeof(s->e[0]));
	s->n--;
}

/* ---- names ---- */

static bool name_safe(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '-' || ch == '_' || ch == '.';
}

/* FNV-1a, 64 bits: tells cut names apart. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

int settings_file_name(uint16_t vid, uint16_t pid, const char *serial, const char *port_path,
		       char *out, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	static const char suffix[] = ".controls";
	const char *key = serial && serial[0] ? serial : port_path;
	char name[SETTINGS_NAME_MAX + 1];
	/* room for the body when it is cut: "~" + 16 hex digits + suffix */
	size_t cut_room = SETTINGS_NAME_MAX - 17 - (sizeof(suffix) - 1);
	size_t n, cut = 0;
	bool cut_done = false;

	if (!key || !key[0])
		return -EINVAL;
	n = (size_t)snprintf(name, sizeof(name), "%04x-%04x-%s-", vid, pid,
			     key == serial ? "serial" : "port");
	for (const char *p = key; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		size_t w = name_safe(ch) ? 1 : 3;

		if (!cut_done && n + w > cut_room) {
			cut = n; /* where the body ends if the whole does not fit */
			cut_done = true;
		}
		if (n + w > SETTINGS_NAME_MAX - (sizeof(suffix) - 1)) {
			n = cut;
			n += (size_t)snprintf(name + n, sizeof(name) - n, "~%016" PRIx64, fnv1a(key));
			break;
		}
		if (w == 1) {
			name[n++] = (char)ch;
		} else {
			name[n++] = '%';
			name[n++] = hex[ch >> 4];
			name[n++] = hex[ch & 15];
		}
	}
	name[n] = 0;
	if (strlen(name) + sizeof(suffix) > cap)
		return -ENOSPC;
	snprintf(out, cap, "%s%s", name, suffix);
	return 0;
}

/* v4l2-ctl's name2var: letters and digits lowercased, every run of other
 * characters between them one '_'. */
void settings_ctrl_name(uint32_t id, char *out, size_t cap)
{
	const char *name = uvc_ctrl_v4l2_name(id);
	size_t n = 0;
	bool gap = false;

	if (!cap)
		return;
	for (; *name && n + 2 < cap; name++) {
		char ch = *name;

		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')) {
			if (gap)
				out[n++] = '_';
			gap = false;
			out[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
		} else if (n) {
			gap = true;
		}
	}
	out[n] = 0;
}

/* ---- the file's text ---- */

static int by_id(const void *a, const void *b)
{
	uint32_t x = ((const struct settings_entry *)a)->id;
	uint32_t y = ((const struct settings_entry *)b)->id;

	return x < y ? -1 : x > y;
}

int settings_format(const struct settings *s, const char *comment, char *out, size_t cap)
{
	struct settings_entry sorted[SETTINGS_MAX];
	size_t n;
	int w;

	memcpy(sorted, s->e, s->n * sizeof(s->e[0]));
	qsort(sorted, s->n, sizeof(sorted[0]), by_id);
	w = snprintf(out, cap, "%s\n", SETTINGS_HEADER);
	if (w < 0 || (size_t)w >= cap)
		return -ENOSPC;
	n = (size_t)w;
	if (comment) {
		size_t start = n + 2;

		w = snprintf(out + n, cap - n, "# %s\n", comment);
		if (w < 0 || (size_t)w >= cap - n)
			return -ENOSPC;
		n += (size_t)w;
		/* a serial or product string may hold anything: one line */
		for (size_t i = start; i + 1 < n; i++)
			if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
				out[i] = '?';
	}
	for (unsigned i = 0; i < s->n; i++) {
		char name[64];

		settings_ctrl_name(sorted[i].id, name, sizeof(name));
		w = snprintf(out + n, cap - n, "0x%08" PRIx32 " %s %" PRId32 "\n", sorted[i].id,
			     name[0] ? name : "control", sorted[i].value);
		if (w < 0 || (size_t)w >= cap - n)
			return -ENOSPC;
		n += (size_t)w;
	}
	return (int)n;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* The next whitespace-separated token of *p (within end), or NULL. */
static const char *token(const char **p, const char *end, size_t *len)
{
	const char *s = *p;

	while (s < end && is_space(*s))
		s++;
	if (s == end)
		return NULL;
	*p = s;
	while (*p < end && !is_space(**p))
		(*p)++;
	*len = (size_t)(*p - s);
	return s;
}

static bool parse_hex32(const char *s, size_t len, uint32_t *out)
{
	uint32_t v = 0;

	if (len < 3 || len > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (size_t i = 2; i < len; i++) {
		char ch = s[i];
		unsigned d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

static bool parse_int32(const char *s, size_t len, int32_t *out)
{
	bool neg = false;
	int64_t v = 0;
	size_t i = 0;

	if (len && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == len || len - i > 10)
		return false;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	v = neg ? -v : v;
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	return true;
}

static bool parse_name(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!name_safe((unsigned char)s[i]) || s[i] == '-' || s[i] == '.')
			return false;
	return len > 0;
}

static int corrupt(struct settings *s, char *err, size_t errlen, unsigned line, const char *what)
{
	s->n = 0;
	if (errlen) {
		if (line)
			snprintf(err, errlen, "line %u: %s", line, what);
		else
			snprintf(err, errlen, "%s", what);
	}
	return -EINVAL;
}

int settings_parse(const char *text, size_t len, struct settings *s, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	unsigned line = 0;

	s->n = 0;
	if (errlen)
		err[0] = 0;
	if (len > SETTINGS_MAX_FILE)
		return corrupt(s, err, errlen, 0, "larger than 64 KiB");
	if (memchr(text, 0, len))
		return corrupt(s, err, errlen, 0, "holds a NUL byte");
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end, *q = p, *t;
		size_t tl;
		uint32_t id;
		int32_t value;

		line++;
		if (line == 1) {
			size_t hl = strlen(SETTINGS_HEADER);
			const char *h = le;

			while (h > p && is_space(h[-1]))
				h--;
			if ((size_t)(h - p) != hl || memcmp(p, SETTINGS_HEADER, hl))
				return corrupt(s, err, errlen, line,
					       "not \"" SETTINGS_HEADER "\" (not a uvcuse controls file, "
					       "or another version)");
			p = eol ? eol + 1 : end;
			continue;
		}
		p = eol ? eol + 1 : end;
		t = token(&q, le, &tl);
		if (!t || t[0] == '#')
			continue;
		if (!parse_hex32(t, tl, &id))
			return corrupt(s, err, errlen, line, "the control id is not 0x followed by hex digits");
		t = token(&q, le, &tl);
		if (!t || !parse_name(t, tl))
			return corrupt(s, err, errlen, line, "no control name after the id");
		t = token(&q, le, &tl);
		if (!t || !parse_int32(t, tl, &value))
			return corrupt(s, err, errlen, line, "the value is not a 32-bit integer");
		if (token(&q, le, &tl))
			return corrupt(s, err, errlen, line, "more than id, name and value");
		if (settings_put(s, id, value) < 0)
			return corrupt(s, err, errlen, line, "more controls than a camera has");
	}
	if (!line)
		return corrupt(s, err, errlen, 0, "empty");
	return 0;
}

/* ---- which controls, in which order ---- */

static int find_map(const struct ctrls *c, uint32_t id)
{
	if (id & ~(uint32_t)V4L2_CTRL_ID_MASK)
		return -1;
	return ctrls_find(c, id);
}

bool settings_savable(const struct ctrls *c, uint32_t id)
{
	int k = find_map(c, id);
	const struct ctrls_uvc *u;
	uint32_t type;

	if (k < 0)
		return false;
	u = &c->uvc[c->maps[k].uvc];
	type = c->maps[k].map->v4l2_type;
	/* extension unit controls (no table entry) are never remembered */
	return u->info && (u->info->flags & UVC_CTRL_FLAG_RESTORE) && (u->flags & UVC_CTRL_FLAG_GET_CUR) &&
	       (u->flags & UVC_CTRL_FLAG_SET_CUR) &&
	       (type == V4L2_CTRL_TYPE_INTEGER || type == V4L2_CTRL_TYPE_BOOLEAN ||
		type == V4L2_CTRL_TYPE_MENU);
}

bool settings_resettable(const struct ctrls *c, uint32_t id)
{
	return settings_savable(c, id) &&
	       (c->uvc[c->maps[ctrls_find(c, id)].uvc].flags & UVC_CTRL_FLAG_GET_DEF);
}

bool settings_is_master(const struct ctrls *c, uint32_t id)
{
	int k = find_map(c, id);

	return k >= 0 && c->maps[k].map->slave_ids[0];
}

static enum settings_phase phase_of(const struct ctrls *c, const struct settings *targets,
				    const struct settings *masters_now, uint32_t id,
				    uint32_t *master)
{
	int k = find_map(c, id);
	const struct uvc_ctrl_mapping *m;
	int32_t now, want;
	bool manual_now;

	*master = 0;
	if (k < 0)
		return SETTINGS_SKIP;
	m = c->maps[k].map;
	if (m->slave_ids[0])
		return SETTINGS_MASTERS;
	if (!m->master_id || ctrls_find(c, m->master_id) < 0)
		return SETTINGS_AFTER;
	manual_now = !settings_get(masters_now, m->master_id, &now) || now == m->master_manual;
	if (settings_get(targets, m->master_id, &want) ? want == m->master_manual : manual_now)
		return SETTINGS_AFTER;
	if (manual_now)
		return SETTINGS_BEFORE;
	*master = m->master_id;
	return SETTINGS_SKIP;
}

int settings_plan(const struct ctrls *c, const struct settings *targets,
		  const struct settings *masters_now, struct settings_step *steps, unsigned cap)
{
	int rank[SETTINGS_MAX];

	if (targets->n > cap)
		return -ENOSPC;
	for (unsigned i = 0; i < targets->n; i++) {
		struct settings_step st = { .id = targets->e[i].id, .value = targets->e[i].value };
		int k = find_map(c, st.id);
		unsigned j = i;

		st.phase = phase_of(c, targets, masters_now, st.id, &st.master_id);
		/* by phase, then by uvcvideo's order of the mappings (stable) */
		k = k < 0 ? CTRLS_MAX_MAPS : k;
		while (j > 0 && (steps[j - 1].phase > st.phase ||
				 (steps[j - 1].phase == st.phase && rank[j - 1] > k))) {
			steps[j] = steps[j - 1];
			rank[j] = rank[j - 1];
			j--;
		}
		steps[j] = st;
		rank[j] = k;
	}
	return (int)targets->n;
}

/* ---- where ---- */

int settings_state_dir(const char *opt, const char *env, const char *cwd, char *out, size_t cap)
{
	const char *dir = "/var/lib/uvcuse";
	size_t len;
	int w;

	if (opt) {
		dir = opt;
		len = strlen(opt);
	} else if (env && env[0] && env[0] != ':') {
		dir = env;
		len = strcspn(env, ":");
	} else {
		len = strlen(dir);
	}
	if (!len)
		return -EINVAL;
	if (dir[0] == '/')
		w = snprintf(out, cap, "%.*s", (int)len, dir);
	else if (cwd && cwd[0] == '/')
		w = snprintf(out, cap, "%s%s%.*s", cwd, cwd[strlen(cwd) - 1] == '/' ? "" : "/",
			     (int)len, dir);
	else
		return -EINVAL;
	if (w < 0 || (size_t)w >= cap)
		return -ENAMETOOLONG;
	/* "/a/b/" and "/a/b" are one directory */
	for (size_t n = (size_t)w; n > 1 && out[n - 1] == '/'; n--)
		out[n - 1] = 0;
	return 0;
}
