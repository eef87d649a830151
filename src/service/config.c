/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration files through libinih (see config.h for the format).
 * inih's handler is not told the line number, so our reader counts lines
 * as it hands them over: the handler runs right after its line is read. */
#include "service/config.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/log.h"
#include "uvc/quirks.h"

static void values_init(struct config_values *v)
{
	v->name[0] = '\0';
	v->ignore = v->log_level = v->convert = v->exclusive = v->linger = -1;
	v->convert_threads = -1;
	v->camera_clock = -1;
	v->metadata_node = -1;
	v->replug = -1;
	v->errored_frames = -1;
	v->has_quirks = -1;
	v->max_opens_per_process = v->max_opens_per_user = v->max_channels_per_file = -1;
	v->max_channels_per_user = -1;
	v->max_connections_per_user = v->connection_timeout_ms = v->max_buffer_mib_per_user = -1;
}

void config_init(struct config *cfg, config_warn_cb warn, void *warn_data)
{
	memset(cfg, 0, sizeof(*cfg));
	values_init(&cfg->global);
	cfg->warn = warn;
	cfg->warn_data = warn_data;
}

void config_free(struct config *cfg)
{
	free(cfg->sections);
	cfg->sections = NULL;
	cfg->n_sections = 0;
}

struct parse_state {
	struct config *cfg;
	const char *path;
	FILE *file;
	int line;          /* of the line last handed to inih */
	int newline_seen;  /* the last piece read ended its line */
	int have_section;
	char section[256]; /* the one the values below go to */
	struct config_values *target; /* NULL: an unknown section */
	char *err;
	size_t errlen;
	int failed;
};

static char *read_line(char *str, int num, void *stream)
{
	struct parse_state *st = stream;
	char *s = fgets(str, num, st->file);
	if (!s)
		return NULL;
	if (st->newline_seen)
		st->line++;
	st->newline_seen = strchr(s, '\n') != NULL;
	return s;
}

static void warn(struct parse_state *st, const char *fmt, const char *a, const char *b)
{
	char msg[512];
	char text[400];
	snprintf(text, sizeof(text), fmt, a, b);
	snprintf(msg, sizeof(msg), "%s:%d: %s", st->path, st->line, text);
	if (st->cfg->warn)
		st->cfg->warn(st->cfg->warn_data, msg);
}

static int fail(struct parse_state *st, const char *fmt, const char *a, const char *b)
{
	if (!st->failed) {
		char text[400];
		snprintf(text, sizeof(text), fmt, a, b);
		snprintf(st->err, st->errlen, "%s:%d: %s", st->path, st->line, text);
		st->failed = 1;
	}
	return 0;
}

/* A whole decimal number in [min, max] (min >= 0), or -1. */
static int parse_int(const char *value, long min, long max)
{
	char *end;
	errno = 0;
	long n = strtol(value, &end, 10);
	if (!value[0] || *end || errno || n < min || n > max)
		return -1;
	return (int)n;
}

/* The limits (uvcuse.conf(5)): whole numbers in a range. */
static const struct limit_key {
	const char *key;
	size_t offset; /* of its int in struct config_values */
	long min, max;
} limit_keys[] = {
	{ "max-opens-per-process", offsetof(struct config_values, max_opens_per_process), 1, 4096 },
	{ "max-opens-per-user", offsetof(struct config_values, max_opens_per_user), 1, 65536 },
	{ "max-channels-per-file", offsetof(struct config_values, max_channels_per_file), 1, 8 },
	{ "max-channels-per-user", offsetof(struct config_values, max_channels_per_user), 1, 4096 },
	{ "max-connections-per-user", offsetof(struct config_values, max_connections_per_user), 1, 32 },
	{ "connection-timeout", offsetof(struct config_values, connection_timeout_ms), 100, 60000 },
	{ "max-buffer-memory-per-user", offsetof(struct config_values, max_buffer_mib_per_user), 16,
	  1048576 },
};

static const struct limit_key *find_limit_key(const char *key)
{
	for (size_t i = 0; i < sizeof(limit_keys) / sizeof(limit_keys[0]); i++)
		if (!strcmp(key, limit_keys[i].key))
			return &limit_keys[i];
	return NULL;
}

/* The yes-or-no keys (uvcuse.conf(5)). */
static const struct bool_key {
	const char *key;
	size_t offset; /* of its int in struct config_values */
} bool_keys[] = {
	{ "ignore", offsetof(struct config_values, ignore) },
	{ "convert", offsetof(struct config_values, convert) },
	{ "exclusive", offsetof(struct config_values, exclusive) },
	{ "camera-clock", offsetof(struct config_values, camera_clock) },
	{ "metadata-node", offsetof(struct config_values, metadata_node) },
};

