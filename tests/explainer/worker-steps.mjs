#!/usr/bin/env node
// worker-steps.mjs - the explainer worker a mock model plays in the end to
// end tests of create_explainer_video: the steps a real Codex or Claude
// Code is made to take, and what each step's answer must show.  Prints a
// script for tests/codex/mock-responses.mjs (scenario "steps").
//
//   node worker-steps.mjs [--variant full|revise|attempts|stall] [--wait-file F --wait-at K]
//
// full   : write two scenes with narration too long for the gate, make a
//          code block (make_block), look at one scene, finish (refused: the other scene is unseen), look at
//          all (contact sheet), finish (the gate fails with the measured
//          length), shorten both narrations, look again, finish (saved).
// revise : a revision: read the folder (the saved scenes are there),
//          replace the first scene's words, look at all, finish.
// attempts: finish again and again with the narration too long, until
//          finish refuses to run.
// stall  : write one scene, then the model stalls (hangAtStep) so that a
//          test can cancel the worker while it works.
// The narration lengths assume the fake Gemini's samplesPerChar 2400
// (0.1 s of speech a character): 2 x 700 characters is 140 s, too long;
// 2 x 180 is 36 s, within 30-120 s once each scene gets its 0.5 s.
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    variant: { type: "string", default: "full" },
    ns: { type: "string", default: "hbcode_explainer" },
    "wait-file": { type: "string" },
    "wait-at": { type: "string" },
  },
});

function scene(title, colour) {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1920 1080">
  <rect width="1920" height="1080" fill="${colour}"/>
  <circle id="dot" cx="300" cy="540" r="80" fill="#f0c040">
    <animate attributeName="cx" from="300" to="1620" begin="0s" dur="4s" fill="freeze"/>
  </circle>
  <text x="960" y="300" font-family="DejaVu Sans" font-size="96" fill="#ffffff" text-anchor="middle" opacity="0">${title}
    <animate attributeName="opacity" from="0" to="1" begin="0.5s" dur="1s" fill="freeze"/>
  </text>
</svg>`;
}

// n characters of plain spoken sentences.
function words(seed, n) {
  const base = `${seed} is explained in short spoken sentences. Each sentence says one thing. `;
  let s = "";
  while (s.length < n) s += base;
  return s.slice(0, n).trimEnd().replace(/[^.]$/, ".");
}

const call = (name, args, expect) => ({ namespace: opt.ns, name, arguments: args, expect });
const write = (name, title, colour, chars, expect = { contains: "passes the checks" }) =>
  call("write_scene", { name, svg: scene(title, colour), say: words(title, chars), duration: 5 }, expect);

let steps = [];
const script = { scenario: "steps", finalText: "The explainer video is finished.", deltaChunks: 0 };
if (opt.variant === "full") {
  steps = [
    write("01-intro.svg", "Marmalade", "#203040", 700),
    write("02-set.svg", "Pectin sets it", "#304020", 700),
    // a building block, highlighted by pygments in the confined service
    call("make_block", { kind: "code", language: "python", code: "def jam(t):\n    return t < 105  # <&>\n",
                         x: 100, y: 600, width: 1200 },
         { contains: '<tspan fill="#66d9ef">def</tspan>' }),
    // What the model sees: at the start the dot is on the left, at the end on the right.
    call("preview_scene", { name: "01-intro.svg", at: "start" }, { image: true, look: [
      { x: 300 / 1920, y: 0.5, colour: "#f0c040", what: "the dot at its start" },
      { x: 1620 / 1920, y: 0.5, colour: "#203040", what: "the background where the dot ends" }] }),
    call("preview_scene", { name: "01-intro.svg", at: "end" }, { image: true, look: [
      { x: 1620 / 1920, y: 0.5, colour: "#f0c040", what: "the dot at its end" },
      { x: 300 / 1920, y: 0.5, colour: "#203040", what: "the background where the dot began" }] }),
    call("finish", {}, { contains: "02-set.svg", notContains: "Saved" }),
    call("contact_sheet", {}, { image: true }),
    call("finish", {}, { contains: "it must last 30 to 120 s" }),
    write("01-intro.svg", "Marmalade", "#203040", 180),
    write("02-set.svg", "Pectin sets it", "#304020", 180),
    call("contact_sheet", {}, { image: true }),
    // The poster: the second scene's last frame (the revision keeps the default).
    call("finish", { poster: { scene: "02-set.svg", at: "end" } }, { contains: "Saved the explainer video" }),
  ];
} else if (opt.variant === "revise") {
  steps = [
    call("read_folder", {}, { contains: "02-set.svg" }),
    write("01-intro.svg", "Marmalade, revised", "#402030", 200),
    call("contact_sheet", {}, { image: true }),
    call("finish", {}, { contains: "Saved the explainer video" }),
  ];
} else if (opt.variant === "attempts") {
  // finish until it is refused: six failed gates, then no more attempts.
  steps = [
    write("01-intro.svg", "Marmalade", "#203040", 700),
    write("02-set.svg", "Pectin sets it", "#304020", 700),
    call("contact_sheet", {}, { image: true }),
  ];
  for (let i = 1; i <= 6; i++) steps.push(call("finish", {}, { contains: `finish failed (attempt ${i} of 6)` }));
  steps.push(call("finish", {}, { contains: "finish was called 6 times, the most it may be" }));
} else if (opt.variant === "stall") {
  steps = [write("01-intro.svg", "Marmalade", "#203040", 180), call("check_scenes", {}, null)];
  script.hangAtStep = 1;
} else {
  process.stderr.write(`unknown variant ${opt.variant}\n`);
  process.exit(2);
}
script.steps = steps;
// --wait-file F --wait-at K: the request that would make step K waits for F.
if (opt["wait-file"]) {
  script.waitForFile = opt["wait-file"];
  script.waitAtStep = Number(opt["wait-at"] ?? 0);
}
process.stdout.write(JSON.stringify(script) + "\n");
