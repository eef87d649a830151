/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The remembered-controls file (src/settings/settings.c): any text read back from
 * the state directory, and file names from any serial a camera reports.
 * Input: the file's text; its first bytes also serve as serial, port path,
 * comment and directory strings. */
#include "fuzz.h"
#include "settings/settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first up to cap - 1 bytes of the input, as a C string. */
static char *prefix(const uint8_t *data, size_t size, size_t cap)
{
	size_t n = size < cap - 1 ? size : cap - 1;
	char *s = calloc(1, cap);
	FUZZ_CHECK(s);
	memcpy(s, data, n);
	return s;
}

static bool same(const struct settings *a, const struct settings *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++) {
		int32_t v;
		if (!settings_get(b, a->e[i].id, &v) || v != a->e[i].value)
			return false;
	}
	return true;
}

static void check_name(const char *serial, const char *port)
{
	char name[SETTINGS_NAME_MAX + 1];
	int r = settings_file_name(0x046d, 0x0825, serial, port, name, sizeof(name));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r) {
		FUZZ_CHECK(!serial[0] && !port[0]);
		return;
	}
	size_t len = strlen(name);
	FUZZ_CHECK(len <= SETTINGS_NAME_MAX);
	FUZZ_CHECK(len > 9 && strcmp(name + len - 9, ".controls") == 0);
	/* safe in any directory: no separator, no dot-name, no control byte */
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		FUZZ_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '%' ||
			   c == '~');
	}
	/* distinct serials, distinct files */
	if (serial[0]) {
		size_t sl = strlen(serial);
		char *longer = calloc(1, sl + 2);
		FUZZ_CHECK(longer);
		memcpy(longer, serial, sl);
		longer[sl] = 'x';
		char other[SETTINGS_NAME_MAX + 1];
		FUZZ_CHECK(settings_file_name(0x046d, 0x0825, longer, port, other, sizeof(other)) == 0);
		FUZZ_CHECK(strcmp(name, other) != 0);
		free(longer);
	}
	/* too small a buffer is refused, never cut */
	char small[16];
	r = settings_file_name(0x046d, 0x0825, serial, port, small, sizeof(small));
	FUZZ_CHECK(r == (len < sizeof(small) ? 0 : -ENOSPC));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = (char *)fuzz_dup(data, size);
	struct settings s;
	char err[128];
	memset(&s, 0x5a, sizeof(s));
	int r = settings_parse(text, size, &s, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	FUZZ_CHECK(strnlen(err, sizeof(err)) < sizeof(err));
	FUZZ_CHECK(s.n <= SETTINGS_MAX);
	if (r) {
		FUZZ_CHECK(s.n == 0 && err[0]);
	} else {
		for (unsigned i = 0; i < s.n; i++)
			for (unsigned j = i + 1; j < s.n; j++)
				FUZZ_CHECK(s.e[i].id != s.e[j].id);
		/* what we write we read back, whatever the comment holds */
		char *comment = prefix(data, size, 300);
		static char out[SETTINGS_MAX_FILE];
		int len = settings_format(&s, comment, out, sizeof(out));
		FUZZ_CHECK(len > 0 && (size_t)len < sizeof(out) && out[len] == 0);
		struct settings back;
		FUZZ_CHECK(settings_parse(out, (size_t)len, &back, err, sizeof(err)) == 0);
		FUZZ_CHECK(same(&s, &back) && same(&back, &s));
		/* and too small a buffer is refused */
		FUZZ_CHECK(settings_format(&s, comment, out, (size_t)len) == -ENOSPC);
		free(comment);
	}

	char *serial = prefix(data, size, 400);
	char *port = prefix(data, size, 32);
	check_name(serial, "");
	check_name("", port);
	check_name(serial, port);

	char dir[256];
	r = settings_state_dir(NULL, serial, port, dir, sizeof(dir));
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENAMETOOLONG);
	if (r == 0)
		FUZZ_CHECK(dir[0] == '/' && strnlen(dir, sizeof(dir)) < sizeof(dir));
	r = settings_state_dir(serial, NULL, "/", dir, sizeof(dir));
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENAMETOOLONG);

	uint32_t id = 0;
	memcpy(&id, data, size < 4 ? size : 4);
	char name[64];
	settings_ctrl_name(id, name, sizeof(name));
	FUZZ_CHECK(strnlen(name, sizeof(name)) < sizeof(name));
	settings_ctrl_name(id, name, 3);
	FUZZ_CHECK(strnlen(name, 3) < 3);

	free(serial);
	free(port);
	free(text);
	return 0;
}
