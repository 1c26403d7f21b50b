/*
 * netaddr - what kind of place a socket address is: this computer, a
 * private or link-local network, no single remote host at all
 * (unspecified, multicast, reserved, broadcast), or the public internet.
 *
 * Decided on the numeric address a socket is about to connect to, never
 * on how a URL spells its host, so that every spelling of one place
 * (127.1, 0177.0.0.1, 0x7f.1, [::ffff:127.0.0.1], a name that resolves to
 * 10.0.0.1) lands in the same class.  svc-video lets its look at a video
 * URL connect to public addresses only; a service that must stay on this
 * computer (the browser bridge) would take HB_NETADDR_LOOPBACK only.
 */
#ifndef HB_NETADDR_H
#define HB_NETADDR_H

#include <stddef.h>
#include <sys/socket.h>

enum hb_netaddr_class {
	HB_NETADDR_PUBLIC,
	HB_NETADDR_LOOPBACK,   /* 127/8, ::1 */
	HB_NETADDR_PRIVATE,    /* 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), fc00::/7, fec0::/10 */
	HB_NETADDR_LINK_LOCAL, /* 169.254/16, fe80::/10 */
	HB_NETADDR_SPECIAL,    /* 0/8, 224/4 multicast, 240/4 (with 255.255.255.255); IPv6 outside
				* 2000::/3 and the classes above (::, ff00::/8, ...); any family
				* but IPv4 and IPv6 */
};

/* The class of sa (len bytes).  An IPv6 address that carries an IPv4 one
 * (::ffff:a.b.c.d, ::ffff:0:a.b.c.d, 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD::)
 * has the class of that IPv4 address, since that is where it leads. */
enum hb_netaddr_class hb_netaddr_classify(const struct sockaddr *sa, size_t len);
/* "loopback", "private", ... for log lines. */
const char *hb_netaddr_class_name(enum hb_netaddr_class c);
/* The port of an IPv4 or IPv6 address, or -1. */
int hb_netaddr_port(const struct sockaddr *sa, size_t len);
/* "a.b.c.d:port" or "[v6]:port" into out (for log lines); "?" when sa is
 * neither. */
void hb_netaddr_format(const struct sockaddr *sa, size_t len, char *out, size_t outlen);

#endif
