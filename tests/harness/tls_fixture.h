/*
 * tls_fixture - a throwaway certificate authority and a server
 * certificate for the tests' local TLS servers (tests/ws/server.mjs,
 * tests/fake-relay/relay.mjs), made in a temporary folder by the openssl
 * command, so that a test trusts exactly this CA (ws_opts.ca_file) and
 * nothing of the system's.
 *
 * The folder is the test's to use for its other files too: tls_remove
 * removes it with whatever it holds.
 */
#ifndef HB_TLS_FIXTURE_H
#define HB_TLS_FIXTURE_H

struct tls_fixture {
	char dir[64];        /* /tmp/NAME.XXXXXX */
	char ca[100];        /* the CA to trust (PEM) */
	char cert[100];      /* the server's certificate, signed by ca */
	char key[100];       /* its key */
	char other_ca[100];  /* a second CA that signed nothing: trusting it refuses cert */
};

/* Make the folder (name: a short word for its name) and the files.  names:
 * the certificate's subjectAltName, e.g. "DNS:localhost"; NULL for
 * "DNS:localhost,IP:127.0.0.1".  0, or -1 after saying why on stderr
 * (nothing left behind). */
int tls_make(struct tls_fixture *t, const char *name, const char *names);
/* Remove the folder and everything in it.  0 or -1. */
int tls_remove(struct tls_fixture *t);

#endif
