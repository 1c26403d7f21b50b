/*
 * act_pdf - the page of one of the session's tabs printed to a PDF
 * (Page.printToPDF, with its backgrounds, in the page's own page size if
 * its CSS names one), as Playwright MCP's browser_pdf_save does.  Chrome
 * prints only when it runs headless; a Chrome with windows (the user's,
 * as a rule) refuses, and the agent is told so and what to do instead.
 *
 * The file goes into the session's folder of svc-browser's cache, never
 * the project: svc-browser may write nowhere else (docs/browser.md, "Save
 * as PDF: where the file goes"), and a name the agent gives is a plain
 * file name there (act_save.c).
 */
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "base64.h"

#define NOT_HEADLESS                                                                                        \
	"This Chrome cannot print a page to PDF: Chrome prints to PDF only when it runs headless, and the "  \
	"browser you reach has windows. Take a screenshot with fullPage true instead, or ask the user to "   \
	"print the page (Ctrl+P, Save as PDF)."

/* Page.printToPDF: 0 with *res, or -1 after answering (a Chrome with
 * windows said as such). */
static int print(struct act *a, json_t **res)
{
	char err[CDP_ERR_MAX];
	enum cdp_fail f;

	if (act_dialog_open_since(a, err, sizeof err))
		return act_fail(a, CDP_DIALOG, "printing the page", err), -1;
	f = cdp_call(a->conn.cdp, a->tab.session, "Page.printToPDF",
		     json_pack("{s:b, s:b}", "printBackground", 1, "preferCSSPageSize", 1), a->step_ms, a->cancel, res,
		     err, sizeof err);
	if (f == CDP_PROTOCOL && strstr(err, "not implemented"))
		return hb_call_fail(a->call, NOT_HEADLESS), -1;
	return f == CDP_OK ? 0 : (act_fail(a, f, "printing the page to PDF", err), -1);
}

int action_pdf(struct act *a)
{
	const char *name = json_string_value(json_object_get(a->args, "filename"));
	char path[HB_PATH_MAX + 128], err[HB_PATH_MAX + 512], line[1024], dir[HB_PATH_MAX];
	json_t *res = NULL;
	const char *data;
	unsigned char *pdf = NULL;
	size_t len;
	int rc;

	/* refused before anything is printed: a name is a plain name in the
	 * session's folder, not a path */
	if (name && !act_file_name_ok(name, ".pdf")) {
		if (act_save_dir(a, dir, sizeof dir, err, sizeof err) < 0)
			return hb_call_failf(a->call, "The PDF cannot be saved: %s", err);
		return hb_call_failf(a->call,
				     "filename \"%.100s\" is not a plain file name: give a name like report.pdf (letters, "
				     "digits, '.', '-' and '_', not starting with '.', ending in .pdf, at most %d "
				     "characters), without a folder. The PDF is saved in %s, this session's folder; "
				     "nothing was saved.",
				     name, ACT_FILE_NAME_MAX, dir);
	}
	if (print(a, &res) < 0)
		return -1;
	data = json_string_value(json_object_get(res, "data"));
	if (!data || !(pdf = hb_base64_decode(data, strlen(data), &len)) || len < 5 || memcmp(pdf, "%PDF-", 5) != 0) {
		free(pdf);
		json_decref(res);
		return hb_call_fail(a->call, "The browser's answer to printing the page is not a PDF.");
	}
	json_decref(res);
	if (act_save_file(a, name, ".pdf", pdf, len, path, sizeof path, err, sizeof err) < 0) {
		free(pdf);
		return hb_call_failf(a->call, "The PDF could not be saved: %s. Nothing was saved.", err);
	}
	free(pdf);
	act_tab_line(a, line, sizeof line);
	rc = hb_call_succeedf(a->call, "%s%s%s\nSaved the page as a PDF of %zu bytes: %s", a->note,
			      a->note[0] ? "\n" : "", line, len, path);
	return rc;
}
