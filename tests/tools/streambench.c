/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-streambench: an MMAP capture client that times itself, for
 * scripts/bench's side-by-side runs of uvcvideo and uvcuse on one camera.
 * It streams as apps do (poll, DQBUF, QBUF) and reports the frame rate, the
 * cost of each DQBUF and QBUF call (a DQBUF only after poll said a buffer
 * is ready, so the figure is the call, not the wait), its own CPU time per
 * frame, and optionally the frames and their DQBUF return times for
 * uvcuse-framecheck --times (latency from the camera's stamp), and each
 * buffer's sequence number, flags and size (a damaged frame's ERROR flag).
 * With --dmabuf EXPORTER it captures into dma-bufs another driver exported
 * (V4L2_MEMORY_DMABUF: DMABUF import) instead of the node's MMAP buffers. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#define BUFFERS 4
#define WARMUP 5 /* frames before the rate's clock starts */

static void die(const char *what)
{
	fprintf(stderr, "uvcuse-streambench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double pct_us(int64_t *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return (double)v[i] / 1000.0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: uvcuse-streambench NODE --format F --size WxH --count N [options]\n"
		"  -f, --format F   fourcc (YUYV, MJPG...)\n"
		"  -s, --size WxH\n"
		"  -n, --count N    frames to capture\n"
		"  -r, --fps N      frame rate to ask for (default: the node's)\n"
		"  -o, --out FILE   write the frames back to back\n"
		"  -t, --times FILE write each DQBUF's return time (CLOCK_MONOTONIC ns)\n"
		"  -T, --stamps FILE write each buffer's timestamp (ns): with\n"
		"                   uvcuse-framecheck --times, the timestamps' error\n"
		"  -F, --flags FILE write each buffer's sequence, flags (hex) and\n"
		"                   bytesused, one line per frame\n"
		"  -W, --whole      write each buffer's sizeimage bytes to --out, whatever\n"
		"                   its bytesused (a short damaged frame keeps a raw\n"
		"                   capture's frames in step)\n"
		"  -w, --settle US  wait US microseconds after poll and after DQBUF: the\n"
		"                   calls then meet a driver done with the frame\n"
		"  -d, --dmabuf DEV capture into dma-bufs exported by DEV's MMAP buffers\n"
		"                   (its current format must hold the node's frames)\n"
		"Prints: frames, rate (fps from frame %d on), dqbuf/qbuf p50 and p99 (us),\n"
		"cpu per frame (us, this process).\n",
		WARMUP);
}

/* BUFFERS dma-bufs of exporter's MMAP buffers, at least size bytes each
 * (VIDIOC_EXPBUF), into fds[]. */
