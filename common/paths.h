/*
 * paths - where hbcode keeps its data, cache, config and runtime sockets.
 *
 * XDG on Linux, ~/Library on macOS.  HB_HOME=DIR puts all four under DIR
 * (DIR/data, DIR/cache, DIR/config, DIR/run); HB_DATA_DIR, HB_CACHE_DIR,
 * HB_CONFIG_DIR and HB_RUNTIME_DIR override one each and win over HB_HOME.
 */
#ifndef HB_PATHS_H
#define HB_PATHS_H

#include <stddef.h>
#include <sys/types.h>

#define HB_PATH_MAX 1024
/* An ipc:// endpoint path must fit in sun_path (107 bytes on Linux). */
#define HB_IPC_PATH_MAX 100

struct hb_paths {
	char data[HB_PATH_MAX];
	char cache[HB_PATH_MAX];
	char config[HB_PATH_MAX];
	char runtime[HB_PATH_MAX];
};

/* Fill *p from the environment.  Returns 0, or -1 with a message in err. */
int hb_paths_resolve(struct hb_paths *p, char *err, size_t errlen);
/* mkdir -p with mode for the last component; an existing dir is fine. */
int hb_mkdir_p(const char *path, mode_t mode);
/* out = dir + "/" + name; -1 when it does not fit. */
int hb_path_join(char *out, size_t outlen, const char *dir, const char *name);
/* "ipc://<runtime>/<name>" for a socket in the runtime dir; -1 if too long. */
int hb_ipc_endpoint(char *out, size_t outlen, const struct hb_paths *p, const char *name);

#endif
