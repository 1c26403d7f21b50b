/*
 * test_video_magic - what svc-video takes a local file for by its first
 * bytes: the start of a real file of each container (as ffmpeg and
 * cameras write them) gives its type, kept as named when the name's type
 * is of the same container and corrected when it is not; texts, keys,
 * images, archives, programs, other media and cut-off headers are no
 * video; Matroska is named and refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../svc-video/video_magic.h"

#define MP4 "\x00\x00\x00\x20" "ftypisom\x00\x00\x02\x00" "isomiso2avc1mp41"
#define M4V "\x00\x00\x00\x1c" "ftypM4V \x00\x00\x00\x01" "M4V M4A mp42isom"
#define MOV "\x00\x00\x00\x14" "ftypqt  \x20\x05\x03\x00" "qt  "
#define OLDMOV "\x00\x00\x6b\x1a" "moov\x00\x00\x00\x6c" "mvhd"
#define WIDEMOV "\x00\x00\x00\x08" "wide\x00\x0b\x1c\x2d" "mdat"
#define GP3 "\x00\x00\x00\x18" "ftyp3gp4\x00\x00\x02\x00" "isom3gp4"
#define WEBM "\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08" \
	     "\x42\x82\x84" "webm" "\x42\x87\x81\x04\x42\x85\x81\x02"
#define MKV "\x1a\x45\xdf\xa3\xa3\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08" \
	    "\x42\x82\x88" "matroska" "\x42\x87\x81\x04\x42\x85\x81\x02"
#define AVI "RIFF\x5c\x3e\x02\x00" "AVI LIST\xec\x11\x00\x00" "hdrlavih"
#define FLV "FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00\x12"
#define MPEG_PS "\x00\x00\x01\xba\x44\x00\x04\x00\x04\x01\x01\x89\xc3\xf8"
#define MPEG_ES "\x00\x00\x01\xb3\x16\x00\xf0\x15\xff\xff\xe0\x18"
#define ASF "\x30\x26\xb2\x75\x8e\x66\xcf\x11\xa6\xd9\x00\xaa\x00\x62\xce\x6c\x9a\x0d\x00\x00"

/* s (a literal, NULs and all) as bytes. */
#define B(s) (const unsigned char *)(s), sizeof(s) - 1
/* The size of the files the heads below start. */
#define FILE_SIZE (5LL << 20)

static void expect(const unsigned char *head, size_t len, const char *named, const char *want, const char *what)
{
	const char *container = "unset";
	const char *got = video_magic_type(head, len, FILE_SIZE, named, &container);

	if (want ? !got || strcmp(got, want) != 0 : got != NULL)
		fail_msg("%s named %s: wanted %s, got %s", what, named ? named : "nothing", want ? want : "no video",
			 got ? got : "no video");
	if (got && container)
		fail_msg("%s: a container name (%s) for a video Gemini reads", what, container);
}

static void test_videos(void **state)
{
	(void)state;
	/* The bytes' own type, with no name to go by. */
	expect(B(MP4), NULL, "video/mp4", "MP4");
	expect(B(M4V), NULL, "video/mp4", "M4V");
	expect(B(MOV), NULL, "video/quicktime", "QuickTime");
	expect(B(OLDMOV), NULL, "video/quicktime", "QuickTime without ftyp");
	expect(B(WIDEMOV), NULL, "video/quicktime", "QuickTime with a wide atom");
	expect(B(GP3), NULL, "video/3gpp", "3GPP");
	expect(B(WEBM), NULL, "video/webm", "WebM");
	expect(B(AVI), NULL, "video/avi", "AVI");
	expect(B(FLV), NULL, "video/x-flv", "FLV");
	expect(B(MPEG_PS), NULL, "video/mpeg", "MPEG program stream");
	expect(B(MPEG_ES), NULL, "video/mpeg", "MPEG video stream");
	expect(B(ASF), NULL, "video/wmv", "WMV");
	expect(B("\x00\x00\x00\x00" "mdat\x01\x02\x03\x04\x05\x06\x07\x08"), NULL, "video/quicktime",
	       "QuickTime whose mdat runs to the end");
	expect(B("\x00\x00\x00\x01" "mdat\x00\x00\x00\x00\x00\x50\x00\x00"), NULL, "video/quicktime",
	       "QuickTime whose mdat has a 64-bit size");
	/* The name's type when the bytes are of its container... */
	expect(B(MP4), "video/mp4", "video/mp4", "MP4");
	expect(B(MP4), "video/quicktime", "video/quicktime", "MP4 named .mov");
	expect(B(MOV), "video/mp4", "video/mp4", "QuickTime named .mp4");
	expect(B(GP3), "video/3gpp", "video/3gpp", "3GPP");
	expect(B(MPEG_PS), "video/mpg", "video/mpg", "MPEG named .mpg");
	expect(B(ASF), "video/wmv", "video/wmv", "WMV");
	/* ... else the bytes' type. */
	expect(B(WEBM), "video/mp4", "video/webm", "WebM named .mp4");
	expect(B(AVI), "video/x-flv", "video/avi", "AVI named .flv");
	expect(B(MP4), "video/webm", "video/mp4", "MP4 named .webm");
	expect(B(MOV), "video/avi", "video/quicktime", "QuickTime named .avi");
	expect(B(FLV), "video/mpeg", "video/x-flv", "FLV named .mpeg");
}

