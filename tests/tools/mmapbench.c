/* SPDX-License-Identifier: GPL-2.0-or-later */
/* uvcuse-mmapbench: the cost of libuvcuse-preload.so on the calls it
 * interposes but must leave alone: N anonymous mmap/munmap pairs, timed in
 * a child without and a child with the library in LD_PRELOAD, alternating
 * for a few rounds; prints the best and the median time of each and their
 * ratios (a shared machine is noisy: the median ratio decides).
 *
 *   uvcuse-mmapbench LIBRARY [PAIRS (10000000)] [ROUNDS (3)]
 *   exit 0 when the ratio is below 1.05, 1 above, 2 on errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The measured child: prints seconds for n pairs.
 * Where the kernel puts the page matters more than the library: next to an
 * anonymous rw mapping it is merged into it and split off again at munmap,
 * which costs ~20% on its own, and loading a library changes the
 * neighbours. So every page is asked for (hint, no MAP_FIXED) in a
 * one-page hole between two PROT_NONE mappings, the same in both runs. */
static int child(long n)
{
	char *guard = mmap(NULL, 3 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || munmap(guard + 4096, 4096) < 0) {
		perror("mmapbench: guard");
		return 2;
	}
	char *hole = guard + 4096;
	double t0 = now();
	for (long i = 0; i < n; i++) {
		void *p = mmap(hole, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != hole || munmap(p, 4096) < 0) {
			perror("mmapbench: mmap");
			return 2;
		}
	}
	printf("%.6f\n", now() - t0);
	return 0;
}

/* Runs ourselves in child mode with LD_PRELOAD=lib (or without). */
static double run(const char *self, const char *lib, const char *pairs)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		if (lib)
			setenv("LD_PRELOAD", lib, 1);
		else
			unsetenv("LD_PRELOAD");
		execl(self, self, "--child", pairs, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	char buf[64] = "";
	ssize_t n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	if (n <= 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return strtod(buf, NULL);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define MAX_ROUNDS 31

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(atol(argv[2]));
	if (argc < 2) {
		fprintf(stderr, "usage: uvcuse-mmapbench LIBRARY [PAIRS] [ROUNDS]\n");
		return 2;
	}
	const char *pairs = argc > 2 ? argv[2] : "10000000";
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "mmapbench: 1 to %d rounds\n", MAX_ROUNDS);
		return 2;
	}
	double times[2][MAX_ROUNDS];
	for (int r = 0; r < rounds; r++) {
		for (int with = 0; with < 2; with++) {
			double t = run("/proc/self/exe", with ? argv[1] : NULL, pairs);
			if (t < 0) {
				fprintf(stderr, "mmapbench: a run failed\n");
				return 2;
			}
			printf("round %d %s library: %.3f s\n", r + 1, with ? "with   " : "without", t);
			fflush(stdout);
			times[with][r] = t;
		}
	}
	double n = atof(pairs);
	qsort(times[0], (size_t)rounds, sizeof(double), cmp);
	qsort(times[1], (size_t)rounds, sizeof(double), cmp);
	double med[2] = { times[0][rounds / 2], times[1][rounds / 2] };
	printf("%s pairs, best: without %.3f s (%.1f ns/pair), with %.3f s (%.1f ns/pair), "
	       "ratio %.4f\n", pairs, times[0][0], times[0][0] / n * 1e9, times[1][0],
	       times[1][0] / n * 1e9, times[1][0] / times[0][0]);
	printf("%s pairs, median: without %.3f s, with %.3f s, ratio %.4f\n", pairs, med[0],
	       med[1], med[1] / med[0]);
	return med[1] / med[0] < 1.05 ? 0 : 1;
}
