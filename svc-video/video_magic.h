/*
 * video_magic - what a local file is by its first bytes: the container
 * formats of the twelve video types (video_mime.h) Gemini reads, so a
 * file named like a video but holding something else (a text, a key, a
 * link's target) is never uploaded as one.
 *
 * ISO base media (MP4, M4V, QuickTime, 3GPP): a box type "ftyp" at byte 4,
 * or an old QuickTime file's first atom (moov, mdat, wide, free, skip,
 * pnot), with a size that fits in the file; WebM: the EBML magic 1A 45 DF A3 with DocType "webm" (Matroska
 * is named and refused, as Gemini does not read it); AVI: "RIFF" and
 * "AVI " at byte 8; FLV: "FLV" and version 1; MPEG: a program stream pack
 * (00 00 01 BA), a video sequence header (00 00 01 B3) or a transport
 * stream (0x47 every 188 bytes, three times); WMV: the ASF header GUID.
 */
#ifndef VIDEO_MAGIC_H
#define VIDEO_MAGIC_H

#include <stddef.h>

/* The bytes of a file's start that video_magic_type reads. */
#define VIDEO_MAGIC_BYTES 512

/* Gemini's type for a file of file_size bytes whose first bytes are head
 * (len of them: fewer than VIDEO_MAGIC_BYTES only when the file is
 * shorter): `named` (the
 * type of its name's extension, may be NULL) when the bytes are of that
 * type's container, else the container's own type (a file is what its
 * bytes say).  NULL when they are no container Gemini reads; then
 * *container is the name of the container found ("Matroska (MKV)"), or
 * NULL when none is known. */
const char *video_magic_type(const unsigned char *head, size_t len, long long file_size, const char *named,
			     const char **container);
/* "MP4, QuickTime, ...", for messages. */
const char *video_magic_list(void);

#endif
