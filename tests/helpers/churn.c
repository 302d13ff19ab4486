// SPDX-License-Identifier: GPL-2.0
/*
 * churn RATE SECONDS: forks RATE short-lived children a second for
 * SECONDS; each burns a little CPU and exits. Reaps them all.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long rate = argc == 3 ? atol(argv[1]) : 0;
	double seconds = argc == 3 ? atof(argv[2]) : 0;
	struct timespec gap;
	volatile unsigned long sink = 0;

	if (rate <= 0 || seconds <= 0)
		return 2;
	gap.tv_sec = 0;
	gap.tv_nsec = 1000000000L / rate;
	for (long i = 0; i < (long)(rate * seconds); i++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (int j = 0; j < 100000; j++)
				sink++;
			_exit(0);
		}
		nanosleep(&gap, NULL);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
