/*
 * snapshot_near - what a cut snapshot says of the place it was cut: the
 * containers the first node left out is in, and those after it, each
 * with its ref, so that an agent can ask for one of them alone (action
 * snapshot with that ref).  Scrolling does not bring what a cut left
 * out, the tree is the page's; a container's ref does.  Pure: the nodes
 * snapshot_build took, in; a sentence, out.
 *
 * A container is a node of a role that groups what an agent looks for
 * (list, table, rowgroup, grid, tree, listbox, menu, tablist, feed, and
 * the landmarks: navigation, main, region, form, search, article,
 * complementary, dialog) with a backendDOMNodeId, not ignored.  Those
 * after the cut are found in the cut node's subtree and then in the
 * siblings that follow it and each of its ancestors (document order),
 * never inside one already named, and at most SNAPSHOT_NEAR_AFTER of
 * them; those it is in, innermost first, at most SNAPSHOT_NEAR_INSIDE,
 * the root of the nodes (the element a part is of) left out.
 * Their names are quoted and escaped as the snapshot's are.
 */
#ifndef BROWSER_SNAPSHOT_NEAR_H
#define BROWSER_SNAPSHOT_NEAR_H

#include <jansson.h>
#include <stddef.h>

#define SNAPSHOT_NEAR_INSIDE 2
#define SNAPSHOT_NEAR_AFTER 6
#define SNAPSHOT_NEAR_NAME_MAX 40   /* characters of a container's name */
/* No container is added once the sentence is this long: with one more
 * (its name escaped at most six bytes a character) it stays under 700. */
#define SNAPSHOT_NEAR_CHARS 400

/* The roles of containers, NULL-ended: page_walk.c gives their nodes
 * backend ids too (the snapshot shows no ref on their lines). */
extern const char *const snapshot_near_roles[];

/* "The cut is inside list \"Items\" (ref e12); after it come list
 * \"Later\" (ref e40), table (ref e88)." with a newline, malloc'd; NULL
 * when no container is near the cut (or out of memory: the sentence is
 * advice, the snapshot stands without it).  left_out: cut_node is the
 * first node left out (it and what follows it are after the cut); 0: it
 * is the last node shown and the nodes hold nothing after it (only what
 * it is in is named). */
char *snapshot_near_cut(const json_t *nodes, size_t cut_node, int left_out);

#endif
