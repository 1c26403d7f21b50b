/*
 * services - the broker's lookups of its services: by name (admin
 * operations, status) and by the tool they serve (routing).
 */
#include "services.h"

#include <string.h>

struct service *broker_service_by_name(struct broker *b, const char *name)
{
	for (int i = 0; i < b->nservices; i++)
		if (strcmp(b->services[i].cfg->name, name) == 0)
			return &b->services[i];
	return NULL;
}

struct service *broker_service_by_tool(struct broker *b, const char *tool)
{
	for (int i = 0; i < b->nservices; i++)
		for (int j = 0; j < b->services[i].cfg->ntools; j++)
			if (b->services[i].cfg->tools[j][0] == tool[0] &&
			    strcmp(b->services[i].cfg->tools[j], tool) == 0)
				return &b->services[i];
	return NULL;
}

struct service *broker_service_for_caller(struct broker *b, const char *tool)
{
	return tool[0] == '_' ? NULL : broker_service_by_tool(b, tool);
}

struct instance *broker_approval_instance(struct broker *b)
{
	for (int i = 0; i < b->nservices; i++) {
		struct instance *cur = b->services[i].cur;
		if (cur && cur->ready && cur->approval_task[0])
			return cur;
	}
	return NULL;
}

struct instance *broker_delivery_instance(struct broker *b)
{
	for (int i = 0; i < b->nservices; i++) {
		struct instance *cur = b->services[i].cur;
		if (cur && cur->ready && cur->delivery_task[0])
			return cur;
	}
	return NULL;
}