static const struct bool_key *find_bool_key(const char *key)
{
	for (size_t i = 0; i < sizeof(bool_keys) / sizeof(bool_keys[0]); i++)
		if (!strcmp(key, bool_keys[i].key))
			return &bool_keys[i];
	return NULL;
}

static int parse_bool(const char *s)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0" };
	for (unsigned i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

static int parse_hex16(const char *s, size_t len, uint16_t *out)
{
	if (len < 1 || len > 4 || strspn(s, "0123456789abcdefABCDEF") < len)
		return -1;
	char buf[5];
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = (uint16_t)strtoul(buf, NULL, 16);
	return 0;
}

/* "camera serial=X id=V:P port=1-2" -> match; -1 with the bad token in st. */
static int parse_camera_section(struct parse_state *st, const char *spec, struct config_match *m)
{
	memset(m, 0, sizeof(*m));
	const char *p = spec + strlen("camera");
	int tokens = 0;
	for (;;) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		size_t len = strcspn(p, " \t");
		char tok[160];
		if (len >= sizeof(tok))
			return fail(st, "section [%s]: match too long", spec, NULL), -1;
		memcpy(tok, p, len);
		tok[len] = '\0';
		p += len;
		tokens++;
		const char *colon;
		if (!strncmp(tok, "serial=", 7) && tok[7] && strlen(tok + 7) < sizeof(m->serial)) {
			strcpy(m->serial, tok + 7);
		} else if (!strncmp(tok, "port=", 5) && tok[5] && strlen(tok + 5) < sizeof(m->port) &&
			   strspn(tok + 5, "0123456789-.") == strlen(tok + 5)) {
			strcpy(m->port, tok + 5);
		} else if (!strncmp(tok, "id=", 3) && (colon = strchr(tok + 3, ':')) &&
			   !parse_hex16(tok + 3, (size_t)(colon - tok - 3), &m->vid) &&
			   !parse_hex16(colon + 1, strlen(colon + 1), &m->pid)) {
			m->has_id = 1;
		} else {
			return fail(st, "section [%s]: '%s' is not serial=SERIAL, id=VID:PID or port=BUS-PORT",
				    spec, tok),
			       -1;
		}
	}
	if (!tokens)
		return fail(st, "section [camera] needs serial=, id= or port=", NULL, NULL), -1;
	return 0;
}

/* inih tells the handler of keys only, so a section is taken up on its
 * first key. */
static int select_section(struct parse_state *st, const char *section)
{
	st->have_section = 1;
	snprintf(st->section, sizeof(st->section), "%s", section);
	st->target = NULL;
	if (!strcmp(section, "uvcuse")) {
		st->target = &st->cfg->global;
		return 0;
	}
	if (!strncmp(section, "camera", 6) && (section[6] == '\0' || section[6] == ' ' || section[6] == '\t')) {
		struct config_match m;
		if (parse_camera_section(st, section, &m) < 0)
			return -1;
		struct config_section *grown = realloc(st->cfg->sections,
						       (st->cfg->n_sections + 1) * sizeof(*grown));
		if (!grown)
			return fail(st, "out of memory", NULL, NULL), -1;
		st->cfg->sections = grown;
		struct config_section *s = &grown[st->cfg->n_sections++];
		s->match = m;
		values_init(&s->values);
		st->target = &s->values;
		return 0;
	}
	if (!section[0])
		return fail(st, "keys before any section (want [uvcuse] or [camera ...])", NULL, NULL), -1;
	warn(st, "unknown section [%s]: ignored", section, NULL);
	st->target = NULL;
	return 0;
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
	struct parse_state *st = user;
	if (st->failed)
		return 0;
	if (!st->have_section || strcmp(st->section, section))
		if (select_section(st, section) < 0)
			return 0;
	if (!st->target)
		return 1; /* in an unknown section, already warned about */
	struct config_values *v = st->target;
	int b;
	const struct limit_key *lim = find_limit_key(key);
	const struct bool_key *yes_no = find_bool_key(key);
	if (yes_no) {
		if ((b = parse_bool(value)) < 0)
			return fail(st, "%s wants yes or no, not '%s'", key, value);
		*(int *)((char *)v + yes_no->offset) = b;
	} else if (lim) {
		int *field = (int *)((char *)v + lim->offset);
		if ((*field = parse_int(value, lim->min, lim->max)) < 0) {
			char range[48];
			snprintf(range, sizeof(range), "%ld to %ld", lim->min, lim->max);
			return fail(st, "%s wants a whole number from %s", key, range);
		}
	} else if (!strcmp(key, "name")) {
		if (v == &st->cfg->global)
			return fail(st, "name belongs in a [camera ...] section", NULL, NULL);
		size_t n = strlen(value);
		if (strncmp(value, "video", 5) || n == 5 || n > 40 ||
		    strspn(value + 5, "0123456789") != n - 5)
			return fail(st, "name wants videoN, not '%s'", value, NULL);
		strcpy(v->name, value);
	} else if (!strcmp(key, "log-level")) {
		int level = log_parse_level(value);
		if (level < 0)
			return fail(st, "log-level wants error, warning, info or debug, not '%s'", value, NULL);
		v->log_level = level;
	} else if (!strcmp(key, "replug")) {
		if (!strcmp(value, "any-port") || !strcmp(value, "same-port"))
			v->replug = value[0] == 'a' ? 0 : 1;
		else
			return fail(st, "replug wants any-port or same-port, not '%s'", value, NULL);
	} else if (!strcmp(key, "errored-frames")) {
		if (!strcmp(value, "deliver") || !strcmp(value, "drop"))
			v->errored_frames = value[1] == 'e';
		else
			return fail(st, "errored-frames wants deliver or drop, not '%s'", value, NULL);
	} else if (!strcmp(key, "linger")) {
		if ((v->linger = parse_int(value, 0, 86400)) < 0)
			return fail(st, "linger wants seconds from 0 to 86400, not '%s'", value, NULL);
	} else if (!strcmp(key, "quirks")) {
		if (uvc_quirks_parse(value, &v->quirks) < 0)
			return fail(st, "quirks wants quirk names (probe_minmax,fix_bandwidth...), "
					"none or a number, not '%s'", value, NULL);
		v->has_quirks = 1;
	} else if (!strcmp(key, "convert-threads")) {
		if ((v->convert_threads = parse_int(value, 1, 64)) < 0)
			return fail(st, "convert-threads wants 1 to 64, not '%s'", value, NULL);
	} else {
		warn(st, "unknown key '%s': ignored", key, NULL);
	}
	return 1;
}

