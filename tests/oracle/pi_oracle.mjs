#!/usr/bin/env node
// Pi 1.6.0 oracle: what the reference implementation computes for one session file.
//
// Usage: node tests/oracle/pi_oracle.mjs FILE [--at ID]...
//
// Env: PI_ORACLE_MODULE_DIR = the installed package dir
//      (.../node_modules/@earendil-works/pi-coding-agent), see .ci/install-oracle.
//
// FILE is never opened by Pi: it is copied into a fresh temp dir and Pi opens the
// copy (Pi rewrites files it migrates, and appends "\n" to a file whose last line
// has none). Prints ONE JSON object on stdout (JSON.stringify, so fields Pi leaves
// undefined vanish exactly as Pi would serialize them):
//
//   leaf          sm.getLeafId() (null if none)
//   at            leaf, walked up through `label` entries and `custom` entries with
//                 customType "pi-session.checkout" (stops at a missing parent or a
//                 repeated id); null if no leaf
//   header        sm.getHeader()
//   entries       [{index, id, parentId, type}] for sm.getEntries()
//   branch        ids of sm.getBranch(at), root first
//   branchIndices the same as indices into getEntries() (object identity)
//   tree          pre-order flattening of sm.getTree():
//                 [{id, parentId, depth, type, role, label, timestamp, children, index}]
//   treeView      {all, default, "user-only"}: the rows Pi's `/tree` component
//                 (TreeSelectorComponent, headless, dark theme) lists in each filter mode,
//                 in its order, as indices into getEntries(); null with treeCycle, and
//                 null when an id is carried by two entries: the component then lists a
//                 node's children once per copy, which multiplies without end (Pi hangs)
//   treeCycle     present (true) only when a node would be its own descendant; then
//                 tree is null, since Pi's getTree() would loop forever
//   labels        [[targetId, label]] for every entry id with a label, entry order
//                 (each id once)
//   sessionName   sm.getSessionName() ?? null
//   context       sm.buildSessionContext() = {messages, thinkingLevel, model}
//   contextJson   JSON.stringify of each context message: what Pi sends, byte for byte
//   contextEntryIndices
//                 sm.buildContextEntries() as indices into getEntries(): the entries
//                 the context is built from (latest compaction first, then the kept
//                 range and everything after it), so the compaction cut point can be
//                 compared without relying on ids
//   contextAt     [{id, context, contextJson}] per --at ID: buildSessionContext(entries, ID)
//   rewritten     whether opening the copy changed its bytes
//
// Parent cycles: Pi itself (getBranch, buildSessionContext, and getTree when a
// duplicated id makes a node its own descendant) loops forever on them. This oracle
// walks every path with a guard first and, instead of calling Pi into an endless
// loop, reports null plus a flag: `branchCycle`, `contextCycle`, `treeCycle`, and
// `cycle: true` inside a contextAt item. Those flags describe this oracle, not Pi:
// on such input Pi hangs.
//
// If Pi refuses the file (SessionManager.open throws, e.g. the first parsed line is
// not a session header) the object is {error: "<Pi's message>", rewritten}, with the
// temp copy's path in the message replaced by FILE as given.
// Exit codes: 0 ok (including Pi refusing the file), 1 oracle failure, 2 Pi module
// not loadable, 64 usage error.

import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

function usage(message) {
  process.stderr.write(`pi_oracle: ${message}\nusage: node pi_oracle.mjs FILE [--at ID]...\n`);
  process.exit(64);
}

function parseArgs(argv) {
  let file;
  const at = [];
  const compact = [];
  const branchSummary = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--compact") {
      if (i + 1 >= argv.length) usage("--compact needs keepRecentTokens");
      compact.push(Number(argv[++i]));
    } else if (arg === "--branch-summary") {
      if (i + 1 >= argv.length) usage("--branch-summary needs TARGET:BUDGET");
      const [target, budget] = argv[++i].split(":");
      branchSummary.push({ target, budget: Number(budget) });
    } else if (arg === "--at") {
      if (i + 1 >= argv.length) usage("--at needs an entry id");
      at.push(argv[++i]);
    } else if (arg.startsWith("--at=")) {
      at.push(arg.slice("--at=".length));
    } else if (file === undefined) {
      file = arg;
    } else {
      usage(`unexpected argument ${JSON.stringify(arg)}`);
    }
  }
  if (file === undefined) usage("missing FILE");
  return { file, at, compact, branchSummary };
}

