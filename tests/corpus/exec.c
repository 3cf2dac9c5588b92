/* SPDX-License-Identifier: MIT */
/* exec: do some instrumented work, then replace the image with another
 * instrumented corpus program (`recursion`, from the same build directory). */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "corpus.h"

static int countdown(int n)
{
	int s = 0;
	while (n > 0) {
		if (n % 3 == 0)
			s += n;
		n--;
	}
	return s;
}

int main(void)
{
	char self[PATH_MAX], target[PATH_MAX + 16];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len < 0) {
		printf("readlink failed\n");
		return 1;
	}
	self[len] = 0;
	snprintf(target, sizeof target, "%s/recursion", dirname(self));
	printf("before exec: %d\n", countdown(50 + (int)(corpus_seed() % 3u)));
	fflush(stdout);
	char arg[] = "11";
	char *argv[] = {"recursion", arg, NULL};
	execv(target, argv);
	printf("exec failed\n");
	return 127;
}
