/*
 * scale_proc - see scale_proc.h.  /proc/PID/stat counts in clock ticks
 * (10 ms on most kernels), too coarse for an idle broker, hence also the
 * sum of its threads' schedstat, in nanoseconds.
 */
#include "scale_proc.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

long scale_minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/* The sum of the schedstat run times (ns) of pid's threads, in s. */
static int sched_seconds(pid_t pid, double *sched_s)
{
	char path[96];
	unsigned long long total = 0;
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if (!(d = opendir(path)))
		return -1;
	while ((de = readdir(d))) {
		char tpath[400];
		unsigned long long ns;
		FILE *in;
		if (de->d_name[0] == '.')
			continue;
		/* a thread that ended meanwhile has no file: it counts nothing */
		snprintf(tpath, sizeof tpath, "/proc/%ld/task/%s/schedstat", (long)pid, de->d_name);
		if ((in = fopen(tpath, "r"))) {
			if (fscanf(in, "%llu", &ns) == 1)
				total += ns;
			fclose(in);
		}
	}
	closedir(d);
	*sched_s = (double)total / 1e9;
	return 0;
}

int scale_cpu_of(pid_t pid, double *stat_s, double *sched_s, long *minflt)
{
	char path[96], line[1024], *p;
	unsigned long long utime = 0, stime = 0, flt = 0;
	FILE *in;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (!(in = fopen(path, "r")))
		return -1;
	p = fgets(line, sizeof line, in);
	fclose(in);
	/* after "(comm) ": state is field 3, minflt 10, utime 14, stime 15 */
	if (!p || !(p = strrchr(line, ')')) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %*u %*u %llu %llu", &flt, &utime, &stime) != 3)
		return -1;
	if (minflt)
		*minflt = (long)flt;
	*stat_s = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
	return sched_seconds(pid, sched_s);
}