async function loadPi() {
  const dir = process.env.PI_ORACLE_MODULE_DIR;
  if (!dir) {
    process.stderr.write(
      "pi_oracle: PI_ORACLE_MODULE_DIR is not set (run .ci/install-oracle and export its output)\n",
    );
    process.exit(2);
  }
  const modulePath = join(dir, "dist", "core", "session-manager.js");
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    if (pkg.version !== "1.6.0") {
      process.stderr.write(`pi_oracle: warning: ${dir} holds version ${pkg.version}, not 1.6.0\n`);
    }
    return await import(pathToFileURL(modulePath).href);
  } catch (error) {
    process.stderr.write(`pi_oracle: cannot load Pi from ${modulePath}: ${error?.stack ?? error}\n`);
    process.exit(2);
  }
}

/** Pi's `/tree` component; it renders through the theme, which must be set up first. */
async function loadTreeSelector() {
  const ui = join(process.env.PI_ORACLE_MODULE_DIR, "dist", "modes", "interactive");
  const theme = await import(pathToFileURL(join(ui, "theme", "theme.js")).href);
  theme.initTheme("dark", false);
  const mod = await import(pathToFileURL(join(ui, "components", "tree-selector.js")).href);
  return mod.TreeSelectorComponent;
}

/** The entries `/tree` lists in each filter mode, in its order, as indices. */
function treeView(TreeSelector, sm, indexOf) {
  const view = {};
  for (const mode of ["all", "default", "user-only"]) {
    const noop = () => {};
    const selector = new TreeSelector(sm.getTree(), sm.getLeafId(), 40, noop, noop, noop, undefined, mode);
    view[mode] = selector.treeList.filteredNodes.map((flat) => indexOf(flat.node.entry));
  }
  return view;
}

/** Map from each entry object to its first position in `entries` (object identity). */
function identityIndex(entries) {
  const index = new Map();
  entries.forEach((entry, i) => {
    if (!index.has(entry)) index.set(entry, i);
  });
  return (entry) => (index.has(entry) ? index.get(entry) : -1);
}

/**
 * Walk parent links exactly as Pi's getBranch()/buildSessionPath() do
 * (`parentId ? byId.get(parentId) : undefined`), but stop on a repeated entry.
 * Returns the path root first, or null on a cycle.
 */
function guardedPath(start, byId) {
  const path = [];
  const seen = new Set();
  let current = start;
  while (current) {
    if (seen.has(current)) return null;
    seen.add(current);
    path.push(current);
    current = current.parentId ? byId.get(current.parentId) : undefined;
  }
  return path.reverse();
}

/** Pi's buildEntryIndex(): id -> entry, last one wins. */
function entryIndex(entries) {
  const byId = new Map();
  for (const entry of entries) byId.set(entry.id, entry);
  return byId;
}

/** Where buildSessionPath() starts for a given leafId. */
function pathStart(entries, byId, leafId) {
  if (leafId === null) return undefined;
  let leaf;
  if (leafId) leaf = byId.get(leafId);
  return leaf ?? entries[entries.length - 1];
}

/**
 * Would sm.getTree() loop forever? Rebuild its node graph (nodes keyed by id, last
 * entry wins; roots are parentId === null, self-parented, or orphans) and look for a
 * node reachable from a root that is its own descendant.
 */
