/*
 * wav - the RIFF/WAVE writer.  Samples go out little-endian whatever the
 * host's byte order (as they are, in one write, on a little-endian host);
 * the sizes in the header are written last, once known.
 *
 * The flush before the rename is on the path of the call, and with
 * minutes of audio it was the larger part of what the call spent after
 * Gemini's last byte.  So the kernel is asked to start writing each
 * stretch out as soon as it is written (posix_fadvise DONTNEED, which
 * Linux turns into writeback that does not wait), and the caller flushes
 * while it waits for the next part (speech_wav_sync).
 */
#include "wav.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEADER_BYTES 44
#define BLOCK 16384 /* samples per write when they must be converted */
#define WRITEBACK (1 << 20) /* bytes: how much to write before asking for writeback */

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void header(unsigned char *h, long rate, uint32_t data_bytes)
{
	memcpy(h, "RIFF", 4);
	put32(h + 4, 36 + data_bytes);
	memcpy(h + 8, "WAVEfmt ", 8);
	put32(h + 16, 16);                 /* fmt chunk size */
	put16(h + 20, 1);                  /* PCM */
	put16(h + 22, 1);                  /* mono */
	put32(h + 24, (uint32_t)rate);
	put32(h + 28, (uint32_t)rate * 2); /* bytes per second */
	put16(h + 32, 2);                  /* bytes per frame */
	put16(h + 34, 16);                 /* bits per sample */
	memcpy(h + 36, "data", 4);
	put32(h + 40, data_bytes);
}

static int little_endian(void)
{
	const uint16_t probe = 1;

	return *(const unsigned char *)&probe == 1;
}

static int write_all(int fd, const unsigned char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int speech_wav_open(struct speech_wav *w, const char *dir, const char *prefix, long rate, char *err,
		    size_t errlen)
{
	unsigned char h[HEADER_BYTES];
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	memset(w, 0, sizeof *w);
	w->fd = -1;
	w->rate = rate;
	/* Not the first page: the header is written there again at the end,
	 * and a page dropped from memory would have to be read back first. */
	w->advised = (off_t)sysconf(_SC_PAGESIZE);
	w->advise = w->advised > 0;
	if (hb_mkdir_p(dir, 0700) < 0) {
		snprintf(err, errlen, "cannot create the folder %s: %s", dir, strerror(errno));
		return -1;
	}
	n = snprintf(w->tmp, sizeof w->tmp, "%s/.%s-XXXXXX", dir, prefix);
	if (n < 0 || (size_t)n >= sizeof w->tmp || (w->fd = mkstemp(w->tmp)) < 0) {
		snprintf(err, errlen, "cannot create a file in %s: %s", dir, n < 0 || (size_t)n >= sizeof w->tmp
										 ? "the path is too long" : strerror(errno));
		w->tmp[0] = '\0';
		return -1;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	n = snprintf(w->path, sizeof w->path, "%s/%s-%s-%s.wav", dir, prefix, stamp, w->tmp + strlen(w->tmp) - 6);
	header(h, rate, 0);
	if (n < 0 || (size_t)n >= sizeof w->path || write_all(w->fd, h, sizeof h) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", w->tmp, strerror(errno));
		speech_wav_abort(w);
		return -1;
	}
	return 0;
}

/* Ask for the writeback of what was written since the last time (where
 * the system has the advice: not every one does, e.g. macOS). */
static void start_writeback(struct speech_wav *w, int all)
{
#ifdef POSIX_FADV_DONTNEED
	off_t end = (off_t)(HEADER_BYTES + w->samples * 2);

	if (!w->advise || end <= w->advised || (!all && end - w->advised < WRITEBACK))
		return;
	/* Advice only: refused, it costs time at the flush, nothing else. */
	if (posix_fadvise(w->fd, w->advised, end - w->advised, POSIX_FADV_DONTNEED) != 0)
		w->advise = 0;
	w->advised = end;
#else
	(void)w, (void)all;
#endif
}

int speech_wav_append(struct speech_wav *w, const int16_t *s, size_t n, char *err, size_t errlen)
{
	if (little_endian()) {
		if (write_all(w->fd, (const unsigned char *)s, n * 2) < 0) {
			snprintf(err, errlen, "cannot write %s: %s", w->tmp, strerror(errno));
			return -1;
		}
	} else {
		unsigned char buf[BLOCK * 2];

		for (size_t done = 0; done < n;) {
			size_t k = n - done < BLOCK ? n - done : BLOCK;
			for (size_t i = 0; i < k; i++)
				put16(buf + 2 * i, (uint16_t)s[done + i]);
			if (write_all(w->fd, buf, k * 2) < 0) {
				snprintf(err, errlen, "cannot write %s: %s", w->tmp, strerror(errno));
				return -1;
			}
			done += k;
		}
	}
	w->samples += n;
	w->dirty |= n > 0;
	start_writeback(w, 0);
	return 0;
}

int speech_wav_silence(struct speech_wav *w, size_t n, char *err, size_t errlen)
{
	static const int16_t zeros[BLOCK];

	for (size_t done = 0; done < n;) {
		size_t k = n - done < BLOCK ? n - done : BLOCK;
		if (speech_wav_append(w, zeros, k, err, errlen) < 0)
			return -1;
		done += k;
	}
	return 0;
}

int speech_wav_rewind(struct speech_wav *w, uint64_t samples, char *err, size_t errlen)
{
	off_t end = (off_t)(HEADER_BYTES + samples * 2);

	if (samples > w->samples) {
		snprintf(err, errlen, "cannot write %s: rewinding past its end", w->tmp);
		return -1;
	}
	if (ftruncate(w->fd, end) < 0 || lseek(w->fd, end, SEEK_SET) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", w->tmp, strerror(errno));
		return -1;
	}
	w->samples = samples;
	if (w->advised > end)
		w->advised = end > (off_t)sysconf(_SC_PAGESIZE) ? end : (off_t)sysconf(_SC_PAGESIZE);
	return 0;
}

int speech_wav_sync(struct speech_wav *w, char *err, size_t errlen)
{
	if (!w->dirty)
		return 0;
	start_writeback(w, 1);
	if (fdatasync(w->fd) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", w->tmp, strerror(errno));
		return -1;
	}
	w->dirty = 0;
	return 0;
}

int speech_wav_finish(struct speech_wav *w, char *err, size_t errlen)
{
	unsigned char h[HEADER_BYTES];
	int ok;

	if (w->samples * 2 > UINT32_MAX - 36) {
		snprintf(err, errlen, "the audio is longer than a WAV file can hold");
		speech_wav_abort(w);
		return -1;
	}
	header(h, w->rate, (uint32_t)(w->samples * 2));
	ok = lseek(w->fd, 0, SEEK_SET) == 0 && write_all(w->fd, h, sizeof h) == 0 && fsync(w->fd) == 0;
	ok = close(w->fd) == 0 && ok;
	w->fd = -1;
	if (!ok) {
		snprintf(err, errlen, "cannot write %s: %s", w->tmp, strerror(errno));
		speech_wav_abort(w);
		return -1;
	}
	if (rename(w->tmp, w->path) < 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", w->tmp, w->path, strerror(errno));
		speech_wav_abort(w);
		return -1;
	}
	w->tmp[0] = '\0';
	return 0;
}

void speech_wav_abort(struct speech_wav *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->tmp[0])
		unlink(w->tmp);
	w->tmp[0] = '\0';
}
