/*
 * link_config - the settings the relay link depends on: "Allow Remote
 * Access", the device credential that signing in saves, and the relay's
 * URL (settings.h).  The credential itself is not read here: only the
 * hello reads it, just before it is sent.
 */
#include "link_config.h"

#include <stdio.h>
#include <string.h>

void link_config_read(const struct hb_paths *p, struct link_config *out)
{
	struct hb_settings s;
	char err[LINK_REASON_MAX];

	memset(out, 0, sizeof *out);
	if (hb_settings_load(p, &s, err, sizeof err) < 0) {
		snprintf(out->reason, sizeof out->reason, "The settings cannot be read: %.400s", err);
		return;
	}
	if (!s.remote_access) {
		snprintf(out->reason, sizeof out->reason,
			 "Allow Remote Access is off, so the desktop keeps no link to the relay. Turn it on in "
			 "Settings (hbctl settings remote-access on).");
		return;
	}
	if (!s.signed_in) {
		snprintf(out->reason, sizeof out->reason,
			 "You are signed out, so the desktop keeps no link to the relay. Sign in again (hbctl "
			 "settings device-credential set).");
		return;
	}
	if (hb_settings_relay_url(p, out->url, sizeof out->url, err, sizeof err) < 0) {
		snprintf(out->reason, sizeof out->reason, "The relay's URL cannot be used: %.400s", err);
		return;
	}
	if (!out->url[0]) {
		snprintf(out->reason, sizeof out->reason,
			 "No relay is set, so the desktop keeps no link to one. Set the relay's URL in Settings "
			 "(hbctl settings relay-url set URL).");
		return;
	}
	if (hb_settings_param_string(p, HB_PARAM_RELAY_CA_FILE, out->ca_file, sizeof out->ca_file, err,
			       sizeof err) < 0) {
		snprintf(out->reason, sizeof out->reason, "The relay's CA file setting cannot be used: %.400s", err);
		out->url[0] = 0;
		return;
	}
	/* svc-alerts reads no folder but the config folder and its own
	 * (deploy/services.conf: confine) */
	if (out->ca_file[0] && (strncmp(out->ca_file, p->config, strlen(p->config)) != 0 ||
				out->ca_file[strlen(p->config)] != '/' || strstr(out->ca_file, "/../"))) {
		snprintf(out->reason, sizeof out->reason,
			 "The relay's CA file (%.200s) must be in the config folder (%.200s), the one folder svc-alerts reads "
			 "settings from: move it there and set relayCaFile again.",
			 out->ca_file, p->config);
		out->url[0] = 0;
		return;
	}
	out->wanted = 1;
}
