/*
 * timeline_pub - see timeline_pub.h.  The broker's answers come back on
 * the bridge's broker socket with ids nobody tracks: a bridge logs a
 * refusal there and drops an ok, so no answer is waited for here and the
 * agent's pipe never stalls on the timeline.  A row that cannot be sent
 * is only a row less on a screen: the saved transcript still has it.
 */
#include "timeline_pub.h"

#include <stdlib.h>
#include <string.h>

#include "../timeline/row.h"
#include "log.h"
#include "protocol.h"

void tl_pub_init(struct tl_pub *p, struct hb_client *broker, const char *agent)
{
	memset(p, 0, sizeof *p);
	p->broker = broker;
	p->agent = agent;
	p->rows = json_array();
}

void tl_pub_add(struct tl_pub *p, const json_t *rows)
{
	size_t i;
	json_t *row;

	if (!p->broker || !p->rows)
		return;
	json_array_foreach(rows, i, row) {
		char why[240];
		if (tl_row_check(row, p->agent, why, sizeof why) < 0) {
			log_warn(NULL, "timeline row not published: %s", why);
			p->dropped++;
			continue;
		}
		json_array_append(p->rows, row);
	}
}

/* Send text, a JSON array of rows. */
static void send_batch(struct tl_pub *p, const char *text, size_t n)
{
	struct hb_env req;
	char err[256];
	int64_t id;

	hb_env_init(&req);
	hb_env_set_str(&req, "op", HB_OP_TIMELINE_PUBLISH);
	hb_env_set_str(&req, "json", text);
	if (hb_client_send(p->broker, &req, &id, err, sizeof err) < 0) {
		log_warn(NULL, "%zu timeline rows not published: %s", n, err);
		p->dropped += n;
	} else {
		p->sent += n;
	}
	hb_env_free(&req);
}

void tl_pub_flush(struct tl_pub *p)
{
	char *batch = NULL, *row_text;
	size_t len = 0, n = 0, i;
	json_t *row;

	if (!p->rows || !json_array_size(p->rows))
		return;
	if (!(batch = malloc(TL_PUBLISH_MAX + 1))) {
		log_warn(NULL, "out of memory: %zu timeline rows not published", json_array_size(p->rows));
		json_array_clear(p->rows);
		return;
	}
	json_array_foreach(p->rows, i, row) {
		size_t rl;
		if (!(row_text = json_dumps(row, JSON_COMPACT))) {
			p->dropped++;
			continue;
		}
		rl = strlen(row_text);
		/* "[" row ("," row)* "]" */
		if (rl + 2 > TL_PUBLISH_MAX) {
			log_warn(NULL, "timeline row %.200s not published: its %zu bytes exceed the %u a publish takes",
				 json_string_value(json_object_get(row, "id")), rl, TL_PUBLISH_MAX);
			p->dropped++;
			free(row_text);
			continue;
		}
		if (n && (len + 1 + rl + 1 > TL_PUBLISH_MAX || n == TL_PUBLISH_ROWS)) {
			batch[len++] = ']';
			batch[len] = '\0';
			send_batch(p, batch, n);
			n = len = 0;
		}
		batch[len++] = n ? ',' : '[';
		memcpy(batch + len, row_text, rl);
		len += rl;
		n++;
		free(row_text);
	}
	if (n) {
		batch[len++] = ']';
		batch[len] = '\0';
		send_batch(p, batch, n);
	}
	free(batch);
	json_array_clear(p->rows);
}

void tl_pub_free(struct tl_pub *p)
{
	json_decref(p->rows);
	p->rows = NULL;
}
