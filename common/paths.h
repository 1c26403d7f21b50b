/*
 * paths - where hbcode keeps its data, cache, config and runtime sockets.
 *
 * XDG on Linux, ~/Library on macOS.  HB_HOME=DIR puts all four under DIR
 * (DIR/data, DIR/cache, DIR/config, DIR/run); HB_DATA_DIR, HB_CACHE_DIR,
 * HB_CONFIG_DIR and HB_RUNTIME_DIR override one each and win over HB_HOME.
 *
 * The four folders are private: whoever creates or uses one first checks
 * that it is a real folder of this user with mode 0700 (the runtime one may
 * be /tmp/hbcode-UID, where any local user could have made it first).
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

/* The broker's lock file in the runtime folder; it holds the broker's pid. */
#define HB_BROKER_LOCK_FILE "hb-broker.lock"

enum hb_dir { HB_DIR_DATA, HB_DIR_CACHE, HB_DIR_CONFIG, HB_DIR_RUNTIME };

/* Fill *p from the environment.  Returns 0, or -1 with a message in err. */
int hb_paths_resolve(struct hb_paths *p, char *err, size_t errlen);
/* The folder of p that which names. */
const char *hb_paths_dir(const struct hb_paths *p, enum hb_dir which);
/* Make the folder which of p private: create it (and its missing parents)
 * with mode 0700 whatever the umask, or accept it only when it is a real
 * folder (not a symbolic link) owned by this user with mode 0700.  0, or
 * -1 with a sentence in err naming the folder, what is wrong and what to
 * do. */
int hb_dir_make_private(const struct hb_paths *p, enum hb_dir which, char *err, size_t errlen);
/* The same check on an existing folder, creating nothing: 0, or -1 with
 * err (errno ENOENT when the folder does not exist). */
int hb_dir_check_private(const struct hb_paths *p, enum hb_dir which, char *err, size_t errlen);
/* All four made private (the broker does this before anything else). */
int hb_paths_make_private(const struct hb_paths *p, char *err, size_t errlen);
/* "ipc://<runtime>/<name>" for the runtime folder of the environment,
 * once that folder passed hb_dir_check_private: a client must not talk to
 * whoever made the folder.  0, or -1 with err (errno ENOENT: no folder). */
int hb_runtime_endpoint(const char *name, char *out, size_t outlen, char *err, size_t errlen);
/* mkdir -p with mode for the last component; an existing dir is fine.
 * For folders under the four private ones (which it does not check). */
int hb_mkdir_p(const char *path, mode_t mode);
/* out = dir + "/" + name; -1 when it does not fit. */
int hb_path_join(char *out, size_t outlen, const char *dir, const char *name);
/* "ipc://<runtime>/<name>" for a socket in the runtime dir; -1 if too long. */
int hb_ipc_endpoint(char *out, size_t outlen, const struct hb_paths *p, const char *name);

#endif
