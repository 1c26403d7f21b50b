/*
 * session_message - the hold rules and the envelope of a message between
 * sessions.  They live here once because two processes apply the rules:
 * svc-messages when the call arrives and the broker just before delivery,
 * when only the broker knows the access of the recipient's running turn.
 */
#include "session_message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"

int hb_message_hold(const struct hb_message_end *sender, const struct hb_message_end *recipient,
		    char *reason, size_t reasonlen)
{
	int s = hb_access_rank(sender->access), r = hb_access_rank(recipient->access);

	if (s < 0 || r < 0) {
		snprintf(reason, reasonlen, "the access level of %s is not known (\"%.32s\" and \"%.32s\")",
			 s < 0 ? "the sending session" : "the recipient", sender->access, recipient->access);
		return 1;
	}
	/* A message may start work only with the access its sender had. */
	if (r > s) {
		snprintf(reason, reasonlen, "\"%.200s\" runs with %s, more than this session's %s",
			 recipient->title, hb_access_words(recipient->access), hb_access_words(sender->access));
		return 1;
	}
	if (r > 0 && strcmp(sender->project, recipient->project) != 0) {
		snprintf(reason, reasonlen, "\"%.200s\" works in another project (%.300s) and is not read-only",
			 recipient->title, recipient->project);
		return 1;
	}
	return 0;
}

/* Bytes of s escaped as an XML attribute value (into out when not NULL). */
static size_t escape_attr(const char *s, char *out)
{
	size_t n = 0;

	for (; *s; s++) {
		const char *rep = NULL;
		char num[8];
		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '"': rep = "&quot;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		default:
			if ((unsigned char)*s < 0x20) {
				snprintf(num, sizeof num, "&#%d;", *s);
				rep = num;
			}
		}
		if (rep) {
			if (out)
				memcpy(out + n, rep, strlen(rep));
			n += strlen(rep);
		} else {
			if (out)
				out[n] = *s;
			n++;
		}
	}
	return n;
}

char *hb_message_envelope(const char *from_session, const char *from_title, const char *from_agent,
			  const char *message)
{
	const char *attr[3] = { from_session, from_title, from_agent };
	static const char *const name[3] = { " from_session_id=\"", "\" from_title=\"", "\" from_agent=\"" };
	static const char head[] = HB_SESSION_MESSAGE_FIRST_LINE "\n<session_message";
	static const char tail[] = "\n</session_message>";
	size_t len = strlen(head) + strlen("\">\n") + strlen(message) + strlen(tail) + 1, n;
	char *out, *p;

	for (int i = 0; i < 3; i++)
		len += strlen(name[i]) + escape_attr(attr[i], NULL);
	if (!(out = malloc(len)))
		return NULL;
	p = out;
	memcpy(p, head, strlen(head));
	p += strlen(head);
	for (int i = 0; i < 3; i++) {
		memcpy(p, name[i], strlen(name[i]));
		p += strlen(name[i]);
		p += escape_attr(attr[i], p);
	}
	memcpy(p, "\">\n", 3);
	p += 3;
	n = strlen(message);
	memcpy(p, message, n);
	p += n;
	memcpy(p, tail, sizeof tail); /* with its NUL */
	return out;
}

int hb_is_session_message_id(const char *id)
{
	return id && strncmp(id, HB_SESSION_MESSAGE_PREFIX, strlen(HB_SESSION_MESSAGE_PREFIX)) == 0;
}
