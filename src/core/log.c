/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/log.h"

#include <time.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

static enum log_level current = LOG_LEVEL_INFO;
static bool to_syslog;

int log_parse_level(const char *s)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]) || (s[0] == '0' + i && !s[1]))
			return i;
	return -1;
}

void log_set_level(enum log_level level)
{
	current = level;
}

void log_use_syslog(void)
{
	openlog("uvcuse", LOG_PID, LOG_DAEMON);
	to_syslog = true;
}

enum log_level log_get_level(void)
{
	return current;
}

size_t log_escape(char *dst, size_t cap, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	if (!cap)
		return 0;
	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;
		char esc[4];
		size_t len = 1;
		esc[0] = (char)c;
		if (c < 0x20 || c == 0x7f) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			len = 4;
		} else if (c == '\\') {
			esc[1] = '\\';
			len = 2;
		}
		if (n + len >= cap)
			break; /* never half an escape */
		memcpy(dst + n, esc, len);
		n += len;
	}
	dst[n] = 0;
	return n;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	/* syslog priorities: err 3, warning 4, info 6, debug 7 */
	static const int syslog_prio[] = { 3, 4, 6, 7 };
	static const char *const tags[] = { "error: ", "warning: ", "", "debug: " };
	if (level > current)
		return;
	char raw[1024], line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* At the sink, so that no caller can forget: one call, one line. */
	log_escape(line, sizeof(line), raw);
	if (to_syslog)
		syslog(syslog_prio[level], "%s", line);
	else if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>%s\n", syslog_prio[level], line);
	else
		fprintf(stderr, "uvcuse: %s%s\n", tags[level], line);
}

bool log_allowed(struct log_limit *limit, unsigned per_second)
{
	time_t now = time(NULL);
	if ((long)now != limit->second) {
		limit->second = (long)now;
		limit->count = 0;
	}
	return ++limit->count <= per_second;
}
