/*
 * report - see report.h.  A report stays with the incarnation that sent
 * it: status shows the current one's, so a replacement's word on its own
 * link appears when it takes over, and a draining generation's last word
 * never overwrites it.  The text is kept as it came (checked once here),
 * because status is asked for far less often than a service may report.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "log.h"
#include "opfields.h"

void report_accept(struct broker *b, struct instance *from, const struct hb_env *e)
{
	const char *text = hb_req_str(e, "json");
	size_t len = strlen(text);
	json_t *body = len <= REPORT_MAX ? json_loads(text, 0, NULL) : NULL;
	char *copy;

	if (!json_is_object(body)) {
		log_warn(from->id, "report dropped: %zu bytes that are not a JSON object of at most %d bytes", len,
			 REPORT_MAX);
		json_decref(body);
		return;
	}
	if (!(copy = strdup(text))) {
		log_warn(from->id, "report dropped: out of memory");
		json_decref(body);
		return;
	}
	free(from->report);
	from->report = copy;
	log_debug(from->id, "report: %s", text);
	events_publish(b, "service.report", json_pack("{s:s, s:I, s:o}", "service", from->svc->cfg->name,
						       "generation", (json_int_t)from->gen, "report", body));
}

json_t *report_json(const struct instance *inst)
{
	json_t *o = inst && inst->report ? json_loads(inst->report, 0, NULL) : NULL;

	return o ? o : json_null();
}