/* Three transport stream packets in a row; two, or a lone sync byte, are
 * not enough (0x47 is a "G"). */
static void test_transport_stream(void **state)
{
	unsigned char ts[VIDEO_MAGIC_BYTES];

	(void)state;
	memset(ts, 0xff, sizeof ts);
	ts[0] = ts[188] = ts[376] = 0x47;
	expect(ts, sizeof ts, "video/mpg", "video/mpg", "MPEG transport stream");
	expect(ts, 377, NULL, "video/mpeg", "a transport stream of three packets");
	expect(ts, 376, NULL, NULL, "a transport stream cut before its third packet");
	ts[376] = 0x48;
	expect(ts, sizeof ts, "video/mpeg", NULL, "two packets and then something else");
	expect(B("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"), "video/mpeg", NULL, "a text starting with G");
}

static void test_not_videos(void **state)
{
	static const struct {
		const char *what, *bytes;
		size_t len;
	} cases[] = {
#define C(what, s) { what, s, sizeof(s) - 1 }
		C("a text", "# Notes\nThe meeting is at ten.\n"),
		C("an SSH key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"),
		C("a shell script", "#!/bin/sh\nexec true\n"),
		C("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"),
		C("a PNG image", "\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"),
		C("a JPEG image", "\xff\xd8\xff\xe0\x00\x10JFIF\x00"),
		C("a PDF", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
		C("a zip archive", "PK\x03\x04\x14\x00\x00\x00\x08\x00"),
		C("a gzip file", "\x1f\x8b\x08\x00\x00\x00\x00\x00"),
		C("an ELF program", "\x7f" "ELF\x02\x01\x01\x00\x00\x00\x00\x00"),
		C("a SQLite database", "SQLite format 3\x00\x10\x00\x01\x01"),
		C("a WAV sound", "RIFF\x24\x08\x00\x00WAVEfmt "),
		C("a WebP image", "RIFF\x24\x08\x00\x00WEBPVP8 "),
		C("an Ogg file", "OggS\x00\x02\x00\x00\x00\x00\x00\x00"),
		C("an MP3 file", "ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb"),
		C("FLV of another version", "FLV\x02\x05\x00\x00\x00\x09"),
		C("an ISO box too small to be one", "\x00\x00\x00\x04" "ftypisom\x00\x00\x02\x00isom"),
		C("an ftyp box larger than the file", "\x00\xff\x00\x20" "ftypisom\x00\x00\x02\x00isom"),
		C("a text whose bytes 4 to 7 spell free", "Feelfree to ask anything.\n"),
		C("a text whose bytes 4 to 7 spell moov", "Somemoov ie notes, 2024\n"),
		C("an ISO box type alone", "ftypisom"),
		C("a cut-off ASF header", "\x30\x26\xb2\x75\x8e\x66\xcf\x11"),
		C("EBML with another DocType", "\x1a\x45\xdf\xa3\x93\x42\x82\x84" "abcd" "\x42\x87\x81\x04"),
		C("EBML without a DocType", "\x1a\x45\xdf\xa3\x84\x42\x86\x81\x01"),
		C("three bytes", "FLV"),
		C("nothing", ""),
#undef C
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *container = "unset";
		const char *got = video_magic_type((const unsigned char *)cases[i].bytes, cases[i].len, FILE_SIZE,
						   "video/mp4", &container);
		if (got || container)
			fail_msg("%s: taken for %s (container %s)", cases[i].what, got ? got : "no video",
				 container ? container : "none");
	}
}

static void test_matroska(void **state)
{
	const char *container = NULL;

	(void)state;
	assert_null(video_magic_type(B(MKV), FILE_SIZE, "video/webm", &container));
	assert_non_null(container);
	assert_string_equal(container, "Matroska (MKV)");
	assert_string_equal(video_magic_list(), "MP4, QuickTime, 3GPP, WebM, AVI, FLV, MPEG, WMV");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_videos),
		cmocka_unit_test(test_transport_stream),
		cmocka_unit_test(test_not_videos),
		cmocka_unit_test(test_matroska),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
