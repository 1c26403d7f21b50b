/*
 * local - the local recording a call names, opened and checked before
 * anything is sent: a readable regular file (not a folder, device or
 * pipe), not empty, at most Gemini's 2 GB per file, of a video type
 * Gemini reads (known by its extension; the type goes to Gemini as the
 * upload's type).  The path rules (absolute, with consent) are
 * video_args'.
 */
#ifndef VIDEO_LOCAL_H
#define VIDEO_LOCAL_H

#include <stddef.h>

struct video_local {
	int fd;
	long long size;
	const char *mime;      /* Gemini's name for its type */
	char display_name[129]; /* the file's name, as Gemini shows it */
};

/* 0 with the file open (close it with video_local_close), or -1 with err. */
int video_local_open(const char *path, struct video_local *out, char *err, size_t errlen);
void video_local_close(struct video_local *l);

#endif
