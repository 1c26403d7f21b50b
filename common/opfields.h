/*
 * opfields - the fields an operation carries, written as a table row, and
 * the check of an envelope against that row.
 *
 * Each socket lists its operations in one table (broker/front.c,
 * broker/back.c, and for what the broker sends, common/broker_ops.c):
 * per op, every field it reads, its type and whether it must be there.  The receiver checks a frame against
 * its op's row before any handler runs, the way OpenSMTPD reads an imsg
 * with typed m_get_* calls: a missing or mistyped field is refused with a
 * sentence naming it, so a handler reads its required fields knowing they
 * are there and keeps defaults for the optional ones only.  Fields that
 * no row names are allowed: a newer peer may send more than we read.
 */
#ifndef HB_OPFIELDS_H
#define HB_OPFIELDS_H

#include <stddef.h>

#include "envelope.h"

/* The types a field may hold, one bit each: the request id takes two. */
enum hb_field_type {
	HB_FT_STR = 1u << 0,
	HB_FT_INT = 1u << 1,
	HB_FT_BOOL = 1u << 2,
	HB_FT_MAP = 1u << 3, /* a nested map: the envelope's "name.member" fields */
};

enum hb_field_need { HB_OPTIONAL, HB_REQUIRED };

struct hb_field_rule {
	const char *name;
	unsigned types;           /* enum hb_field_type bits */
	enum hb_field_need need;
};

/* The rules of one op's row; a row ends at the first rule without a
 * name.  Enough for the widest op (the broker's deliver) with room. */
#define HB_OP_MAX_FIELDS 16

#define HB_REQ_STR(n) { (n), HB_FT_STR, HB_REQUIRED }
#define HB_OPT_STR(n) { (n), HB_FT_STR, HB_OPTIONAL }
#define HB_REQ_INT(n) { (n), HB_FT_INT, HB_REQUIRED }
#define HB_OPT_INT(n) { (n), HB_FT_INT, HB_OPTIONAL }
#define HB_REQ_BOOL(n) { (n), HB_FT_BOOL, HB_REQUIRED }
#define HB_OPT_BOOL(n) { (n), HB_FT_BOOL, HB_OPTIONAL }
#define HB_REQ_MAP(n) { (n), HB_FT_MAP, HB_REQUIRED }
#define HB_OPT_MAP(n) { (n), HB_FT_MAP, HB_OPTIONAL }
/* The row of an op that reads no field. */
#define HB_NO_FIELDS { { NULL, 0, HB_OPTIONAL } }

/* Check e against rules (at most max of them): 0, or -1 with the first
 * fault in err, e.g. `call: field "tool" is missing` or `call: field
 * "tool" must be a string, not an integer`.  op names the row in the
 * sentence; pass the table's own name, never bytes a peer sent. */
int hb_fields_check(const struct hb_env *e, const char *op, const struct hb_field_rule *rules, size_t max,
		    char *err, size_t errlen);

/* A field its op's row marks required, read without a default: the
 * row's check already refused a frame that lacks it or holds another
 * type.  Reading one the row does not require is a bug (tests/deploy/
 * optable.sh finds it); it aborts rather than make up a value. */
const char *hb_req_str(const struct hb_env *e, const char *name);
int hb_req_bool(const struct hb_env *e, const char *name);

/* The ops the broker sends a service (call, cancel, subcall.result,
 * deliver.result), checked against their rows in broker_ops.c: 0 when e
 * is one of them and well formed, or when its op is not one of them (what
 * to do with an op it does not know is the receiver's own choice); -1
 * with the fault in err, for the receiver to log and drop. */
int hb_broker_op_check(const struct hb_env *e, char *err, size_t errlen);
/* The same for what the broker sends a client (reply, deliver, event),
 * checked against their rows in broker_ops.c. */
int hb_client_op_check(const struct hb_env *e, char *err, size_t errlen);

#endif
