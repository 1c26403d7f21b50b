#!/bin/sh
# optable.sh [ROOT] - every field a broker handler reads is in its op's row
# (broker/front.c's front_ops[], broker/back.c's back_ops[]; opfields.h),
# and is read the way the row says:
#   - a field no row of the handler names is a read the table never
#     checked (its type, its presence): it fails here;
#   - hb_req_str/hb_req_bool only for a field a row of the handler marks
#     required, of that type (the getter aborts otherwise; a handler that
#     serves several ops reads it in the branch of the op that requires
#     it);
#   - a field every row of the handler marks required is not read with a
#     default (hb_env_str_or, hb_env_bool, hb_env_str): the table already
#     refused a frame that lacks it, so the default is dead.
# A handler's reads are those of its body and of every broker function it
# passes its envelope on to (a parameter `const struct hb_env *e`, called
# with e), followed to any depth; "op" and "id" are every frame's.  Reads
# through a variable name (hb_env_str(e, key)) are not seen: name fields
# as literals.  ROOT defaults to the tree this script is in (a scratch
# copy may be checked).
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || { echo "FAIL cannot enter $root"; exit 1; }

awk '
# Pass 1, the tables: one line per row, "ROW handler op field need type ...".
FNR == 1 { intable = 0; row = "" }
/^static const struct (front|back)_op (front|back)_ops\[\] = \{/ { intable = 1; next }
intable && /^\};/ { if (row != "") rows[++nrows] = row; intable = 0; row = ""; next }
intable {
	line = $0
	sub(/\/\*.*\*\//, "", line)
	if (line ~ /^[ \t]*\/?\*/) next          # comment lines
	if (line ~ /^\t\{ (HB_OP_[A-Z_]+|"[a-z._]+"),/) {        # a new row
		if (row != "") rows[++nrows] = row
		row = ""
	}
	row = row " " line
	next
}
# Pass 1, the functions of broker/: name -> body, and whether it takes e.
FILENAME ~ /\.c$/ && /^[a-z].*[a-z_0-9]+\(/ && !/;[ \t]*$/ && !intable {
	sig = $0; fn = $0
	sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn)
	pending = fn
	next
}
pending != "" && /^\{/ { cur = pending; pending = ""; body[cur] = body[cur] "\n"; takes_e[cur] = takes_e[cur] || sig ~ /const struct hb_env \*e[,)]/; next }
pending != "" { sig = sig $0; next }
cur != "" && /^\}/ { cur = ""; next }
cur != "" { body[cur] = body[cur] $0 "\n"; next }

function fail(msg) { print "FAIL " msg; failed++ }

# The reads of fn and of what it hands e to, into reads[] ("how field").
function walk(fn,    b, rest, callee, m, field, how) {
	if (seen[fn]) return
	seen[fn] = 1
	b = body[fn]
	rest = b
	while (match(rest, /[a-z_0-9]+\(e, "[A-Za-z_.]+"/)) {
		m = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
		how = m; sub(/\(.*/, "", how)
		field = m; sub(/^[^"]*"/, "", field); sub(/"$/, "", field)
		reads[++nreads] = how " " field " " fn
	}
	rest = b
	while (match(rest, /[a-z_0-9]+\([^;{}]*[(, ]e[,)]/)) {
		callee = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + 1)
		sub(/\(.*/, "", callee)
		if (callee in takes_e && takes_e[callee]) walk(callee)
	}
}

END {
	failed = 0
	if (nrows == 0) { print "FAIL no op rows found in broker/front.c and broker/back.c"; exit 1 }
	# Per handler: the fields its rows name, and those every row requires.
	for (i = 1; i <= nrows; i++) {
		r = rows[i]
		sub(/^[ \t]*\{ (HB_OP_[A-Z_]+|"[a-z._]+"),[ \t]*/, "", r)
		sub(/^(ANYONE|STARTED|READY),[ \t]*/, "", r)
		h = r; sub(/,.*/, "", h)
		nrows_of[h]++
		handlers[h] = 1
		while (match(r, /HB_(REQ|OPT)_(STR|INT|BOOL|MAP)\("[A-Za-z_.]+"\)/)) {
			m = substr(r, RSTART, RLENGTH); r = substr(r, RSTART + RLENGTH)
			need = substr(m, 4, 3); type = m; sub(/^HB_..._/, "", type); sub(/\(.*/, "", type)
			f = m; sub(/^[^"]*"/, "", f); sub(/".*/, "", f)
			named[h, f] = 1
			if (need == "REQ") { req[h, f]++; rtype[h, f] = type }
		}
	}
	for (h in handlers) {
		if (!(h in body)) { fail(h ": a handler of the op tables whose body is not in broker/*.c"); continue }
		split("", seen); split("", reads); nreads = 0
		walk(h)
		for (i = 1; i <= nreads; i++) {
			split(reads[i], p, " "); how = p[1]; f = p[2]; where = p[3]
			if (f == "op" || f == "id") continue
			required = req[h, f] == nrows_of[h]
			if (!named[h, f])
				fail(h " (" where ") reads \"" f "\", which no row of " h " names: add it to the row")
			else if (how ~ /^hb_req_/ && (!req[h, f] || (how == "hb_req_str" && rtype[h, f] != "STR") || (how == "hb_req_bool" && rtype[h, f] != "BOOL")))
				fail(h " (" where ") reads \"" f "\" with " how ", but its row does not require it as that type")
			else if (required && how ~ /^hb_env_(str_or|str|bool)$/)
				fail(h " (" where ") reads required \"" f "\" with " how " and a default the row makes dead: use hb_req_*")
			else
				ok[h " " f] = 1
		}
	}
	for (k in ok) print "ok   " k
	exit failed > 0
}
' broker/*.c
