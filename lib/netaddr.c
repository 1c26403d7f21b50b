/*
 * netaddr - the classes of netaddr.h from the address bytes.  IPv4 is
 * read as one host-order number so that every range is one mask and
 * compare; IPv6 is read byte by byte.
 */
#include "netaddr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* addr/bits contains a (all in host order). */
static int in4(uint32_t a, uint32_t net, int bits)
{
	uint32_t mask = bits == 0 ? 0 : 0xffffffffu << (32 - bits);

	return (a & mask) == net;
}

static enum hb_netaddr_class classify4(uint32_t a)
{
	if (in4(a, 0x7f000000, 8))
		return HB_NETADDR_LOOPBACK;
	if (in4(a, 0x0a000000, 8) || in4(a, 0xac100000, 12) || in4(a, 0xc0a80000, 16) || in4(a, 0x64400000, 10))
		return HB_NETADDR_PRIVATE;
	if (in4(a, 0xa9fe0000, 16))
		return HB_NETADDR_LINK_LOCAL;
	/* 0/8 ("this network": 0.0.0.0 reaches this computer on Linux),
	 * 224/4 multicast, 240/4 reserved and the broadcast address in it. */
	if (in4(a, 0x00000000, 8) || in4(a, 0xe0000000, 4) || in4(a, 0xf0000000, 4))
		return HB_NETADDR_SPECIAL;
	return HB_NETADDR_PUBLIC;
}

/* The four bytes at b as one host-order number. */
static uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static int zeros(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

static enum hb_netaddr_class classify6(const unsigned char *b)
{
	static const unsigned char nat64[12] = { 0x00, 0x64, 0xff, 0x9b }; /* 64:ff9b::/96 */

	if (zeros(b, 10) && b[10] == 0xff && b[11] == 0xff) /* ::ffff:a.b.c.d, mapped */
		return classify4(be32(b + 12));
	if (zeros(b, 8) && b[8] == 0xff && b[9] == 0xff && zeros(b + 10, 2)) /* ::ffff:0:a.b.c.d */
		return classify4(be32(b + 12));
	if (memcmp(b, nat64, sizeof nat64) == 0)
		return classify4(be32(b + 12));
	if (b[0] == 0x20 && b[1] == 0x02) /* 6to4: 2002:AABB:CCDD::/48 */
		return classify4(be32(b + 2));
	if (zeros(b, 15) && b[15] == 1)
		return HB_NETADDR_LOOPBACK;
	if ((b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)) /* fc00::/7, site-local fec0::/10 */
		return HB_NETADDR_PRIVATE;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) /* fe80::/10 */
		return HB_NETADDR_LINK_LOCAL;
	/* Global unicast is 2000::/3; the rest (::, the old IPv4-compatible
	 * ::a.b.c.d, local-use NAT64 64:ff9b:1::/48, multicast ff00::/8, the
	 * unassigned space) is never one public host. */
	return (b[0] & 0xe0) == 0x20 ? HB_NETADDR_PUBLIC : HB_NETADDR_SPECIAL;
}

enum hb_netaddr_class hb_netaddr_classify(const struct sockaddr *sa, size_t len)
{
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;

	/* Copied out: the caller's bytes need not be aligned for either. */
	if (sa && len >= sizeof v4 && sa->sa_family == AF_INET) {
		memcpy(&v4, sa, sizeof v4);
		return classify4(ntohl(v4.sin_addr.s_addr));
	}
	if (sa && len >= sizeof v6 && sa->sa_family == AF_INET6) {
		memcpy(&v6, sa, sizeof v6);
		return classify6(v6.sin6_addr.s6_addr);
	}
	return HB_NETADDR_SPECIAL;
}

const char *hb_netaddr_class_name(enum hb_netaddr_class c)
{
	switch (c) {
	case HB_NETADDR_PUBLIC:
		return "public";
	case HB_NETADDR_LOOPBACK:
		return "loopback";
	case HB_NETADDR_PRIVATE:
		return "private";
	case HB_NETADDR_LINK_LOCAL:
		return "link-local";
	case HB_NETADDR_SPECIAL:
		break;
	}
	return "special";
}

int hb_netaddr_port(const struct sockaddr *sa, size_t len)
{
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;

	if (sa && len >= sizeof v4 && sa->sa_family == AF_INET) {
		memcpy(&v4, sa, sizeof v4);
		return ntohs(v4.sin_port);
	}
	if (sa && len >= sizeof v6 && sa->sa_family == AF_INET6) {
		memcpy(&v6, sa, sizeof v6);
		return ntohs(v6.sin6_port);
	}
	return -1;
}

void hb_netaddr_format(const struct sockaddr *sa, size_t len, char *out, size_t outlen)
{
	char text[INET6_ADDRSTRLEN];
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;

	if (sa && len >= sizeof v4 && sa->sa_family == AF_INET) {
		memcpy(&v4, sa, sizeof v4);
		if (inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text)) {
			snprintf(out, outlen, "%s:%d", text, ntohs(v4.sin_port));
			return;
		}
	} else if (sa && len >= sizeof v6 && sa->sa_family == AF_INET6) {
		memcpy(&v6, sa, sizeof v6);
		if (inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text)) {
			snprintf(out, outlen, "[%s]:%d", text, ntohs(v6.sin6_port));
			return;
		}
	}
	snprintf(out, outlen, "?");
}
