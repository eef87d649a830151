/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Log lines on stderr, with a level. Under systemd (JOURNAL_STREAM set) each
 * line carries the "<N>" priority prefix journald understands; a detached
 * daemon logs to syslog. */
#ifndef UVCUSE_LOG_H
#define UVCUSE_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARNING, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* "error", "warning", "info", "debug" (or 0-3); -1 when unknown. */
int log_parse_level(const char *s);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* From now on lines go to syslog (a detached daemon has no stderr). */
void log_use_syslog(void);

/* Copies src into dst (cap bytes, always terminated) with every byte a
 * log reader could misread escaped: control characters (newline above
 * all: it would forge a line), DEL as \xNN, and '\' as "\\". Text from
 * apps (mapped control names...) may hold anything. Returns the length
 * written. */
size_t log_escape(char *dst, size_t cap, const char *src);

/* A limit of lines a second for complaints a hostile local user could
 * provoke in a loop: log_allowed() is true for the first 'per_second'
 * calls of each second. Zero-initialise. */
struct log_limit {
	long second;
	unsigned count;
};
bool log_allowed(struct log_limit *limit, unsigned per_second);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARNING, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
