/*
 * page_walk - a bounded part of a page's tree, made in the page itself,
 * for pages too large for Chrome's accessibility tree and for the parts
 * an agent asks for (one element's subtree, the part after a cut).
 *
 * Why not Chrome's tree: whatever part of it is asked for
 * (Accessibility.getPartialAXTree of one node included), Chrome first
 * builds the tree of the whole page: seconds of the renderer for a
 * 60,000-row table, and getFullAXTree with a depth still answered with
 * most of it.  The walk below costs what it shows: it visits the DOM in
 * document order from one element and stops after a number of nodes, as
 * Playwright's aria snapshot (its target and depth) is made in the page.
 *
 * PAGE_WALK_JS is a function for Runtime.callFunctionOn on the element
 * to walk (document.documentElement for the page), with the arguments
 * (offset, budget, textMax):
 *
 *   offset  where to start: the element's ordinal, 0 being the element
 *           walked and k the k-th element after it in document order
 *           (getElementsByTagName('*') order); the elements between it
 *           and the start are shown as context, without their other
 *           children
 *   budget  the nodes to show (unnamed wrappers not counted; at most
 *           four times as many nodes in all)
 *   textMax characters kept of a text, a name, a value
 *
 * It returns an array: [json, element, element, ...].  json is a string,
 * {"total": elements, "next": ordinal or 0, "nodes": [...]}, whose nodes
 * have the shape of Accessibility.getFullAXTree's (nodeId, parentId,
 * childIds, role, name, value, properties), so snapshot.c writes them as
 * it writes Chrome's, plus "ord" (the ordinal of the node's element, or
 * of a text's parent) and, on the nodes that may get a ref, "el": the
 * index in the array of their element, whose backend node id the caller
 * asks DOM.describeNode for.  "next" is the ordinal of the first element
 * not walked (0: the walk reached the end).
 *
 * Roles and names follow HTML-AAM and accname in short: explicit role,
 * the element's implicit role, aria-label, aria-labelledby, a field's
 * label, alt, a button's value, the contents for roles named by them,
 * title.  Hidden elements (not rendered, aria-hidden) are left out with
 * their subtree.  The page's own scripts can see nothing of the walk; a
 * page that rewrote the DOM's functions can make it see a different
 * page, as it could draw one: the text is quoted by snapshot.c either way.
 */
#ifndef BROWSER_PAGE_WALK_H
#define BROWSER_PAGE_WALK_H

extern const char page_walk_js[];

/* A function for Runtime.callFunctionOn on an element or a text node:
 * the ordinal of the element (of a text's parent) in the document, the
 * offset PAGE_WALK_JS takes on document.documentElement. */
extern const char page_walk_ordinal_js[];

#endif
