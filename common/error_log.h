/*
 * error_log - the error log that outlives standard error (page 003:
 * packaged apps discard stderr, so a line there alone would be lost).
 *
 * hb_error_log() writes an error line as log.h does, to stderr, and
 * appends the same line to errors.log in the data folder (mode 0600).
 * When the file passes HB_ERROR_LOG_MAX bytes it becomes errors.log.1
 * (the one before is dropped), so it never grows without end.
 */
#ifndef HB_ERROR_LOG_H
#define HB_ERROR_LOG_H

#define HB_ERROR_LOG_FILE "errors.log"
#define HB_ERROR_LOG_MAX (1024 * 1024)

/* 0, or -1 when the file could not be written (said on stderr too; the
 * stderr line is written in any case). */
int hb_error_log(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
