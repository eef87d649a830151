// SPDX-License-Identifier: GPL-2.0-or-later
/* uvcuse-preloaded (and uvcuse-preloaded32, the same built -m32): prints
 * its own pointer width and each mapped file named libuvcuse-preload*, so
 * a scenario sees which build of the preload library ld.so gave a 64-bit
 * and a 32-bit program (tests/e2e/service.sh, /etc/ld.so.preload).
 * Exit status 0 when the library is mapped, 1 when none is. */
#include <stdio.h>
#include <string.h>

int main(void)
{
	printf("%zu-bit\n", sizeof(void *) * 8);
	FILE *maps = fopen("/proc/self/maps", "r");
	if (!maps) {
		perror("uvcuse-preloaded: /proc/self/maps");
		return 2;
	}
	char line[4096], last[4096] = "";
	int found = 0;
	while (fgets(line, sizeof(line), maps)) {
		const char *path = strchr(line, '/');
		if (!path || !strstr(path, "/libuvcuse-preload") || strcmp(path, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", path);
		fputs(path, stdout);
		found = 1;
	}
	fclose(maps);
	return found ? 0 : 1;
}
