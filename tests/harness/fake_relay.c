/*
 * fake_relay - relay.mjs's command line built from fake_relay_opts, and
 * its JSON-lines record file read back.  The process itself is
 * node_server's.
 */
#include "fake_relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fake_relay_start(struct fake_relay *r, const struct fake_relay_opts *o)
{
	const char *args[24];
	char port[16];
	int n = 0;

	memset(r, 0, sizeof *r);
	snprintf(port, sizeof port, "%d", o->port);
	args[n++] = "--mode";
	args[n++] = o->mode ? o->mode : "accept";
	args[n++] = "--port";
	args[n++] = port;
	if (o->credential) {
		args[n++] = "--credential";
		args[n++] = o->credential;
	}
	if (o->record) {
		args[n++] = "--record";
		args[n++] = o->record;
	}
	if (o->tls) {
		args[n++] = "--cert";
		args[n++] = o->tls->cert;
		args[n++] = "--key";
		args[n++] = o->tls->key;
	}
	if (o->cut_after) {
		args[n++] = "--cut-after";
		args[n++] = o->cut_after;
	}
	if (o->drop_reason) {
		args[n++] = "--drop-reason";
		args[n++] = o->drop_reason;
	}
	if (o->answer) {
		args[n++] = "--answer";
		args[n++] = o->answer;
	}
	if (o->answer_unknown) {
		args[n++] = "--answer-unknown";
		args[n++] = "yes";
	}
	args[n] = NULL;
	if (node_server_start(&r->node, "tests/fake-relay/relay.mjs", args) < 0)
		return -1;
	snprintf(r->url, sizeof r->url, "%s://localhost:%d/device", o->tls ? "wss" : "ws", r->node.port);
	return 0;
}

int fake_relay_stop(struct fake_relay *r)
{
	return node_server_stop(&r->node);
}

json_t *fake_relay_records(const char *record)
{
	json_t *all = json_array();
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	if (!all || !(f = fopen(record, "r")))
		return all;
	while (all && (len = getline(&line, &cap, f)) > 0) {
		json_error_t jerr;
		json_t *rec = json_loadb(line, (size_t)len, 0, &jerr);

		if (!rec)
			fprintf(stderr, "fake_relay: a line of %s is not JSON: %s\n", record, jerr.text);
		if (!rec || json_array_append_new(all, rec) < 0) {
			json_decref(all);
			all = NULL;
		}
	}
	free(line);
	fclose(f);
	return all;
}
