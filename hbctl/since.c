/*
 * since - --since's durations and times (see since.h).  Local times go
 * through mktime, so a person types the time their clock shows.
 */
#include "since.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

time_t since_parse(const char *text, time_t now)
{
	char unit = 0, rest = 0;
	long long n;
	int y, mo, d, h = 0, mi = 0;
	struct tm tm;

	if (sscanf(text, "%lld%c%c", &n, &unit, &rest) == 2 && n >= 0 && strchr("smhd", unit) &&
	    strspn(text, "0123456789") == strlen(text) - 1) {
		long long secs = n * (unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 86400);

		return n > 100000000LL || secs > (long long)now ? -1 : now - (time_t)secs;
	}
	if (!localtime_r(&now, &tm))
		return -1;
	if (strlen(text) == 5 && sscanf(text, "%2d:%2d%c", &h, &mi, &rest) == 2) {
		y = tm.tm_year + 1900, mo = tm.tm_mon + 1, d = tm.tm_mday;
	} else if ((strlen(text) == 10 && sscanf(text, "%4d-%2d-%2d%c", &y, &mo, &d, &rest) == 3) ||
		   (strlen(text) == 16 && sscanf(text, "%4d-%2d-%2dT%2d:%2d%c", &y, &mo, &d, &h, &mi, &rest) == 5)) {
		/* read above */
	} else {
		return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59)
		return -1;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

time_t since_iso_utc(const char *text)
{
	int y, mo, d, h, mi, s;
	struct tm tm;

	if (!text || sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6)
		return -1;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
	return timegm(&tm);
}
