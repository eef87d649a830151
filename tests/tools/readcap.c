/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-readcap: captures frames through read(), one frame per read() as
 * the V4L2 read() API gives them, and reports the rate they arrived at.
 * Debian 12's v4l2-ctl (1.22) streams only with --stream-mmap/-user/-dmabuf,
 * so the read() path needs its own client. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

static void usage(FILE *out)
{
	fprintf(out, "Usage: uvcuse-readcap NODE COUNT FILE [--times TIMES]\n"
		     "Reads COUNT frames from the V4L2 node with read() (one frame per call,\n"
		     "the current format's sizeimage), writes them to FILE back to back and\n"
		     "prints the arrival rate from the first to the last frame.\n"
		     "  -t, --times TIMES  write each frame's arrival time (CLOCK_MONOTONIC ns)\n");
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "times", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *times_path = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, "t:h", options, NULL)) != -1) {
		if (opt == 't') {
			times_path = optarg;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 3) {
		usage(stderr);
		return 2;
	}
	const char *node = argv[optind];
	long count = strtol(argv[optind + 1], NULL, 10);
	if (count <= 0) {
		fprintf(stderr, "uvcuse-readcap: COUNT must be positive\n");
		return 2;
	}
	int fd = open(node, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "uvcuse-readcap: %s: %s\n", node, strerror(errno));
		return 1;
	}
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	if (ioctl(fd, VIDIOC_G_FMT, &fmt) < 0) {
		fprintf(stderr, "uvcuse-readcap: VIDIOC_G_FMT: %s\n", strerror(errno));
		return 1;
	}
	size_t size = fmt.fmt.pix.sizeimage;
	uint8_t *buf = malloc(size);
	int64_t *arrival = calloc((size_t)count, sizeof(*arrival));
	FILE *out = fopen(argv[optind + 2], "wb");
	if (!buf || !arrival || !out) {
		fprintf(stderr, "uvcuse-readcap: %s\n", out ? "out of memory" : strerror(errno));
		return 1;
	}
	uint64_t bytes = 0;
	for (long i = 0; i < count; i++) {
		ssize_t n = read(fd, buf, size);
		if (n <= 0) {
			fprintf(stderr, "uvcuse-readcap: read() of frame %ld: %s\n", i,
				n < 0 ? strerror(errno) : "end of file");
			return 1;
		}
		arrival[i] = now_ns();
		bytes += (uint64_t)n;
		if (fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
			fprintf(stderr, "uvcuse-readcap: writing: %s\n", strerror(errno));
			return 1;
		}
	}
	if (fclose(out) != 0) {
		fprintf(stderr, "uvcuse-readcap: writing: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	if (times_path) {
		FILE *t = fopen(times_path, "w");
		if (!t) {
			fprintf(stderr, "uvcuse-readcap: %s: %s\n", times_path, strerror(errno));
			return 1;
		}
		for (long i = 0; i < count; i++)
			fprintf(t, "%" PRId64 "\n", arrival[i]);
		fclose(t);
	}
	double fps = count > 1 ? (double)(count - 1) * 1e9 / (double)(arrival[count - 1] - arrival[0]) : 0;
	printf("frames: %ld\nbytes: %" PRIu64 "\nrate: %.3f fps\n", count, bytes, fps);
	free(buf);
	free(arrival);
	return 0;
}
