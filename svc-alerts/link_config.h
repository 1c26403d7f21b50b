/*
 * link_config - whether the relay link may be up, read from the settings
 * on each look (never cached, so a change takes effect at once), and if
 * not, the sentence that tells the user what to do.  The link task and
 * the tool ask the same question, so they give the same answer.
 */
#ifndef ALERTS_LINK_CONFIG_H
#define ALERTS_LINK_CONFIG_H

#include <stddef.h>

#include "paths.h"
#include "settings.h"

#define LINK_REASON_MAX 1024

struct link_config {
	int wanted;                        /* remote access on, signed in, a relay URL */
	char url[HB_RELAY_URL_MAX + 1];    /* the relay's URL when wanted */
	char ca_file[HB_PATH_MAX];         /* trusted CAs for wss, "" for the system's */
	char reason[LINK_REASON_MAX];      /* why not, when not wanted: what the user can do */
};

/* Fill *out from the settings of p.  A broken settings file is not
 * wanted, with the file's sentence as the reason.  Never fails. */
void link_config_read(const struct hb_paths *p, struct link_config *out);

#endif