function treeHasCycle(entries) {
  const children = new Map();
  for (const entry of entries) children.set(entry.id, []);
  const roots = [];
  for (const entry of entries) {
    if (entry.parentId === null || entry.parentId === entry.id) roots.push(entry.id);
    else if (children.has(entry.parentId)) children.get(entry.parentId).push(entry.id);
    else roots.push(entry.id);
  }
  const done = new Set();
  const onPath = new Set();
  for (const root of roots) {
    if (done.has(root)) continue;
    const stack = [[root, 0]];
    onPath.add(root);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const kids = children.get(frame[0]);
      if (frame[1] >= kids.length) {
        stack.pop();
        onPath.delete(frame[0]);
        done.add(frame[0]);
        continue;
      }
      const kid = kids[frame[1]++];
      if (onPath.has(kid)) return true;
      if (done.has(kid)) continue;
      onPath.add(kid);
      stack.push([kid, 0]);
    }
  }
  return false;
}

/** Iterative pre-order flattening of getTree() output. */
function flattenTree(roots, indexOf) {
  const rows = [];
  let cycle = false;
  const onPath = new Set();
  // Frames: [node, depth, nextChild]; visit on push.
  const stack = [];
  const visit = (node, depth) => {
    const entry = node.entry;
    rows.push({
      id: entry.id,
      parentId: entry.parentId,
      depth,
      type: entry.type,
      role: entry.type === "message" ? (entry.message?.role ?? null) : null,
      label: node.label ?? null,
      timestamp: entry.timestamp,
      children: node.children.length,
      index: indexOf(entry),
    });
    onPath.add(node);
    stack.push([node, depth, 0]);
  };
  for (const root of roots) {
    visit(root, 0);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const [node, depth] = frame;
      if (frame[2] >= node.children.length) {
        stack.pop();
        onPath.delete(node);
        continue;
      }
      const child = node.children[frame[2]++];
      if (onPath.has(child)) {
        cycle = true;
        continue;
      }
      visit(child, depth + 1);
    }
  }
  return { rows, cycle };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { file, at: atIds } = opts;
  if (!existsSync(file)) {
    process.stderr.write(`pi_oracle: no such file: ${file}\n`);
    process.exitCode = 1;
    return;
  }
  const pi = await loadPi();

  const tmp = mkdtempSync(join(tmpdir(), "pi-oracle-"));
  try {
    const copy = join(tmp, basename(file).endsWith(".jsonl") ? basename(file) : "session.jsonl");
    copyFileSync(file, copy);
    const before = readFileSync(copy);
    const rewrittenNow = () => !before.equals(readFileSync(copy));

    let sm;
    try {
      sm = pi.SessionManager.open(copy);
    } catch (error) {
      // Pi names the temp copy; name the file we were given instead, for stable output.
      const message = String(error?.message ?? error).split(copy).join(file);
      emit({ error: message, rewritten: rewrittenNow() });
      return;
    }
    const rewritten = rewrittenNow();

    const entries = sm.getEntries();
    const indexOf = identityIndex(entries);
    const byId = { get: (id) => sm.getEntry(id) };
    const out = {};

    // leaf and "at"
    const leaf = sm.getLeafId() ?? null;
    out.leaf = leaf;
    let at = null;
    if (leaf !== null) {
      at = leaf;
      const seen = new Set([at]);
      for (;;) {
        const entry = sm.getEntry(at);
        const isMarker =
          entry &&
          (entry.type === "label" ||
            (entry.type === "custom" && entry.customType === "pi-session.checkout"));
        if (!isMarker) break;
        const parent = entry.parentId;
        if (parent === null || parent === undefined || !sm.getEntry(parent) || seen.has(parent)) break;
        seen.add(parent);
        at = parent;
      }
    }
    out.at = at;
    out.header = sm.getHeader();
    out.entries = entries.map((e, i) => ({ index: i, id: e.id, parentId: e.parentId, type: e.type }));

    // branch (getBranch(at) when at is null starts at the leaf, which is null too)
    const branchPath = at === null ? [] : guardedPath(sm.getEntry(at), byId);
    if (branchPath === null) {
      out.branch = null;
      out.branchIndices = null;
      out.branchCycle = true;
    } else {
      const piBranch = at === null ? [] : sm.getBranch(at);
      if (piBranch.length !== branchPath.length || piBranch.some((e, i) => e !== branchPath[i])) {
        throw new Error("guarded branch walk disagrees with sm.getBranch()");
      }
      out.branch = piBranch.map((e) => e.id);
      out.branchIndices = piBranch.map(indexOf);
    }

    // tree
    if (treeHasCycle(entries)) {
      out.tree = null;
      out.treeView = null;
      out.treeCycle = true;
    } else {
      const { rows, cycle } = flattenTree(sm.getTree(), indexOf);
      out.tree = rows;
      const distinct = new Set(entries.map((e) => e.id)).size === entries.length;
      out.treeView = distinct ? treeView(await loadTreeSelector(), sm, indexOf) : null;
      if (cycle) out.treeCycle = true;
    }

    // labels
    const labels = [];
    const labelled = new Set();
    for (const entry of entries) {
      if (labelled.has(entry.id)) continue;
      const label = sm.getLabel(entry.id);
      if (label !== undefined) {
        labelled.add(entry.id);
        labels.push([entry.id, label]);
      }
    }
    out.labels = labels;
    out.sessionName = sm.getSessionName() ?? null;

    // context from the leaf
    const piIndex = entryIndex(entries);
    const leafStart = pathStart(entries, { get: (id) => sm.getEntry(id) }, sm.getLeafId());
    if (guardedPath(leafStart, byId) === null) {
      out.context = null;
      out.contextEntryIndices = null;
      out.contextCycle = true;
    } else {
      out.context = sm.buildSessionContext();
      out.contextJson = out.context.messages.map((m) => JSON.stringify(m));
      out.contextEntryIndices = sm.buildContextEntries().map(indexOf);
    }

    // context at each --at ID
    out.contextAt = atIds.map((id) => {
      if (guardedPath(pathStart(entries, piIndex, id), piIndex) === null) {
        return { id, context: null, cycle: true };
      }
      const context = pi.buildSessionContext(entries, id, undefined);
      return { id, context, contextJson: context.messages.map((m) => JSON.stringify(m)) };
    });

    // prepareCompaction on @'s branch, per --compact KEEP
    if (opts.compact.length > 0 || opts.branchSummary.length > 0) {
      const dir = process.env.PI_ORACLE_MODULE_DIR;
      const load = (f) => import(pathToFileURL(join(dir, "dist", "core", "compaction", f)).href);
      const compaction = await load("compaction.js");
      const branchSum = await load("branch-summarization.js");
      const utils = await load("utils.js");
      const atBranch = out.at ? sm.getBranch(out.at) : [];
      out.compactions = opts.compact.map((keep) => {
        const prep = compaction.prepareCompaction(atBranch, { enabled: true, reserveTokens: 16384, keepRecentTokens: keep });
        if (!prep) return { keep, result: null };
        const { readFiles, modifiedFiles } = utils.computeFileLists(prep.fileOps);
        return {
          keep,
          result: {
            firstKeptEntryId: prep.firstKeptEntryId,
            isSplitTurn: prep.isSplitTurn,
            tokensBefore: prep.tokensBefore,
            messagesToSummarize: prep.messagesToSummarize.length,
            turnPrefixMessages: prep.turnPrefixMessages.length,
            previousSummary: prep.previousSummary !== undefined,
            readFiles,
            modifiedFiles,
          },
        };
      });
      out.branchSummaries = opts.branchSummary.map(({ target, budget }) => {
        const { entries: collected, commonAncestorId } = branchSum.collectEntriesForBranchSummary(sm, out.at, target);
        const prep = branchSum.prepareBranchEntries(collected, budget);
        const { readFiles, modifiedFiles } = utils.computeFileLists(prep.fileOps);
        return {
          target,
          budget,
          commonAncestorId,
          entries: collected.map((e) => e.id),
          messages: prep.messages.length,
          totalTokens: prep.totalTokens,
          readFiles,
          modifiedFiles,
        };
      });
    }

    out.rewritten = rewritten;
    if (rewrittenNow() !== rewritten) throw new Error("Pi wrote the file after opening it");
    emit(out);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function emit(value) {
  // No process.exit() here: stdout may be a pipe, and exiting early could cut it.
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

main().catch((error) => {
  process.stderr.write(`pi_oracle: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
