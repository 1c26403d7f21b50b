/*
 * test_netaddr - the class of every kind of address svc-video must not
 * connect to, on the edges of each range (the first and last address in
 * it, and the neighbours just outside), IPv4 inside IPv6 in each of its
 * forms, and the port and text of an address for the log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "netaddr.h"

#define PUB HB_NETADDR_PUBLIC
#define LOOP HB_NETADDR_LOOPBACK
#define PRIV HB_NETADDR_PRIVATE
#define LINK HB_NETADDR_LINK_LOCAL
#define SPEC HB_NETADDR_SPECIAL

/* text as an IPv4 or IPv6 socket address with port; its length. */
static size_t address(const char *text, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof *ss);
	if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		return sizeof *v4;
	}
	if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		return sizeof *v6;
	}
	fail_msg("the test's address %s does not parse", text);
	return 0;
}

static void test_classes(void **state)
{
	static const struct {
		const char *addr;
		enum hb_netaddr_class want;
	} cases[] = {
		/* IPv4 */
		{ "8.8.8.8", PUB },               { "1.1.1.1", PUB },               { "0.0.0.0", SPEC },
		{ "0.255.255.255", SPEC },        { "1.0.0.0", PUB },               { "9.255.255.255", PUB },
		{ "10.0.0.0", PRIV },             { "10.255.255.255", PRIV },       { "11.0.0.0", PUB },
		{ "100.63.255.255", PUB },        { "100.64.0.0", PRIV },           { "100.127.255.255", PRIV },
		{ "100.128.0.0", PUB },           { "126.255.255.255", PUB },       { "127.0.0.0", LOOP },
		{ "127.0.0.1", LOOP },            { "127.255.255.255", LOOP },      { "128.0.0.0", PUB },
		{ "169.253.255.255", PUB },       { "169.254.0.0", LINK },          { "169.254.169.254", LINK },
		{ "169.254.255.255", LINK },      { "169.255.0.0", PUB },           { "172.15.255.255", PUB },
		{ "172.16.0.0", PRIV },           { "172.31.255.255", PRIV },       { "172.32.0.0", PUB },
		{ "192.167.255.255", PUB },       { "192.168.0.0", PRIV },          { "192.168.255.255", PRIV },
		{ "192.169.0.0", PUB },           { "223.255.255.255", PUB },       { "224.0.0.0", SPEC },
		{ "239.255.255.255", SPEC },      { "240.0.0.0", SPEC },            { "255.255.255.254", SPEC },
		{ "255.255.255.255", SPEC },
		/* IPv6 */
		{ "2001:4860:4860::8888", PUB },  { "2606:4700::1111", PUB },       { "::1", LOOP },
		{ "2000::", PUB },                { "3fff:ffff::1", PUB },          { "1fff:ffff::1", SPEC },
		{ "4000::1", SPEC },              { "::", SPEC },                   { "::2", SPEC },
		{ "::127.0.0.1", SPEC },          { "::1:0:0:1", SPEC },
		{ "fbff:ffff::1", SPEC },         { "fc00::", PRIV },               { "fd12:3456::1", PRIV },
		{ "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", PRIV },                { "fe00::1", SPEC },
		{ "fe7f:ffff::1", SPEC },         { "fe80::", LINK },               { "fe80::1", LINK },
		{ "febf:ffff::1", LINK },         { "fec0::1", PRIV },              { "feff::1", PRIV },
		{ "ff00::", SPEC },               { "ff02::1", SPEC },              { "ffff:ffff::1", SPEC },
		/* IPv4 inside IPv6: the class of the IPv4 address */
		{ "::ffff:127.0.0.1", LOOP },     { "::ffff:7f00:1", LOOP },        { "::ffff:10.0.0.1", PRIV },
		{ "::ffff:169.254.1.1", LINK },   { "::ffff:0.0.0.0", SPEC },       { "::ffff:8.8.8.8", PUB },
		{ "::ffff:0:127.0.0.1", LOOP },   { "::ffff:0:8.8.8.8", PUB },      { "64:ff9b::127.0.0.1", LOOP },
		{ "64:ff9b::192.168.0.1", PRIV }, { "64:ff9b::8.8.8.8", PUB },      { "64:ff9b:1::127.0.0.1", SPEC },
		{ "2002:7f00:1::", LOOP },        { "2002:a00:1::1", PRIV },        { "2002:808:808::1", PUB },
		{ "::fffe:127.0.0.1", SPEC },
	};
	struct sockaddr_storage ss;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = address(cases[i].addr, 443, &ss);
		enum hb_netaddr_class got = hb_netaddr_classify((struct sockaddr *)&ss, len);

		if (got != cases[i].want)
			fail_msg("%s: wanted %s, got %s", cases[i].addr, hb_netaddr_class_name(cases[i].want),
				 hb_netaddr_class_name(got));
	}
}

/* Another family, or an address cut short, is never public. */
static void test_not_an_address(void **state)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_storage ss;
	size_t len = address("8.8.8.8", 443, &ss);

	(void)state;
	assert_int_equal(hb_netaddr_classify((struct sockaddr *)&un, sizeof un), SPEC);
	assert_int_equal(hb_netaddr_classify((struct sockaddr *)&ss, len), PUB);
	assert_int_equal(hb_netaddr_classify((struct sockaddr *)&ss, len - 1), SPEC);
	assert_int_equal(hb_netaddr_classify(NULL, 0), SPEC);
	assert_int_equal(hb_netaddr_port((struct sockaddr *)&un, sizeof un), -1);
}

static void test_port_and_text(void **state)
{
	struct sockaddr_storage ss;
	char text[64];
	size_t len;

	(void)state;
	len = address("127.0.0.1", 8080, &ss);
	assert_int_equal(hb_netaddr_port((struct sockaddr *)&ss, len), 8080);
	hb_netaddr_format((struct sockaddr *)&ss, len, text, sizeof text);
	assert_string_equal(text, "127.0.0.1:8080");
	len = address("::ffff:10.0.0.1", 443, &ss);
	assert_int_equal(hb_netaddr_port((struct sockaddr *)&ss, len), 443);
	hb_netaddr_format((struct sockaddr *)&ss, len, text, sizeof text);
	assert_string_equal(text, "[::ffff:10.0.0.1]:443");
	hb_netaddr_format(NULL, 0, text, sizeof text);
	assert_string_equal(text, "?");
	assert_string_equal(hb_netaddr_class_name(LINK), "link-local");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_not_an_address),
		cmocka_unit_test(test_port_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
