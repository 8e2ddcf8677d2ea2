#!/usr/bin/env node
// Writes sessions through Pi 1.6.0's own SessionManager, filled with what JSON re-serializing
// gets wrong: doubles with 17 significant digits, tiny and huge magnitudes, integers beyond
// 2^53, integer-like object keys, lone surrogates, U+2028, control characters, deep nesting,
// branches, compactions and custom messages. Deterministic for a seed.
//
// Usage: node tests/oracle/gen_tricky.mjs DIR SEED COUNT
// Env: PI_ORACLE_MODULE_DIR (see .ci/install-oracle). Prints one file path per line.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, seedArg, countArg] = process.argv.slice(2);
if (!dir || !seedArg || !countArg) {
  process.stderr.write("usage: node gen_tricky.mjs DIR SEED COUNT\n");
  process.exit(64);
}
const moduleDir = process.env.PI_ORACLE_MODULE_DIR;
const { SessionManager } = await import(pathToFileURL(join(moduleDir, "dist/core/session-manager.js")).href);

// xorshift32: the same sessions for the same seed.
let state = Number(seedArg) >>> 0 || 1;
function rand() {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (n) => Math.floor(rand() * n);

function number() {
  switch (int(12)) {
    case 0: return rand() * 10 ** (int(40) - 20);            // any magnitude, 17 digits
    case 1: return 0.1 * int(1000) + 0.2;                    // 0.1 + 0.2 style sums
    case 2: return int(1000) * 1e-6;                         // 0.000003 and friends
    case 3: return 10 ** (int(30));                          // 1e+20 vs 100000000000000000000
    case 4: return 2 ** 53 + int(1000) * 2;                  // beyond exact integers
    case 5: return 2 ** 64 * (1 + rand());                   // beyond u64
    case 6: return -rand() * 1e-7;
    case 7: return int(100);
    case 8: return 1 / 3;
    case 9: return Number.MAX_VALUE * rand();
    case 10: return Number.MIN_VALUE * int(10);
    default: return (int(2000000) - 1000000) / 1000;
  }
}

function text() {
  const parts = ["plain", "ünïcødé", "emoji 😀", "line\u2028sep", "para\u2029sep", "tab\tand\nnewline",
    "ctrl\u0001\u001f\u007f", "quote \" back \\ slash /", "cut \ud83d", "low \ude00 alone", "bidi \u202e", "中文"];
  let s = "";
  for (let i = 0, n = 1 + int(4); i < n; i++) s += pick(parts) + " ";
  return s;
}

function args(depth = 0) {
  const o = {};
  for (let i = 0, n = 1 + int(4); i < n; i++) {
    const key = pick(["path", "10", "2", "0", "01", "b", "a", "4294967295", "command", text()]);
    o[key] = depth < 2 && rand() < 0.3 ? args(depth + 1) : rand() < 0.5 ? number() : text();
  }
  if (rand() < 0.1) {
    let deep = { leaf: number() };
    for (let i = 0; i < 130 + int(100); i++) deep = rand() < 0.5 ? [deep] : { n: deep };
    o.deep = deep;
  }
  return o;
}

function usage() {
  const input = int(100000), output = int(5000);
  return {
    input, output, cacheRead: int(50000), cacheWrite: int(5000), totalTokens: input + output,
    cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: number(), cacheWrite: 0.0012000000000000001, total: number() },
  };
}

let t = 1780300800000;
const files = [];
for (let k = 0; k < Number(countArg); k++) {
  const sessionDir = join(dir, `s${k}`);
  const sm = SessionManager.create("/home/user/proj", sessionDir);
  const ids = [];
  for (let i = 0, n = 8 + int(25); i < n; i++) {
    t += 1000 + int(100000);
    const r = rand();
    if (r < 0.3 || ids.length === 0) {
      ids.push(sm.appendMessage({ role: "user", content: rand() < 0.5 ? text() : [{ type: "text", text: text() }], timestamp: t }));
    } else if (r < 0.6) {
      const callId = `call_${k}_${i}`;
      ids.push(sm.appendMessage({
        role: "assistant",
        content: [
          ...(rand() < 0.3 ? [{ type: "thinking", thinking: text(), thinkingSignature: "sig" }] : []),
          { type: "text", text: text() },
          { type: "toolCall", id: callId, name: pick(["read", "bash", "edit", "calc"]), arguments: args() },
        ],
        api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5",
        usage: usage(), stopReason: "toolUse", timestamp: t,
      }));
      t += 10;
      ids.push(sm.appendMessage({
        role: "toolResult", toolCallId: callId, toolName: "calc",
        content: [{ type: "text", text: text() }], details: args(), isError: rand() < 0.1, timestamp: t,
      }));
    } else if (r < 0.75) {
      ids.push(sm.appendMessage({
        role: "assistant", content: [{ type: "text", text: text() }],
        api: "openai-responses", provider: "openai", model: "gpt-5", usage: usage(), stopReason: "stop", timestamp: t,
      }));
    } else if (r < 0.82) {
      ids.push(sm.appendCustomMessageEntry("note", rand() < 0.5 ? text() : [{ type: "text", text: text() }], true, args()));
    } else if (r < 0.88 && ids.length > 3) {
      sm.branch(pick(ids.slice(0, -1)));
    } else if (r < 0.93 && ids.length > 4) {
      ids.push(sm.appendCompaction(text(), pick(ids.slice(-4)), int(200000), { readFiles: [text()], modifiedFiles: [] }, false, usage()));
    } else if (r < 0.95) {
      ids.push(sm.appendModelChange(pick(["anthropic", "openai"]), pick(["m1", "m2"])));
    } else if (r < 0.97) {
      sm.appendSessionInfo(text());
    } else {
      sm.appendLabelChange(pick(ids), text());
    }
  }
  // Make sure the file exists: Pi writes nothing until a conversation has an assistant reply.
  sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "done" }], api: "x", provider: "x", model: "x", usage: usage(), stopReason: "stop", timestamp: t + 1 });
  for (const f of readdirSync(sessionDir)) files.push(join(sessionDir, f));
}
process.stdout.write(files.map((f) => `${f}\n`).join(""));
