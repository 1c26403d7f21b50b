/*
 * confine - least privilege for a service: what its family may reach,
 * declared by its `confine` line in deploy/services.conf, handed to it by
 * the broker (HB_CONFINE) and applied by the service loop before any
 * thread exists and before its first call, so a compromise of one
 * family stays in what that family needed anyway.
 *
 * The declaration is words:
 *   network=none | network=any   sockets of the Internet families or not
 *   read=FOLDER                  may read there (repeatable)
 *   write=FOLDER                 may read and write there (repeatable)
 *   exec                         starts programs (the explainer's worker:
 *                                the agent, which keeps its own access, so
 *                                no folder rules apply to such a service)
 * FOLDER is data, cache, config or runtime (this user's hbcode folders,
 * paths.h), one of them with a sub-folder (cache/speech), xdg-config (the
 * user's $XDG_CONFIG_HOME or ~/.config, where browsers keep their
 * profiles) or one file or folder in it (read only:
 * xdg-config/chromium/DevToolsActivePort; one that is not there at the
 * start is not given), or any (read only: the whole file system).  The system's
 * folders (/usr, /lib*, /etc, /proc, /sys, /dev, /run) are always
 * readable.  A test's HB_FAILPOINTS folder (failpoint.h) is writable too,
 * so the tests' crash points work in a confined service.
 *
 * The seam: on Linux, no_new_privs, Landlock for the file system (when
 * the kernel has it: a kernel without it runs the service with the other
 * two and says so once in the log), and a seccomp filter that refuses the
 * system calls no service needs (ptrace, mount, kexec, modules, bpf, ...),
 * programs for a service that starts none, and Internet sockets for
 * network=none.  Elsewhere (macOS) nothing is applied and the log says
 * so (docs/confinement.md).
 */
#ifndef HB_CONFINE_H
#define HB_CONFINE_H

#include <stddef.h>

#include "paths.h"

#define HB_CONFINE_MAX_FOLDERS 16
#define HB_CONFINE_SPEC_MAX 1024

struct hb_confine {
	int network;                                   /* 1: Internet sockets allowed */
	int exec;                                      /* 1: may start programs */
	int read_any;                                  /* read=any */
	char read[HB_CONFINE_MAX_FOLDERS][HB_PATH_MAX];
	int nread;
	char write[HB_CONFINE_MAX_FOLDERS][HB_PATH_MAX];
	int nwrite;
};

/* Whether spec is a well-formed declaration (the broker checks its
 * config with it): 0, or -1 with a sentence naming the bad word. */
int hb_confine_check(const char *spec, char *err, size_t errlen);
/* The declaration with its folders resolved for p; write folders are
 * made (0700) when missing, so that they can be allowed.  0 or -1. */
int hb_confine_parse(const char *spec, const struct hb_paths *p, struct hb_confine *out, char *err,
		     size_t errlen);
/* Apply to this process, which must have one thread.  0 (with a line in
 * the log of what was applied), or -1 with err: a service that cannot be
 * confined as declared does not start. */
int hb_confine_apply(const struct hb_confine *c, char *err, size_t errlen);

/* The service loop's: HB_CONFINE of the environment, parsed and applied
 * (nothing when it is not set: a service run by hand, a test service).
 * 0, or -1 with err. */
int hb_confine_from_env(char *err, size_t errlen);

/* Seal a confined service once its own sockets to the broker are
 * connected: from then on no thread of it, nor any program it starts,
 * may make a Unix socket (a pathname socket is not a file Landlock
 * governs, and front.sock, the session bus and ssh-agent each let their
 * client act as the user).  Socket pairs of the stream kind stay
 * allowed (libcurl's and libuv's wake-ups).  0, or -1 with err. */
int hb_confine_seal(char *err, size_t errlen);

#endif
