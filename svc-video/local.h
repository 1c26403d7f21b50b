/*
 * local - the local recording a call names, opened and checked before
 * anything is sent: its name ends in a video extension; the file it
 * leads to (through any symbolic links: that file, at its real path, is
 * what is uploaded) is a readable regular file (not a folder, device or
 * pipe), not empty, at most Gemini's 2 GB per file, whose first bytes are
 * those of a video container Gemini reads (video_magic.h).  Its type for
 * Gemini is the extension's when the bytes agree, else the bytes'.  The
 * path rules (absolute, with consent) are video_args'.
 */
#ifndef VIDEO_LOCAL_H
#define VIDEO_LOCAL_H

#include <stddef.h>

struct video_local {
	int fd;
	long long size;
	const char *mime;      /* Gemini's name for its type */
	char display_name[129]; /* the real file's name, as Gemini shows it */
};

/* 0 with the file open (close it with video_local_close), or -1 with err. */
int video_local_open(const char *path, struct video_local *out, char *err, size_t errlen);
void video_local_close(struct video_local *l);

#endif
