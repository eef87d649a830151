/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration files (src/service/config.c over libinih): any text in
 * /etc/uvcuse/uvcuse.conf or conf.d, then the values for a camera.
 * Input: the file's text. The file is a memfd, read through its
 * /proc/self/fd path as config_load() reads a real one. */
#include <sys/mman.h>
#include <unistd.h>

#include "service/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

static void on_warn(void *data, const char *msg)
{
	(void)data;
	/* "file:line: text" */
	FUZZ_CHECK(strncmp(msg, path, strlen(path)) == 0 && msg[strlen(path)] == ':');
}

static void check_values(const struct config_values *v)
{
	FUZZ_CHECK(strnlen(v->name, sizeof(v->name)) < sizeof(v->name));
	FUZZ_CHECK(v->ignore >= -1 && v->ignore <= 1);
	FUZZ_CHECK(v->convert >= -1 && v->convert <= 1);
	FUZZ_CHECK(v->exclusive >= -1 && v->exclusive <= 1);
	FUZZ_CHECK(v->linger >= -1 && v->linger <= 86400);
	FUZZ_CHECK(v->log_level >= -1 && v->log_level <= 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fd < 0) {
		fd = memfd_create("uvcuse.conf", MFD_CLOEXEC);
		FUZZ_CHECK(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);

	struct config cfg;
	config_init(&cfg, on_warn, NULL);
	char err[256];
	err[0] = 0;
	int r = config_parse_file(&cfg, path, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	FUZZ_CHECK(strnlen(err, sizeof(err)) < sizeof(err));
	if (r)
		FUZZ_CHECK(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':');
	check_values(&cfg.global);
	for (size_t i = 0; i < cfg.n_sections; i++) {
		const struct config_section *s = &cfg.sections[i];
		check_values(&s->values);
		FUZZ_CHECK(strnlen(s->match.serial, sizeof(s->match.serial)) < sizeof(s->match.serial));
		FUZZ_CHECK(strnlen(s->match.port, sizeof(s->match.port)) < sizeof(s->match.port));
		/* a section's own camera gets at least its values */
		struct config_camera cam = { .vid = s->match.vid, .pid = s->match.pid,
					     .serial = s->match.serial, .port = s->match.port };
		struct config_values v;
		config_resolve(&cfg, &cam, &v);
		check_values(&v);
		if (s->values.linger >= 0 && i + 1 == cfg.n_sections)
			FUZZ_CHECK(v.linger == s->values.linger);
	}
	struct config_camera nobody = { .vid = 0x1234, .pid = 0x5678, .serial = "", .port = "" };
	struct config_values v;
	config_resolve(&cfg, &nobody, &v);
	check_values(&v);
	config_free(&cfg);
	return 0;
}
