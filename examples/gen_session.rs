//! Generates a large Pi session file for benchmarks: a v3 header, then turns of user
//! messages, assistant messages with thinking and tool calls, tool results (unicode, escapes,
//! code), model and thinking changes, labels, abandoned branches with branch summaries, and
//! compactions.
//!
//! Two shapes:
//! - `realistic` (the default): entry sizes drawn to match the real sessions of the test
//!   corpus (log-normal per entry kind, fitted to their median and mean: user prompts of a few
//!   hundred bytes, assistant tool calls around 0.8 KB, tool results around 1 KB with a tail
//!   to hundreds of KB), thinking-level changes as often as Pi writes them, a branch point every
//!   thirty-odd turns and a compaction whenever about 800 KB (≈200k tokens) has piled up:
//!   about 110,000 entries per 256 MiB.
//! - `large-entries`: the earlier shape, every tool result hundreds of lines of code (about
//!   10 KB an entry, 27,000 entries per 256 MiB).
//! - `images`: the sessions `slim` is for: screenshots pasted by the user (one prompt in
//!   three, 150 KB to 1.5 MB of base64) and returned by tools (one result in four), now and
//!   then a huge tool output (200 KB to 2 MB: a fetched page, a log), an abandoned branch a
//!   third of the way in and one compaction late (at four fifths).
//!
//! Like Pi's, the files have no defect `repair --check` would find: an id that collides with
//! one already written is drawn again, and a compaction keeps from a prompt on its own branch
//! (after the branch's previous compaction). `tests/it/gen_session.rs` includes this file as a
//! module and checks both shapes.
//!
//! cargo run --release --example gen_session -- --size 256M --out /tmp/s256.jsonl [--seed N] [--shape realistic|large-entries]

use serde_json::{Value, json};
use std::io::{BufWriter, Write};

pub struct Rng(pub u64);

impl Rng {
    /// The next number (xorshift64*). `examples/plant_secrets.rs` and the ccusage interop
    /// test draw from this generator too.
    pub fn next_u64(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    fn id(&mut self) -> String {
        format!("{:08x}", self.next_u64() as u32)
    }
    pub fn id32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A log-normal size with the given median and mean (mean ≥ median), in bytes.
    fn size(&mut self, median: f64, mean: f64) -> usize {
        let sigma = (2.0 * (mean / median).max(1.0).ln()).sqrt();
        // Box–Muller.
        let z = (-2.0 * (1.0 - self.unit()).ln()).sqrt() * (std::f64::consts::TAU * self.unit()).cos();
        (median * (sigma * z).exp()).round().max(1.0) as usize
    }
}

/// A new 8-hex-digit entry id, drawn again while it collides with one already written
/// (Pi's generator retries the same way, so real sessions never repeat an id).
pub fn fresh_id(rng: &mut Rng, taken: &mut std::collections::HashSet<u32>) -> String {
    loop {
        let id = rng.id32();
        if taken.insert(id) {
            return format!("{id:08x}");
        }
    }
}

/// A size in bytes, or with a K, M or G suffix (powers of 1024).
fn parse_size(s: &str) -> Result<u64, String> {
    let (num, mult) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("'{s}' is not a size (bytes, or a number with K, M or G)"))
}

const WORDS: &[&str] = &[
    "parser",
    "token",
    "iterator",
    "the",
    "borrow",
    "checker",
    "lifetime",
    "größe",
    "naïve",
    "日本語",
    "テスト",
    "emoji😀",
    "résumé",
    "span",
    "fn",
    "impl",
    "async",
    "await",
    "\"quoted\"",
    "back\\slash",
    "tab\there",
];

