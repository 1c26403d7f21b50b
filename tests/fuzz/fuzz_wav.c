/*
 * fuzz_wav - the explainer's RIFF/WAVE reader for a scene's narration
 * (renderer/narration.c), which reads files a model's worker wrote,
 * then the sound track built from what it read (audio.c); and svc-video's
 * sniffing of a file's first bytes (video_magic.c) on the same bytes.
 *
 * The reader takes a path, so the bytes go into a memfd and the path is
 * its /proc/self/fd name: no disk, nothing left behind.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../renderer/soundtrack.h"
#include "../../renderer/narration.h"
#include "../../svc-video/video_magic.h"
#include "fuzz.h"

/* 800 narration samples (24 kHz) per video frame (30 per second). */
#define SAMPLES_PER_FRAME 800

static void track(const int16_t *pcm, size_t n, unsigned extra)
{
	struct audio_part parts[2] = {
		{ pcm, n, (long)((n + SAMPLES_PER_FRAME - 1) / SAMPLES_PER_FRAME + extra) },
		{ NULL, 0, 1 },
	};
	char err[256];
	float *out = NULL;
	size_t len = 0;

	if (audio_track(parts, 2, 30, &out, &len, err, sizeof err) == 0 &&
	    len != (size_t)(parts[0].frames + 1) * AUDIO_SAMPLES_PER_FRAME(30))
		abort(); /* the track must last exactly as long as the video */
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256];
	const char *container;
	int16_t *pcm;
	size_t n, probed;
	int fd;

	(void)video_magic_type(data, size < VIDEO_MAGIC_BYTES ? size : VIDEO_MAGIC_BYTES, (long long)size,
			       "clip.mp4", &container);
	fd = memfd_create("narration.wav", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (narration_probe(path, &probed, err, sizeof err) == 0 &&
	    narration_read(path, &pcm, &n, err, sizeof err) == 0) {
		if (n != probed)
			abort();
		/* Resampling costs: only short narrations (the rest is the reader). */
		if (n <= 8192)
			track(pcm, n, size ? data[0] % 3 : 0);
		free(pcm);
	}
	close(fd);
	return 0;
}