int config_parse_file(struct config *cfg, const char *path, char *err, size_t errlen)
{
	struct parse_state st = {
		.cfg = cfg, .path = path, .line = 1, .err = err, .errlen = errlen,
	};
	st.file = fopen(path, "re");
	if (!st.file) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	int ret = ini_parse_stream(read_line, &st, on_key, &st);
	fclose(st.file);
	if (st.failed)
		return -EINVAL;
	if (ret > 0) {
		snprintf(err, errlen, "%s:%d: not a section header nor key = value", path, ret);
		return -EINVAL;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s: cannot parse (out of memory)", path);
		return -ENOMEM;
	}
	return 0;
}

static int conf_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

int config_load(struct config *cfg, const char *main_file, int missing_ok, const char *dir,
		char *err, size_t errlen)
{
	int ret = config_parse_file(cfg, main_file, err, errlen);
	if (ret == -ENOENT && missing_ok)
		ret = 0;
	if (ret < 0)
		return ret;
	struct dirent **names;
	int n = scandir(dir, &names, conf_name, alphasort);
	if (n < 0)
		return 0; /* no conf.d: nothing more */
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!ret)
			ret = config_parse_file(cfg, path, err, errlen);
		free(names[i]);
	}
	free(names);
	return ret;
}

/* The int at offset in v, when set, replaces out's. */
static void apply_int(struct config_values *out, const struct config_values *v, size_t offset)
{
	const int *from = (const int *)((const char *)v + offset);
	if (*from >= 0)
		*(int *)((char *)out + offset) = *from;
}

static void apply(struct config_values *out, const struct config_values *v)
{
	if (v->name[0])
		strcpy(out->name, v->name);
	if (v->log_level >= 0)
		out->log_level = v->log_level;
	if (v->linger >= 0)
		out->linger = v->linger;
	if (v->replug >= 0)
		out->replug = v->replug;
	if (v->errored_frames >= 0)
		out->errored_frames = v->errored_frames;
	if (v->convert_threads >= 0)
		out->convert_threads = v->convert_threads;
	if (v->has_quirks > 0) {
		out->has_quirks = 1;
		out->quirks = v->quirks;
	}
	for (size_t i = 0; i < sizeof(limit_keys) / sizeof(limit_keys[0]); i++)
		apply_int(out, v, limit_keys[i].offset);
	for (size_t i = 0; i < sizeof(bool_keys) / sizeof(bool_keys[0]); i++)
		apply_int(out, v, bool_keys[i].offset);
}

static int matches(const struct config_match *m, const struct config_camera *cam)
{
	if (m->has_id && (m->vid != cam->vid || m->pid != cam->pid))
		return 0;
	if (m->serial[0] && (!cam->serial || strcmp(m->serial, cam->serial)))
		return 0;
	if (m->port[0] && (!cam->port || strcmp(m->port, cam->port)))
		return 0;
	return 1;
}

void config_resolve(const struct config *cfg, const struct config_camera *cam,
		    struct config_values *out)
{
	values_init(out);
	apply(out, &cfg->global);
	for (size_t i = 0; i < cfg->n_sections; i++)
		if (matches(&cfg->sections[i].match, cam))
			apply(out, &cfg->sections[i].values);
}