static void export_dmabufs(const char *exporter, size_t size, int *fds)
{
	int e = open(exporter, O_RDWR);
	if (e < 0)
		die(exporter);
	struct v4l2_requestbuffers rb = { .count = BUFFERS, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	if (ioctl(e, VIDIOC_REQBUFS, &rb) < 0 || rb.count < BUFFERS)
		die("the exporter's REQBUFS");
	for (unsigned i = 0; i < BUFFERS; i++) {
		struct v4l2_exportbuffer x = { .type = rb.type, .index = i,
					       .flags = O_RDWR | O_CLOEXEC };
		if (ioctl(e, VIDIOC_EXPBUF, &x) < 0)
			die("the exporter's EXPBUF");
		if (lseek(x.fd, 0, SEEK_END) < (off_t)size) {
			errno = ENOSPC;
			die("the exporter's buffers are smaller than the node's frames");
		}
		fds[i] = x.fd;
	}
	close(e); /* the dma-bufs keep its buffers */
}

/* The node's buffers (MMAP), or dma-bufs from exporter (DMABUF), mapped
 * into mem[] and queued; returns the memory. */
static unsigned setup_buffers(int fd, const char *exporter, size_t sizeimage, void **mem)
{
	unsigned memory = exporter ? V4L2_MEMORY_DMABUF : V4L2_MEMORY_MMAP;
	int fds[BUFFERS];
	if (exporter)
		export_dmabufs(exporter, sizeimage, fds);
	struct v4l2_requestbuffers rb = { .count = BUFFERS, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = memory };
	if (ioctl(fd, VIDIOC_REQBUFS, &rb) < 0 || rb.count < 2)
		die("REQBUFS");
	for (unsigned i = 0; i < rb.count; i++) {
		struct v4l2_buffer b = { .index = i, .type = rb.type, .memory = memory };
		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0)
			die("QUERYBUF");
		if (exporter) {
			b.m.fd = fds[i];
			b.length = 0; /* the whole dma-buf */
			mem[i] = mmap(NULL, (size_t)lseek(fds[i], 0, SEEK_END), PROT_READ,
				      MAP_SHARED, fds[i], 0);
		} else {
			mem[i] = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				      b.m.offset);
		}
		if (mem[i] == MAP_FAILED)
			die("mmap");
		if (ioctl(fd, VIDIOC_QBUF, &b) < 0)
			die("QBUF");
	}
	return memory;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' }, { "size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },  { "fps", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },    { "times", required_argument, NULL, 't' },
		{ "settle", required_argument, NULL, 'w' }, { "help", no_argument, NULL, 'h' },
		{ "stamps", required_argument, NULL, 'T' }, { "flags", required_argument, NULL, 'F' },
		{ "whole", no_argument, NULL, 'W' },        { "dmabuf", required_argument, NULL, 'd' },
		{ 0 },
	};
	const char *fourcc = NULL, *out_path = NULL, *times_path = NULL, *stamps_path = NULL,
		   *flags_path = NULL, *exporter = NULL;
	bool whole = false;
	unsigned width = 0, height = 0, fps = 0, settle_us = 0;
	long count = 0;
	int c;
	while ((c = getopt_long(argc, argv, "f:s:n:r:o:t:T:F:Ww:d:h", options, NULL)) != -1) {
		switch (c) {
		case 'f': fourcc = optarg; break;
		case 's':
			if (sscanf(optarg, "%ux%u", &width, &height) != 2)
				return usage(stderr), 2;
			break;
		case 'n': count = strtol(optarg, NULL, 10); break;
		case 'r': fps = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'o': out_path = optarg; break;
		case 't': times_path = optarg; break;
		case 'T': stamps_path = optarg; break;
		case 'F': flags_path = optarg; break;
		case 'W': whole = true; break;
		case 'w': settle_us = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'd': exporter = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc || !fourcc || strlen(fourcc) != 4 || !width || count <= WARMUP) {
		usage(stderr);
		return 2;
	}
	int fd = open(argv[optind], O_RDWR);
	if (fd < 0)
		die(argv[optind]);
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = v4l2_fourcc(fourcc[0], fourcc[1], fourcc[2], fourcc[3]);
	if (ioctl(fd, VIDIOC_S_FMT, &fmt) < 0)
		die("S_FMT");
	if (fps) {
		struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		parm.parm.capture.timeperframe = (struct v4l2_fract){ 1, fps };
		if (ioctl(fd, VIDIOC_S_PARM, &parm) < 0)
			die("S_PARM");
	}
	void *mem[VIDEO_MAX_FRAME];
	unsigned memory = setup_buffers(fd, exporter, fmt.fmt.pix.sizeimage, mem);
	FILE *out = out_path ? fopen(out_path, "we") : NULL, *times = times_path ? fopen(times_path, "we") : NULL;
	FILE *stamps = stamps_path ? fopen(stamps_path, "we") : NULL;
	FILE *flags = flags_path ? fopen(flags_path, "we") : NULL;
	if ((out_path && !out) || (times_path && !times) || (stamps_path && !stamps) ||
	    (flags_path && !flags))
		die("output file");
	int64_t *dq = calloc((size_t)count, sizeof(*dq)), *q = calloc((size_t)count, sizeof(*q));
	if (!dq || !q)
		die("calloc");
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0)
		die("STREAMON");
	int64_t t_start = 0, t_end = 0;
	struct rusage ru0, ru1;
	for (long n = 0; n < count; n++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLIN)) {
			errno = errno ? errno : ETIMEDOUT;
			die("poll");
		}
		if (settle_us)
			usleep(settle_us);
		struct v4l2_buffer b = { .type = type, .memory = memory };
		int64_t t0 = now_ns();
		if (ioctl(fd, VIDIOC_DQBUF, &b) < 0)
			die("DQBUF");
		int64_t t1 = now_ns();
		dq[n] = t1 - t0;
		if (n == WARMUP) {
			t_start = t1;
			getrusage(RUSAGE_SELF, &ru0);
		}
		t_end = t1;
		if (times)
			fprintf(times, "%lld\n", (long long)t1);
		if (stamps)
			fprintf(stamps, "%lld\n", (long long)b.timestamp.tv_sec * 1000000000ll +
						     (long long)b.timestamp.tv_usec * 1000ll);
		if (flags)
			fprintf(flags, "%u %#x %u\n", b.sequence, b.flags, b.bytesused);
		size_t bytes = whole ? fmt.fmt.pix.sizeimage : b.bytesused;
		if (out && fwrite(mem[b.index], 1, bytes, out) != bytes)
			die("write");
		if (settle_us)
			usleep(settle_us);
		int64_t t2 = now_ns();
		if (ioctl(fd, VIDIOC_QBUF, &b) < 0)
			die("QBUF");
		q[n] = now_ns() - t2;
	}
	getrusage(RUSAGE_SELF, &ru1);
	ioctl(fd, VIDIOC_STREAMOFF, &type);
	long frames = count - WARMUP;
	double secs = (double)(t_end - t_start) / 1e9;
	double cpu_us = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec -
				 ru0.ru_stime.tv_sec) * 1e6 +
			(double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec -
				 ru0.ru_stime.tv_usec);
	printf("frames: %ld\n", count);
	printf("rate: %.2f fps\n", secs > 0 ? (double)(frames - 1) / secs : 0);
	printf("dqbuf p50: %.1f us\n", pct_us(dq + WARMUP, (size_t)frames, 0.5));
	printf("dqbuf p99: %.1f us\n", pct_us(dq + WARMUP, (size_t)frames, 0.99));
	printf("qbuf p50: %.1f us\n", pct_us(q + WARMUP, (size_t)frames, 0.5));
	printf("qbuf p99: %.1f us\n", pct_us(q + WARMUP, (size_t)frames, 0.99));
	printf("app cpu per frame: %.1f us\n", cpu_us / (double)frames);
	if (out)
		fclose(out);
	if (times)
		fclose(times);
	if (stamps)
		fclose(stamps);
	if (flags)
		fclose(flags);
	free(dq);
	free(q);
	close(fd);
	return 0;
}