fn text(rng: &mut Rng, words: usize) -> String {
    (0..words)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

fn code(rng: &mut Rng, lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "{i:5}  fn item_{}(x: &str) -> Result<(), Error> {{ /* {} */ }}",
                rng.below(1000),
                text(rng, 4)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Words, code and prose mixed, about `bytes` long.
fn filler(rng: &mut Rng, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 64);
    while s.len() < bytes {
        if rng.below(4) == 0 {
            s.push_str(&code(rng, 1));
            s.push('\n');
        } else {
            s.push_str(&text(rng, 8));
            s.push(if rng.below(6) == 0 { '\n' } else { ' ' });
        }
    }
    s
}

/// Generates a large Pi session file for benchmarks (see the top of examples/gen_session.rs).
#[derive(clap::Parser)]
#[command(name = "gen_session")]
pub struct Cli {
    /// About how large the file is: bytes, or a number with K, M or G.
    #[arg(long, default_value = "64M", value_parser = parse_size)]
    pub size: u64,
    /// The file to write.
    #[arg(long, default_value = "session.jsonl")]
    pub out: String,
    /// The seed of the generator: the same seed writes the same file.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// realistic: entry sizes like real sessions'; large-entries: every tool result long code;
    /// images: pasted and returned images, huge outputs (see the top of the file).
    #[arg(long, default_value = "realistic", value_parser = ["realistic", "large-entries", "images"])]
    pub shape: String,
}

fn main() {
    let cli = <Cli as clap::Parser>::parse();
    match cli.shape.as_str() {
        "large-entries" => large_entries(cli.size, &cli.out, cli.seed),
        "images" => images(cli.size, &cli.out, cli.seed),
        _ => realistic(cli.size, &cli.out, cli.seed),
    }
}

/// The session writer both shapes use: compact lines, ids, timestamps a few seconds apart.
struct Writer {
    w: BufWriter<std::fs::File>,
    written: u64,
    entries: u64,
    ms: u64,
    parent: Option<String>,
    rng: Rng,
    /// Every id written so far: a new id that collides is drawn again, as Pi does.
    ids: std::collections::HashSet<u32>,
}

impl Writer {
    fn new(out: &str, seed: u64) -> Writer {
        let file = std::fs::File::create(out).expect("create");
        let mut w = Writer {
            w: BufWriter::with_capacity(1 << 20, file),
            written: 0,
            entries: 0,
            // Sessions of different seeds start on different days, a day apart.
            ms: 1_793_613_600_000 + (seed % 28) * 86_400_000,
            parent: None,
            rng: Rng(seed | 1),
            ids: std::collections::HashSet::new(),
        };
        let ts = iso(w.ms);
        // Each seed its own session id, so that generated sessions are told apart.
        let id = format!("0196a0b0-1111-7222-8333-{:012x}", seed & 0xffff_ffff_ffff);
        w.put(&json!({"type":"session","version":3,"id":id,"timestamp":ts,"cwd":"/home/user/proj"}));
        w
    }

    fn put(&mut self, v: &Value) {
        let line = v.to_string();
        self.w.write_all(line.as_bytes()).unwrap();
        self.w.write_all(b"\n").unwrap();
        self.written += line.len() as u64 + 1;
    }

    /// Appends an entry of `kind` with the fields of `rest` under the current parent.
    fn entry(&mut self, kind: &str, rest: Value) -> String {
        self.ms += 1000 + self.rng.below(4000);
        let id = fresh_id(&mut self.rng, &mut self.ids);
        let mut v = json!({"type": kind, "id": id, "parentId": self.parent, "timestamp": iso(self.ms)});
        for (k, x) in rest.as_object().unwrap() {
            v.as_object_mut().unwrap().insert(k.clone(), x.clone());
        }
        self.put(&v);
        self.entries += 1;
        self.parent = Some(id.clone());
        id
    }

    fn usage(&mut self) -> Value {
        let input = 1000 + self.rng.below(150_000);
        let output = 50 + self.rng.below(3000);
        let cache_read = self.rng.below(120_000);
        let cost_in = input as f64 * 3e-6;
        let cost_out = output as f64 * 15e-6;
        let cost_cache = cache_read as f64 * 3e-7;
        json!({"input":input,"output":output,"cacheRead":cache_read,"cacheWrite":0,"totalTokens":input + output + cache_read,
            "cost":{"input":cost_in,"output":cost_out,"cacheRead":cost_cache,"cacheWrite":0,"total":cost_in + cost_out + cost_cache}})
    }
}

fn iso(ms: u64) -> String {
    jiff::Timestamp::from_millisecond(ms as i64)
        .unwrap()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Sessions shaped like the corpus's real ones (see the module docs).
pub fn realistic(size: u64, out: &str, seed: u64) {
    let mut s = Writer::new(out, seed);
    s.entry(
        "model_change",
        json!({"provider":"anthropic","modelId":"claude-sonnet-4-5"}),
    );
    s.entry("thinking_level_change", json!({"thinkingLevel":"medium"}));
    let mut turn = 0u64;
    // The user prompts on the current branch, and where on it each of its compactions
    // came (the number of prompts before it): a compaction keeps from a prompt after the
    // previous one on its own branch, as Pi's do.
    let mut path_users: Vec<String> = Vec::new();
    let mut compacted_at: Vec<usize> = Vec::new();
    let mut since_compaction = 0u64;
    while s.written < size {
        turn += 1;
        // Pi records a thinking-level change often (about one entry in ten of the corpus).
        if s.rng.below(2) == 0 {
            let level = ["low", "medium", "high"][s.rng.below(3) as usize];
            s.entry("thinking_level_change", json!({"thinkingLevel": level}));
        }
        let n = s.rng.size(110.0, 220.0);
        let prompt = filler(&mut s.rng, n);
        let t = s.ms;
        let user = s.entry(
            "message",
            json!({"message":{"role":"user","content":[{"type":"text","text":prompt}],"timestamp":t}}),
        );
        path_users.push(user);
        let start = s.written;
        let calls = 1 + s.rng.below(8);
        for c in 0..calls {
            let call_id = format!("toolu_{turn:06}_{c}_{}", s.rng.id());
            let tool = ["read", "bash", "edit", "write", "grep", "ls"][s.rng.below(6) as usize];
            let mut content = Vec::new();
            if s.rng.below(10) == 0 {
                let n = s.rng.size(700.0, 2500.0);
                content.push(json!({"type":"thinking","thinking":filler(&mut s.rng, n),"thinkingSignature":"EqQBCkgIAxABGAIiQH"}));
            }
            if s.rng.below(3) == 0 {
                let n = s.rng.size(120.0, 300.0);
                content.push(json!({"type":"text","text":filler(&mut s.rng, n)}));
            }
            let arg_bytes = s.rng.size(420.0, 1500.0);
            let args = match tool {
                "edit" => {
                    let old = filler(&mut s.rng, arg_bytes / 2);
                    let new = filler(&mut s.rng, arg_bytes / 2);
                    json!({"path": format!("src/mod_{}.rs", s.rng.below(80)), "oldText": old, "newText": new})
                }
                "write" => {
                    json!({"path": format!("src/new_{}.rs", s.rng.below(80)), "content": filler(&mut s.rng, arg_bytes)})
                }
                "bash" => {
                    json!({"command": format!("cargo test -p crate_{} -- {}", s.rng.below(9), text(&mut s.rng, 3))})
                }
                _ => json!({"path": format!("src/mod_{}.rs", s.rng.below(80))}),
            };
            content.push(json!({"type":"toolCall","id":call_id,"name":tool,"arguments":args}));
            let usage = s.usage();
            let t = s.ms;
            s.entry("message", json!({"message":{"role":"assistant","content":content,"api":"anthropic-messages",
                "provider":"anthropic","model":"claude-sonnet-4-5","usage":usage,"stopReason":"toolUse","timestamp":t}}));
            // Tool output: mostly about a kilobyte, now and then a whole file or log.
            let n = if s.rng.below(500) == 0 {
                100_000 + s.rng.below(300_000) as usize
            } else {
                s.rng.size(850.0, 2500.0).min(120_000)
            };
            let output = filler(&mut s.rng, n);
            let is_error = s.rng.below(25) == 0;
            let t = s.ms;
            s.entry(
                "message",
                json!({"message":{"role":"toolResult","toolCallId":call_id,"toolName":tool,
                "content":[{"type":"text","text":output}],"isError":is_error,"timestamp":t}}),
            );
        }
        let n = s.rng.size(450.0, 900.0);
        let answer_text = filler(&mut s.rng, n);
        let usage = s.usage();
        let t = s.ms;
        let answer = s.entry("message", json!({"message":{"role":"assistant","content":[{"type":"text","text":answer_text}],
            "api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":usage,"stopReason":"stop","timestamp":t}}));
        since_compaction += s.written - start;
        if s.rng.below(40) == 0 {
            let name = format!("step-{turn}");
            s.entry("label", json!({"targetId":answer,"label":name}));
        }
        // A branch point every thirty-odd turns: back to a recent prompt, keeping a summary.
        if s.rng.below(35) == 0 && path_users.len() > 2 {
            let from = s.parent.clone();
            let at = path_users.len() - 1 - s.rng.below(path_users.len().min(6) as u64) as usize;
            s.parent = Some(path_users[at].clone());
            // The new branch leaves behind the prompts after `at`, and the compactions that
            // came after them.
            path_users.truncate(at + 1);
            while compacted_at.last().is_some_and(|&c| c > at) {
                compacted_at.pop();
            }
            let n = s.rng.size(1200.0, 2000.0);
            let summary = format!("## Goal\n{}", filler(&mut s.rng, n));
            s.entry(
                "branch_summary",
                json!({"fromId": from, "summary": summary,
                "details":{"readFiles":["src/a.rs"],"modifiedFiles":["src/b.rs"]}}),
            );
        }
        // Compaction once the context nears 200k tokens (about 800 KB of text).
        let kept = &path_users[compacted_at.last().copied().unwrap_or(0)..];
        if since_compaction > 800_000 && kept.len() > 4 {
            let keep = kept[kept.len() - 3].clone();
            let n = s.rng.size(3500.0, 4500.0);
            let summary = format!("## Goal\n{}", filler(&mut s.rng, n));
            let tokens = 150_000 + s.rng.below(50_000);
            s.entry(
                "compaction",
                json!({"summary": summary, "firstKeptEntryId": keep, "tokensBefore": tokens,
                "details":{"readFiles":["src/a.rs"],"modifiedFiles":["src/b.rs"]}, "fromHook": false}),
            );
            since_compaction = 0;
            compacted_at.push(path_users.len());
        }
    }
    s.w.flush().unwrap();
    eprintln!(
        "wrote {out}: {} bytes, {} entries ({} bytes a line on average), {turn} turns",
        s.written,
        s.entries,
        s.written / (s.entries + 1)
    );
}

/// An inline image block of `lo..hi` bytes of base64, cut from `pool` at a random place (so
/// that images differ).
fn image_block(rng: &mut Rng, pool: &str, lo: u64, hi: u64) -> Value {
    let n = ((lo + rng.below(hi - lo)) as usize).min(pool.len());
    let at = rng.below((pool.len() - n) as u64 + 1) as usize;
    let mime = ["image/png", "image/jpeg"][rng.below(2) as usize];
    json!({"type": "image", "data": &pool[at..at + n], "mimeType": mime})
}

/// Image-heavy sessions (see the module docs).
pub fn images(size: u64, out: &str, seed: u64) {
    let mut s = Writer::new(out, seed);
    s.entry(
        "model_change",
        json!({"provider":"anthropic","modelId":"claude-sonnet-4-5"}),
    );
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let pool: String = (0..4 << 20).map(|_| B64[s.rng.below(64) as usize] as char).collect();
    let mut users: Vec<String> = Vec::new();
    let (mut branched, mut compacted) = (false, false);
    let mut turn = 0u64;
    while s.written < size {
        turn += 1;
        let n = s.rng.size(110.0, 220.0);
        let mut content = vec![json!({"type":"text","text":filler(&mut s.rng, n)})];
        if s.rng.below(3) == 0 {
            content.push(image_block(&mut s.rng, &pool, 150_000, 1_500_000));
        }
        let t = s.ms;
        users.push(s.entry(
            "message",
            json!({"message":{"role":"user","content":content,"timestamp":t}}),
        ));
        for c in 0..1 + s.rng.below(4) {
            let call_id = format!("toolu_{turn:06}_{c}_{}", s.rng.id());
            let (tool, output) = match s.rng.below(20) {
                0..5 => ("read", image_block(&mut s.rng, &pool, 100_000, 800_000)),
                5 => {
                    let n = 200_000 + s.rng.below(1_800_000) as usize;
                    ("fetch", json!({"type":"text","text":filler(&mut s.rng, n)}))
                }
                _ => {
                    let n = s.rng.size(850.0, 2500.0).min(60_000);
                    ("bash", json!({"type":"text","text":filler(&mut s.rng, n)}))
                }
            };
            let (usage, t) = (s.usage(), s.ms);
            s.entry("message", json!({"message":{"role":"assistant","content":[{"type":"toolCall","id":call_id,"name":tool,
                "arguments":{"path":"shot.png"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",
                "usage":usage,"stopReason":"toolUse","timestamp":t}}));
            let t = s.ms;
            s.entry(
                "message",
                json!({"message":{"role":"toolResult","toolCallId":call_id,"toolName":tool,
                "content":[output],"isError":false,"timestamp":t}}),
            );
        }
        let n = s.rng.size(450.0, 900.0);
        let (text, usage, t) = (filler(&mut s.rng, n), s.usage(), s.ms);
        s.entry("message", json!({"message":{"role":"assistant","content":[{"type":"text","text":text}],
            "api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":usage,"stopReason":"stop","timestamp":t}}));
        // The abandoned branch: a third of the way in, back to the prompt five turns before.
        if !branched && s.written > size / 3 && users.len() > 6 {
            s.parent = Some(users[users.len() - 6].clone());
            users.truncate(users.len() - 5);
            branched = true;
        }
        // One compaction late, keeping the last three turns.
        if !compacted && s.written > size / 5 * 4 && users.len() > 4 {
            let keep = users[users.len() - 3].clone();
            let summary = format!("## Goal\n{}", filler(&mut s.rng, 4000));
            s.entry(
                "compaction",
                json!({"summary": summary, "firstKeptEntryId": keep, "tokensBefore": 180_000, "fromHook": false}),
            );
            compacted = true;
        }
    }
    s.w.flush().unwrap();
    eprintln!("wrote {out}: {} bytes, {} entries, {turn} turns", s.written, s.entries);
}

/// The earlier benchmark shape: large tool results in every turn.
pub fn large_entries(size: u64, out: &str, seed: u64) {
    let mut rng = Rng(seed | 1);
    let file = std::fs::File::create(out).expect("create");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    let mut ms: u64 = 1_793_613_600_000;
    let put = |w: &mut BufWriter<std::fs::File>, v: &Value, written: &mut u64| {
        let line = v.to_string();
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        *written += line.len() as u64 + 1;
    };
    let iso = |ms: u64| {
        jiff::Timestamp::from_millisecond(ms as i64)
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    put(
        &mut w,
        &json!({"type":"session","version":3,"id":"0196a0b0-1111-7222-8333-944455556666","timestamp":iso(ms),"cwd":"/home/user/proj"}),
        &mut written,
    );
    let mut parent: Option<String> = None;
    let mut branch_points: Vec<String> = Vec::new();
    let mut turn = 0u64;
    let mut since_compaction: Vec<String> = Vec::new();
    let mut ids = std::collections::HashSet::new();
    let mut entry = |rest: Value,
                     kind: &str,
                     w: &mut BufWriter<std::fs::File>,
                     written: &mut u64,
                     parent: &mut Option<String>,
                     rng: &mut Rng,
                     ms: &mut u64| {
        *ms += 1000 + rng.below(4000);
        let id = fresh_id(rng, &mut ids);
        let mut v = json!({"type": kind, "id": id, "parentId": parent, "timestamp": iso(*ms)});
        for (k, x) in rest.as_object().unwrap() {
            v.as_object_mut().unwrap().insert(k.clone(), x.clone());
        }
        put(w, &v, written);
        *parent = Some(id.clone());
        id
    };
    entry(
        json!({"provider":"anthropic","modelId":"claude-sonnet-4-5"}),
        "model_change",
        &mut w,
        &mut written,
        &mut parent,
        &mut rng,
        &mut ms,
    );
    while written < size {
        turn += 1;
        let m = ms;
        let user = entry(
            json!({"message":{"role":"user","content":[{"type":"text","text":format!("Step {turn}: {}", text(&mut rng, 20))}],"timestamp":m}}),
            "message",
            &mut w,
            &mut written,
            &mut parent,
            &mut rng,
            &mut ms,
        );
        since_compaction.push(user.clone());
        // People go back a few messages to ask again, rarely far.
        branch_points.push(user.clone());
        if branch_points.len() > 8 {
            branch_points.remove(0);
        }
        let calls = 1 + rng.below(3);
        for c in 0..calls {
            let call_id = format!("toolu_{turn}_{c}");
            let tool = ["read", "bash", "edit", "write"][rng.below(4) as usize];
            let args = json!({"path": format!("src/mod_{}.rs", rng.below(50)), "command": "cargo test"});
            let m = ms;
            entry(
                json!({"message":{
                "role":"assistant","content":[{"type":"thinking","thinking":text(&mut rng, 30)},{"type":"text","text":text(&mut rng, 15)},
                {"type":"toolCall","id":call_id,"name":tool,"arguments":args}],
                "api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",
                "usage":{"input":1000 + rng.below(100000),"output":rng.below(2000),"cacheRead":rng.below(50000),"cacheWrite":0,"totalTokens":1000,
                "cost":{"input":0.003,"output":0.0012000000000000001,"cacheRead":0.0,"cacheWrite":0,"total":0.0042}},
                "stopReason":"toolUse","timestamp":m}}),
                "message",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            let lines = 20 + rng.below(600) as usize;
            let m = ms;
            entry(
                json!({"message":{
                "role":"toolResult","toolCallId":call_id,"toolName":tool,"content":[{"type":"text","text":code(&mut rng, lines)}],
                "isError":rng.below(20) == 0,"timestamp":m}}),
                "message",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
        }
        let m = ms;
        let answer = entry(
            json!({"message":{
            "role":"assistant","content":[{"type":"text","text":text(&mut rng, 60)}],"api":"anthropic-messages","provider":"anthropic",
            "model":"claude-sonnet-4-5","usage":{"input":2000,"output":300,"cacheRead":0,"cacheWrite":0,"totalTokens":2300,
            "cost":{"input":0.006,"output":0.0045,"cacheRead":0,"cacheWrite":0,"total":0.0105}},"stopReason":"stop","timestamp":m}}),
            "message",
            &mut w,
            &mut written,
            &mut parent,
            &mut rng,
            &mut ms,
        );
        if rng.below(15) == 0 {
            let target = answer.clone();
            let name = format!("step-{turn}");
            let leaf = parent.clone();
            entry(
                json!({"targetId":target,"label":name}),
                "label",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            let _ = leaf;
        }
        if rng.below(10) == 0 {
            entry(
                json!({"thinkingLevel": (["low","medium","high"][rng.below(3) as usize])}),
                "thinking_level_change",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
        }
        // An abandoned branch now and then: go back to an earlier user message with a summary.
        if rng.below(25) == 0 && !branch_points.is_empty() {
            let from = parent.clone().unwrap();
            let back = branch_points[rng.below(branch_points.len() as u64) as usize].clone();
            parent = Some(back);
            entry(
                json!({
                "fromId": from, "summary": format!("## Goal\n{}", text(&mut rng, 40)),
                "details":{"readFiles":["src/a.rs"],"modifiedFiles":["src/b.rs"]}}),
                "branch_summary",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            since_compaction.clear();
        }
        if since_compaction.len() > 12 {
            let keep = since_compaction[since_compaction.len() - 5].clone();
            entry(
                json!({
                "summary": format!("## Goal\n{}\n\n## Progress\n{}", text(&mut rng, 50), text(&mut rng, 80)),
                "firstKeptEntryId": keep, "tokensBefore": 150000 + rng.below(50000),
                "details":{"readFiles":["src/a.rs"],"modifiedFiles":["src/b.rs"]}, "fromHook": false}),
                "compaction",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            since_compaction.clear();
        }
    }
    w.flush().unwrap();
    eprintln!("wrote {out}: {written} bytes, {turn} turns");
}
