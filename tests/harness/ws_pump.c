/*
 * ws_pump - poll(2) around ws_on_readable/ws_on_writable for the tests.
 * The short rounds only bound how long a test waits for a dead link;
 * nothing here measures time.
 */
#include "ws_pump.h"

#include <poll.h>

#include "clock.h"

void ws_pump(struct ws *ws, int ms)
{
	struct pollfd p = { ws_fd(ws), POLLIN, 0 };

	if (p.fd < 0)
		return;
	if (ws_want_write(ws))
		p.events |= POLLOUT;
	if (poll(&p, 1, ms) <= 0)
		return;
	if (p.revents & (POLLIN | POLLHUP | POLLERR))
		ws_on_readable(ws);
	if ((p.revents & POLLOUT) && ws_fd(ws) >= 0)
		ws_on_writable(ws);
}

int ws_pump_ping(struct ws *ws, int patience_ms)
{
	long long deadline = hb_monotonic_ms() + patience_ms;
	unsigned long pongs = ws_pongs(ws);

	while (ws_want_write(ws) && ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		ws_pump(ws, 50);
	if (ws_want_write(ws) || ws_ping(ws) != 0)
		return -1;
	while (ws_pongs(ws) == pongs && ws_fd(ws) >= 0 && hb_monotonic_ms() < deadline)
		ws_pump(ws, 50);
	return ws_pongs(ws) > pongs ? 0 : -1;
}
