/*
 * log - one line per event on stderr: time, level, process, call key, text.
 *
 * Every process calls hb_log_init() once with its name; HB_LOG=debug turns on
 * debug lines.  Secrets never go through here: callers pass no key material.
 */
#ifndef HB_LOG_H
#define HB_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum hb_log_level { HB_LOG_DEBUG, HB_LOG_INFO, HB_LOG_WARN, HB_LOG_ERROR };

void hb_log_init(const char *process);
/* From now on the text of each error line (without time, level, process
 * and key; one line) goes to fd too: the launcher's status fd
 * (status_fd.h).  fd -1: nowhere.  Call it in main before threads start. */
void hb_log_errors_to(int fd);
/* That text of an error line written elsewhere (error_log.c's); nothing
 * without hb_log_errors_to. */
void hb_log_error_text(const char *fmt, va_list ap);
int hb_log_enabled(enum hb_log_level level);
void hb_log(enum hb_log_level level, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void hb_vlog(enum hb_log_level level, const char *key, const char *fmt, va_list ap);
/* The line hb_vlog writes (newline and NUL included, cut to fit size,
 * at least 3), whatever the level setting; its length without the NUL. */
size_t hb_log_format(char *line, size_t size, enum hb_log_level level, const char *key, const char *fmt,
		     va_list ap);
/* Bytes from outside, safe to print or send back: printable ASCII as is
 * (up to max bytes of input), everything else as \xNN; always terminated. */
void hb_escape(const void *bytes, size_t len, size_t max, char *out, size_t outlen);
_Noreturn void hb_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define log_debug(key, ...) hb_log(HB_LOG_DEBUG, (key), __VA_ARGS__)
#define log_info(key, ...) hb_log(HB_LOG_INFO, (key), __VA_ARGS__)
#define log_warn(key, ...) hb_log(HB_LOG_WARN, (key), __VA_ARGS__)
#define log_error(key, ...) hb_log(HB_LOG_ERROR, (key), __VA_ARGS__)

#endif
