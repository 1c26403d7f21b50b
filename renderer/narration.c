/*
 * narration - the RIFF/WAVE reader for a scene's narration (narration.h).
 *
 * The file comes from a scene author, so every size in it is checked
 * against the file's real size before it is used: a chunk that runs past
 * the end is a truncated file, not a read past the buffer.  Offsets are
 * 64-bit so no sum of 32-bit sizes can wrap.  Errors name the file and say
 * what it is, because "bad WAV" does not tell an author which export
 * setting to change.
 */
#include "narration.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NARRATION_RATE 24000
/* The longest scene (folder.h) bounds what narration_read allocates. */
#define NARRATION_MAX_SAMPLES ((uint64_t)NARRATION_RATE * 600)

struct wav_layout {
	uint64_t data_offset;
	uint32_t data_bytes;
};

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* 0 when all n bytes were read, 1 at a premature end of file, -1 on error. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	unsigned char *b = buf;

	while (n > 0) {
		ssize_t r = pread(fd, b, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 1;
		b += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* What a file that is not RIFF/WAVE is, from its first bytes. */
static const char *sniff(const unsigned char *h, size_t n)
{
	if (n >= 4 && memcmp(h, "RF64", 4) == 0)
		return "an RF64 (64-bit WAV) file";
	if (n >= 4 && memcmp(h, "RIFX", 4) == 0)
		return "a big-endian RIFX file";
	if (n >= 12 && memcmp(h, "RIFF", 4) == 0)
		return "a RIFF file that is not WAVE";
	if (n >= 4 && memcmp(h, "OggS", 4) == 0)
		return "an Ogg file";
	if (n >= 4 && memcmp(h, "fLaC", 4) == 0)
		return "a FLAC file";
	if ((n >= 3 && memcmp(h, "ID3", 3) == 0) || (n >= 2 && h[0] == 0xff && (h[1] & 0xe0) == 0xe0))
		return "an MP3 file";
	if (n >= 8 && memcmp(h + 4, "ftyp", 4) == 0)
		return "an MP4/M4A file";
	return "not a WAV file";
}

static const char *format_name(unsigned tag)
{
	switch (tag) {
	case 1: return "PCM";
	case 3: return "32-bit float";
	case 6: return "A-law";
	case 7: return "mu-law";
	case 0x11: return "IMA ADPCM";
	case 0xfffe: return "WAVE_FORMAT_EXTENSIBLE";
	default: return "an unknown format";
	}
}

static int check_fmt(const unsigned char *f, const char *name, char *err, size_t errlen)
{
	unsigned tag = le16(f), channels = le16(f + 2), bits = le16(f + 14), align = le16(f + 12);
	uint32_t rate = le32(f + 4);

	if (tag == 1 && channels == 1 && rate == NARRATION_RATE && bits == 16 && align == 2)
		return 0;
	snprintf(err, errlen,
		 "narration %s is %s, %u channel%s, %u Hz, %u-bit; a narration must be 24000 Hz mono "
		 "16-bit PCM, as synthesize_speech writes (convert it, e.g. with "
		 "`sox IN -r 24000 -c 1 -b 16 OUT.wav`)",
		 name, format_name(tag), channels, channels == 1 ? "" : "s", (unsigned)rate, bits);
	return -1;
}

/* Walks the chunks of an open WAV file of file_size bytes. */
static int inspect(int fd, const char *name, uint64_t file_size, struct wav_layout *out, char *err,
		   size_t errlen)
{
	unsigned char head[12], chunk[8], fmt[16];
	int have_fmt = 0, have_data = 0, r;

	r = read_at(fd, head, sizeof head, 0);
	if (r < 0)
		goto io_error;
	if (r > 0 || memcmp(head, "RIFF", 4) != 0 || memcmp(head + 8, "WAVE", 4) != 0) {
		size_t got = file_size < sizeof head ? (size_t)file_size : sizeof head;
		if (file_size == 0)
			snprintf(err, errlen, "narration %s is empty; expected a 24000 Hz mono 16-bit WAV",
				 name);
		else
			snprintf(err, errlen, "narration %s is %s; expected a 24000 Hz mono 16-bit WAV", name,
				 sniff(head, got));
		return -1;
	}
	uint64_t riff_end = 8 + (uint64_t)le32(head + 4);
	if (riff_end > file_size) {
		snprintf(err, errlen, "narration %s is truncated: its header announces %llu bytes but the file "
			 "has %llu", name, (unsigned long long)riff_end, (unsigned long long)file_size);
		return -1;
	}
	for (uint64_t off = 12; off + 8 <= riff_end && !(have_fmt && have_data);) {
		if ((r = read_at(fd, chunk, sizeof chunk, off)) != 0)
			goto io_error;
		uint32_t size = le32(chunk + 4);
		uint64_t body = off + 8;
		if (body + size > riff_end) {
			snprintf(err, errlen, "narration %s is truncated: its \"%.4s\" chunk announces %lu bytes "
				 "but only %llu follow", name, (const char *)chunk, (unsigned long)size,
				 (unsigned long long)(riff_end - body));
			return -1;
		}
		if (memcmp(chunk, "fmt ", 4) == 0 && !have_fmt) {
			if (size < sizeof fmt) {
				snprintf(err, errlen, "narration %s is damaged: its fmt chunk has %lu bytes, "
					 "fewer than the 16 every WAV has", name, (unsigned long)size);
				return -1;
			}
			if ((r = read_at(fd, fmt, sizeof fmt, body)) != 0)
				goto io_error;
			if (check_fmt(fmt, name, err, errlen) < 0)
				return -1;
			have_fmt = 1;
		} else if (memcmp(chunk, "data", 4) == 0 && !have_data) {
			out->data_offset = body;
			out->data_bytes = size;
			have_data = 1;
		}
		off = body + size + (size & 1); /* chunks are padded to even sizes */
	}
	if (!have_fmt || !have_data) {
		snprintf(err, errlen, "narration %s is damaged: it has no %s chunk", name,
			 have_fmt ? "data" : "fmt");
		return -1;
	}
	if (out->data_bytes % 2) {
		snprintf(err, errlen, "narration %s is damaged: its data chunk has an odd number of bytes "
			 "(%lu), so its last 16-bit sample is cut", name, (unsigned long)out->data_bytes);
		return -1;
	}
	return 0;
io_error:
	if (r > 0)
		snprintf(err, errlen, "narration %s is truncated: it ends inside a chunk header", name);
	else
		snprintf(err, errlen, "cannot read narration %s: %s", name, strerror(errno));
	return -1;
}

/* Opens PATH and checks its header; the open descriptor in *fd on 0. */
static int open_wav(const char *path, int *fd, struct wav_layout *layout, char *err, size_t errlen)
{
	const char *name = base_name(path);
	struct stat st;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (*fd < 0) {
		snprintf(err, errlen, "cannot open narration %s: %s", name, strerror(errno));
		return -1;
	}
	if (fstat(*fd, &st) < 0) {
		snprintf(err, errlen, "cannot read narration %s: %s", name, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "narration %s is not a regular file", name);
	} else if (inspect(*fd, name, (uint64_t)st.st_size, layout, err, errlen) == 0) {
		return 0;
	}
	close(*fd);
	*fd = -1;
	return -1;
}

int narration_probe(const char *path, size_t *samples, char *err, size_t errlen)
{
	struct wav_layout layout;
	int fd;

	if (open_wav(path, &fd, &layout, err, errlen) < 0)
		return -1;
	close(fd);
	*samples = layout.data_bytes / 2;
	return 0;
}

int narration_read(const char *path, int16_t **pcm, size_t *n, char *err, size_t errlen)
{
	struct wav_layout layout;
	unsigned char *raw;
	int16_t *samples;
	size_t count;
	int fd, r;

	*pcm = NULL;
	*n = 0;
	if (open_wav(path, &fd, &layout, err, errlen) < 0)
		return -1;
	count = layout.data_bytes / 2;
	if (count > NARRATION_MAX_SAMPLES) {
		snprintf(err, errlen, "narration %s lasts %.1f s, longer than the longest scene (600 s)",
			 base_name(path), (double)count / NARRATION_RATE);
		close(fd);
		return -1;
	}
	/* One buffer: the raw bytes are read into it, then turned into
	 * samples in place (each sample is read before it is written). */
	samples = malloc(count ? count * sizeof *samples : 1);
	if (!samples) {
		snprintf(err, errlen, "out of memory reading narration %s", base_name(path));
		close(fd);
		return -1;
	}
	raw = (unsigned char *)samples;
	r = read_at(fd, raw, layout.data_bytes, layout.data_offset);
	if (r != 0) {
		snprintf(err, errlen, "cannot read narration %s: %s", base_name(path),
			 r > 0 ? "the file became shorter while it was read" : strerror(errno));
		free(samples);
		close(fd);
		return -1;
	}
	close(fd);
	for (size_t i = 0; i < count; i++) {
		uint16_t v = le16(raw + 2 * i);
		samples[i] = v < 0x8000 ? (int16_t)v : (int16_t)((int32_t)v - 65536);
	}
	*pcm = samples;
	*n = count;
	return 0;
}
