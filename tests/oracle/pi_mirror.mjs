#!/usr/bin/env node
// Pi 1.6.0 doing the writes that pi-session's `compact`, `summarize-branch` and `clone`
// mirror, through Pi's own code, on a temp copy of a session file.
//
// Usage: node tests/oracle/pi_mirror.mjs OP FILE [ARGS]...
//   compact FILE KEEP BODY      /compact (AgentSession.compact): prepareCompaction on the
//                               leaf's branch, compact() with a model that answers BODY,
//                               appendCompaction
//   navigate FILE TARGET BODY   /tree with "summarize" (AgentSession.navigateTree, step
//                               for step): collectEntriesForBranchSummary from the leaf,
//                               generateBranchSummary with a model that answers BODY, the
//                               new position (a user or custom message's parent), then
//                               branchWithSummary, or branch()/resetLeaf() without summary
//   clone FILE                  /clone: createBranchedSession(leaf)
//
// Env: PI_ORACLE_MODULE_DIR, as for pi_oracle.mjs. The model is a stand-in (context
// window 128000, reserveTokens 16384, no network): it records each request's prompt text.
//
// Prints ONE JSON object:
//   leafBefore    sm.getLeafId() on opening
//   prompts       the prompt text of every summary request, in order
//   result        compact: "written" | "already compacted" | "nothing to compact"
//                 navigate: "noop" | "summary" | "moved"
//   preparation   compact: {firstKeptEntryId, isSplitTurn, tokensBefore, messagesToSummarize,
//                 turnPrefixMessages, previousSummary (the value)} or null
//                 navigate: {entries (ids), commonAncestorId, newLeafId}
//   written       the entry Pi appended (null if none)
//   leaf          sm.getLeafId() after the write (in memory, as Pi goes on)
//   context       sm.buildSessionContext() after the write
//   file          clone: the new file's entries [{type, id, parentId, targetId, label,
//                 firstKeptEntryId, customType}]

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const [op, file, ...rest] = process.argv.slice(2);
if (!op || !file) {
  process.stderr.write("usage: node pi_mirror.mjs compact|navigate|clone FILE [ARGS]...\n");
  process.exit(64);
}
const dir = process.env.PI_ORACLE_MODULE_DIR;
if (!dir) {
  process.stderr.write("pi_mirror: PI_ORACLE_MODULE_DIR is not set\n");
  process.exit(2);
}
const load = (f) => import(pathToFileURL(join(dir, "dist", "core", f)).href);

const prompts = [];
function standIn(body) {
  const model = {
    id: "stand-in",
    name: "stand-in",
    provider: "stand-in",
    api: "stand-in",
    reasoning: false,
    input: ["text"],
    contextWindow: 128000,
    maxTokens: 16384,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
  const streamFn = async (_model, context) => {
    const m = context.messages[context.messages.length - 1];
    prompts.push(typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join(""));
    const message = {
      role: "assistant",
      content: [{ type: "text", text: body }],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: Date.now(),
    };
    return { result: async () => message };
  };
  return { model, streamFn };
}

async function main() {
  const sessions = await load("session-manager.js");
  const compaction = await load("compaction/compaction.js");
  const branchSum = await load("compaction/branch-summarization.js");
  const tmp = mkdtempSync(join(tmpdir(), "pi-mirror-"));
  try {
    const copy = join(tmp, basename(file).endsWith(".jsonl") ? basename(file) : "session.jsonl");
    copyFileSync(file, copy);
    const sm = sessions.SessionManager.open(copy);
    const out = { leafBefore: sm.getLeafId() ?? null, prompts };
    const before = sm.getEntries().length;
    if (op === "compact") {
      const [keep, body] = rest;
      const { model, streamFn } = standIn(body);
      const pathEntries = sm.getBranch();
      const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: Number(keep) };
      const prep = compaction.prepareCompaction(pathEntries, settings);
      if (!prep) {
        const last = pathEntries[pathEntries.length - 1];
        out.result = last?.type === "compaction" ? "already compacted" : "nothing to compact";
        out.preparation = null;
      } else {
        out.preparation = {
          firstKeptEntryId: prep.firstKeptEntryId,
          isSplitTurn: prep.isSplitTurn,
          tokensBefore: prep.tokensBefore,
          messagesToSummarize: prep.messagesToSummarize.length,
          turnPrefixMessages: prep.turnPrefixMessages.length,
          previousSummary: prep.previousSummary ?? null,
        };
        const r = await compaction.compact(prep, model, "no-key", undefined, undefined, undefined, undefined, streamFn);
        sm.appendCompaction(r.summary, r.firstKeptEntryId, r.tokensBefore, r.details, false, r.usage);
        out.result = "written";
      }
    } else if (op === "navigate") {
      const [targetId, body] = rest;
      const { model, streamFn } = standIn(body);
      const oldLeafId = sm.getLeafId();
      const targetEntry = sm.getEntry(targetId);
      if (!targetEntry) throw new Error(`Entry ${targetId} not found`);
      if (targetId === oldLeafId) {
        out.result = "noop";
        out.preparation = null;
      } else {
        const { entries, commonAncestorId } = branchSum.collectEntriesForBranchSummary(sm, oldLeafId, targetId);
        let summaryText;
        let details;
        if (entries.length > 0) {
          const r = await branchSum.generateBranchSummary(entries, { model, apiKey: "no-key", reserveTokens: 16384, streamFn });
          if (r.error) throw new Error(r.error);
          summaryText = r.summary;
          details = { readFiles: r.readFiles || [], modifiedFiles: r.modifiedFiles || [] };
        }
        let newLeafId;
        if (targetEntry.type === "message" && targetEntry.message.role === "user") newLeafId = targetEntry.parentId;
        else if (targetEntry.type === "custom_message") newLeafId = targetEntry.parentId;
        else newLeafId = targetId;
        out.preparation = { entries: entries.map((e) => e.id), commonAncestorId, newLeafId: newLeafId ?? null };
        if (summaryText) {
          sm.branchWithSummary(newLeafId, summaryText, details, false, undefined);
          out.result = "summary";
        } else {
          if (newLeafId === null) sm.resetLeaf();
          else sm.branch(newLeafId);
          out.result = "moved";
        }
      }
    } else if (op === "clone") {
      const newFile = sm.createBranchedSession(sm.getLeafId());
      const cloned = sessions.SessionManager.open(newFile);
      out.file = cloned.getEntries().map((e) => ({
        type: e.type,
        id: e.id,
        parentId: e.parentId,
        targetId: e.targetId,
        label: e.label,
        firstKeptEntryId: e.firstKeptEntryId,
        customType: e.customType,
      }));
      out.context = cloned.buildSessionContext();
      out.leaf = cloned.getLeafId() ?? null;
      emit(out);
      return;
    } else {
      throw new Error(`unknown operation ${op}`);
    }
    const entries = sm.getEntries();
    out.written = entries.length > before ? entries[entries.length - 1] : null;
    out.leaf = sm.getLeafId() ?? null;
    out.context = sm.buildSessionContext();
    // What Pi wrote must read back the same.
    const reread = readFileSync(copy, "utf8");
    if (out.written && !reread.includes(JSON.stringify(out.written))) throw new Error("Pi did not persist its entry");
    emit(out);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function emit(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

main().catch((error) => {
  process.stderr.write(`pi_mirror: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
