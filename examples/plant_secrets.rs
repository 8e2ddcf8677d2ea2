//! Writes a Pi 1.6.0 session file (format v3) with a fake, format-valid secret planted in
//! every place a session holds strings, and a manifest of what was planted where: the test
//! data of `pi-session secrets` and `pi-session redact` (issue 14).
//!
//! Places: the system prompt's sections, user messages (string content and a text block),
//! assistant text, thinking (a block with a `thinkingSignature`), tool-call arguments (bash
//! `command`, write `content`, edit `newText`), tool results (content text and `details`),
//! `bashExecution` messages (`command` and `output`), a `custom` entry's `data`, a
//! `custom_message`'s `content`, a compaction's and a branch summary's `summary`, a
//! `session_info` name, a `label`, a `context_edit` replacement, and a string that holds
//! JSON (so the secret is escaped twice in the file).
//!
//! Beside them, near-misses that must yield no finding: placeholders, Stripe test keys, the
//! AWS documentation's example keys, UUIDs, git SHAs, a sha256, tool-call and response ids,
//! thinking signatures (one of a redacted thinking block) and a PNG image in base64.
//!
//! The manifest has one JSON object a line, in file order:
//! `{"entry": ID, "path": "message.content[2].arguments.command", "rule": RULE, "secret": S}`
//! where `path` names the string within the entry, `secret` is the exact substring of that
//! (decoded) string that `redact` replaces, and `rule` is null for a near-miss. The
//! generator checks every record against the entry before it writes anything.
//!
//! Every value is fake: the random parts come from a seeded xorshift, so one seed always
//! writes the same bytes, and the well-known prefixes are put together at run time so this
//! source holds no key-shaped literal.
//!
//! cargo run --release --example plant_secrets -- --out planted.v3.jsonl --manifest planted.manifest.jsonl [--seed N]

use serde_json::{Value, json};
use std::collections::HashSet;
use std::io::Write;

/// The benchmark generator's xorshift64*, with the draws secrets are made of.
#[allow(dead_code)]
#[path = "gen_session.rs"]
mod gen_session;
use gen_session::Rng;

trait Draw {
    /// `n` characters drawn from `alphabet`.
    fn pick(&mut self, alphabet: &str, n: usize) -> String;
    fn bytes(&mut self, n: usize) -> Vec<u8>;
}

impl Draw for Rng {
    fn pick(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n).map(|_| a[self.below(a.len() as u64) as usize] as char).collect()
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";

fn alnum() -> String {
    [UPPER, LOWER, DIGITS].concat()
}
fn letters() -> String {
    [UPPER, LOWER].concat()
}
fn b64url_chars() -> String {
    [UPPER, LOWER, DIGITS, "-_"].concat()
}
/// RFC 4648 base32: AWS key ids use it after their four-letter prefix.
fn base32_chars() -> String {
    [UPPER, "234567"].concat()
}

/// Base64 (standard alphabet with padding, or URL-safe without).
fn b64(data: &[u8], url: bool) -> String {
    let table: Vec<u8> = if url {
        b64url_chars().into_bytes()
    } else {
        [UPPER, LOWER, DIGITS, "+/"].concat().into_bytes()
    };
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.len();
        let v =
            (chunk[0] as u32) << 16 | (*chunk.get(1).unwrap_or(&0) as u32) << 8 | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= n {
                out.push(table[(v >> (18 - 6 * i) & 63) as usize] as char);
            } else if !url {
                out.push('=');
            }
        }
    }
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A real 16×16 PNG of random pixels (zlib stored blocks): base64 data as high in entropy as
/// a screenshot's, which a scanner must not take for a secret.
fn png(rng: &mut Rng) -> Vec<u8> {
    let (w, h) = (16u32, 16u32);
    let mut raw = Vec::new();
    for _ in 0..h {
        raw.push(0u8); // filter: none
        raw.extend(rng.bytes(w as usize * 3));
    }
    let mut z = vec![0x78, 0x01, 0x01];
    z.extend((raw.len() as u16).to_le_bytes());
    z.extend((!(raw.len() as u16)).to_le_bytes());
    z.extend(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + x as u32) % 65521;
        b = (b + a) % 65521;
    }
    z.extend((b << 16 | a).to_be_bytes());
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut chunk = |kind: &[u8], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let mut c = kind.to_vec();
        c.extend(data);
        out.extend(&c);
        out.extend(crc32(&c).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend(w.to_be_bytes());
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]); // 8 bits, RGB
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &z);
    chunk(b"IEND", &[]);
    out
}

/// The fake secrets, one maker per kind. Prefixes are joined at run time.
struct Fake(Rng);

impl Fake {
    fn anthropic(&mut self) -> String {
        let body = self.0.pick(&b64url_chars(), 92) + &self.0.pick(&alnum(), 1);
        ["sk", "ant", "api03", &body].join("-") + "AA"
    }
    /// The marker in the middle of OpenAI keys is "OpenAI" in base64.
    fn openai_project(&mut self) -> String {
        let marker = b64(b"OpenAI", false);
        let a = self.0.pick(&b64url_chars(), 74);
        // The key ends on a word character (the rule's `\b`).
        let b = self.0.pick(&b64url_chars(), 73) + &self.0.pick(&alnum(), 1);
        ["sk", "proj", &(a + &marker + &b)].join("-")
    }
    fn openai_legacy(&mut self) -> String {
        let marker = b64(b"OpenAI", false);
        [
            "sk",
            &(self.0.pick(&alnum(), 20) + &marker + &self.0.pick(&alnum(), 20)),
        ]
        .join("-")
    }
    fn aws_key_id(&mut self) -> String {
        ["AK", "IA"].concat() + &self.0.pick(&base32_chars(), 16)
    }
    fn aws_secret(&mut self) -> String {
        self.0.pick(&[alnum().as_str(), "+/"].concat(), 40)
    }
    fn github_pat(&mut self) -> String {
        ["gh", "p_"].concat() + &self.0.pick(&alnum(), 36)
    }
    fn github_fine_grained(&mut self) -> String {
        ["github", "pat", &self.0.pick(&alnum(), 22), &self.0.pick(&alnum(), 59)].join("_")
    }
    /// `kind` is "s" (installation token) or "u" (user-to-server token).
    fn github_app(&mut self, kind: &str) -> String {
        ["gh", kind, "_"].concat() + &self.0.pick(&alnum(), 36)
    }
    fn gitlab(&mut self) -> String {
        ["gl", "pat-"].concat() + &self.0.pick(&alnum(), 20)
    }
    fn slack_bot(&mut self) -> String {
        let team = self.0.pick(DIGITS, 12);
        let bot = self.0.pick(DIGITS, 13);
        ["xo", "xb"].concat() + "-" + &[team, bot, self.0.pick(&alnum(), 24)].join("-")
    }
    fn stripe(&mut self, mode: &str) -> String {
        ["sk", mode, &self.0.pick(&alnum(), 24)].join("_")
    }
    fn gcp(&mut self) -> String {
        let body = self.0.pick(&b64url_chars(), 32) + &self.0.pick(&alnum(), 1);
        ["AI", "za", "Sy"].concat() + &body
    }
    fn npm(&mut self) -> String {
        ["np", "m_"].concat() + &self.0.pick(&alnum(), 36)
    }
    /// A PyPI token is `pypi-` and a base64url macaroon whose location is "pypi.org".
    fn pypi(&mut self) -> String {
        let mut mac = vec![0x02, 0x01, 0x08];
        mac.extend(b"pypi.org");
        mac.push(0x02);
        mac.push(0x24);
        mac.extend(self.0.bytes(110));
        ["py", "pi-"].concat() + &b64(&mac, true)
    }
    fn huggingface(&mut self) -> String {
        ["h", "f_"].concat() + &self.0.pick(&letters(), 34)
    }
    fn private_key(&mut self) -> String {
        // DER of an RSA key starts 30 82 04 a4 02 01 00 02 82 01 01 00 ("MIIEpAIBAAKCAQEA").
        let mut der = vec![0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00];
        der.extend(self.0.bytes(624));
        let body = b64(&der, false);
        let lines: Vec<&str> = body
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        let label = ["RSA", "PRIVATE", "KEY"].join(" ");
        format!(
            "-----{} {label}-----\n{}\n-----END {label}-----",
            ["BEG", "IN"].concat(),
            lines.join("\n")
        )
    }
    fn jwt(&mut self) -> String {
        let header = b64(br#"{"alg":"HS256","typ":"JWT"}"#, true);
        let payload = format!(
            r#"{{"sub":"fixture-user-{}","scope":"deploy:staging","iat":1794300000,"exp":1794303600}}"#,
            self.0.below(100_000)
        );
        let sig = self.0.bytes(32);
        [header, b64(payload.as_bytes(), true), b64(&sig, true)].join(".")
    }
    fn password(&mut self) -> String {
        self.0.pick(&alnum(), 28)
    }
    // Near-miss shapes.
    fn uuid(&mut self) -> String {
        let h = self.0.pick(HEX, 32);
        format!("{}-{}-4{}-a{}-{}", &h[..8], &h[8..12], &h[13..16], &h[17..20], &h[20..])
    }
    fn sha1(&mut self) -> String {
        self.0.pick(HEX, 40)
    }
    fn sha256(&mut self) -> String {
        self.0.pick(HEX, 64)
    }
    fn tool_call_id(&mut self) -> String {
        "toolu_01".to_string() + &self.0.pick(&alnum(), 22)
    }
    fn response_id(&mut self) -> String {
        "msg_01".to_string() + &self.0.pick(&alnum(), 22)
    }
    /// An opaque provider signature, as Anthropic's thinking signatures look (base64 of a
    /// protobuf that starts 0x12).
    fn signature(&mut self, bytes: usize) -> String {
        let mut v = vec![0x12];
        v.extend(self.0.bytes(bytes));
        b64(&v, false)
    }
}

/// One planted value: a secret (`rule` set) or a near-miss (`rule` None).
struct Plant {
    entry: String,
    path: String,
    rule: Option<&'static str>,
    secret: String,
}

struct Session {
    lines: Vec<Value>,
    manifest: Vec<Plant>,
    ids: HashSet<String>,
    ms: u64,
    parent: Option<String>,
    rng: Rng,
    /// Plants of the entry about to be written: (path, rule, value).
    pending: Vec<(String, Option<&'static str>, String)>,
}

impl Session {
    fn plant(&mut self, path: &str, rule: Option<&'static str>, secret: &str) {
        self.pending.push((path.to_string(), rule, secret.to_string()));
    }

    fn next_id(&mut self) -> String {
        loop {
            let id = format!("{:08x}", self.rng.next_u64() as u32);
            if self.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    /// Appends an entry (base fields first, as Pi writes most entries) under the current
    /// parent, files the pending plants under its id, and makes it the parent.
    fn entry(&mut self, kind: &str, rest: Value) -> String {
        self.entry_ordered(kind, rest, false)
    }

    /// As `entry`, with the base fields last, as Pi writes `custom` and `custom_message`.
    fn entry_base_last(&mut self, kind: &str, rest: Value) -> String {
        self.entry_ordered(kind, rest, true)
    }

    fn entry_ordered(&mut self, kind: &str, rest: Value, base_last: bool) -> String {
        self.ms += 1000 + self.rng.below(9000);
        let id = self.next_id();
        let mut v = json!({ "type": kind });
        let o = v.as_object_mut().unwrap();
        let base = [
            ("id", json!(id)),
            ("parentId", json!(self.parent)),
            ("timestamp", json!(iso(self.ms))),
        ];
        if !base_last {
            o.extend(base.clone().map(|(k, x)| (k.to_string(), x)));
        }
        o.extend(rest.as_object().unwrap().clone());
        if base_last {
            o.extend(base.map(|(k, x)| (k.to_string(), x)));
        }
        for (path, rule, secret) in self.pending.drain(..) {
            let s = lookup(&v, &path).unwrap_or_else(|| panic!("{id}: no string at {path}"));
            assert!(s.contains(&secret), "{id}: {path} does not hold {secret:?}");
            self.manifest.push(Plant {
                entry: id.clone(),
                path,
                rule,
                secret,
            });
        }
        self.lines.push(v);
        self.parent = Some(id.clone());
        id
    }

    fn usage(&mut self) -> Value {
        let input = 2000 + self.rng.below(30_000);
        let output = 50 + self.rng.below(1500);
        let cost_in = input as f64 * 3e-6;
        let cost_out = output as f64 * 15e-6;
        json!({"input":input,"output":output,"cacheRead":0,"cacheWrite":0,"totalTokens":input + output,
            "cost":{"input":cost_in,"output":cost_out,"cacheRead":0,"cacheWrite":0,"total":cost_in + cost_out}})
    }

    fn assistant(&mut self, content: Value, response_id: &str, stop: &str) -> Value {
        let usage = self.usage();
        json!({"message":{"role":"assistant","content":content,"api":"anthropic-messages","provider":"anthropic",
            "model":"claude-sonnet-4-5","responseId":response_id,"usage":usage,"stopReason":stop,"timestamp":self.ms}})
    }

    fn tool_result(&mut self, call: &str, tool: &str, text: &str, details: Option<Value>) -> Value {
        let mut m = json!({"role":"toolResult","toolCallId":call,"toolName":tool,
            "content":[{"type":"text","text":text}]});
        if let Some(d) = details {
            m["details"] = d;
        }
        m["isError"] = json!(false);
        m["timestamp"] = json!(self.ms);
        json!({ "message": m })
    }
}

/// The string at a path such as `message.content[2].arguments.command` within an entry.
fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    let mut cur = v;
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        cur = cur.get(key)?;
        for idx in rest.split('[') {
            let idx = idx.trim_end_matches(']');
            if !idx.is_empty() {
                cur = cur.get(idx.parse::<usize>().ok()?)?;
            }
        }
    }
    cur.as_str()
}

fn iso(ms: u64) -> String {
    jiff::Timestamp::from_millisecond(ms as i64)
        .unwrap()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

fn build(seed: u64) -> Session {
    let mut f = Fake(Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1));
    let start = 1_794_300_000_000 + (seed % 28) * 86_400_000;
    let mut s = Session {
        lines: Vec::new(),
        manifest: Vec::new(),
        ids: HashSet::new(),
        ms: start,
        parent: None,
        rng: Rng(seed | 1),
        pending: Vec::new(),
    };
    let session_id = f.uuid();
    let cwd = "/home/user/fake-secrets-fixture";
    s.lines
        .push(json!({"type":"session","version":3,"id":session_id,"timestamp":iso(start),"cwd":cwd}));

    s.entry(
        "model_change",
        json!({"provider":"anthropic","modelId":"claude-sonnet-4-5"}),
    );
    s.entry("thinking_level_change", json!({"thinkingLevel":"medium"}));

    // The system prompt, with a project context file that holds a token.
    let npm1 = f.npm();
    let context = format!(
        "<project-context>\n# AGENTS.md\nRelease: CI publishes with NPM_TOKEN={npm1} (never print it).\nRun `npm test` before committing.\n</project-context>"
    );
    s.plant("message.sections.context", Some("npm-token"), &npm1);
    let t = s.ms;
    s.entry(
        "message",
        json!({"message":{"role":"system","content":"","sections":{
            "preamble":"You are an expert coding assistant. You help users by reading files, executing commands, editing code, and writing new files.",
            "context":context,"cwd":cwd},
            "toolsAdded":[
                {"name":"read","description":"Read the contents of a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
                {"name":"bash","description":"Execute a bash command.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}},
                {"name":"edit","description":"Replace text in a file.","parameters":{"type":"object","properties":{"path":{"type":"string"},"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["path","oldText","newText"]}},
                {"name":"write","description":"Write a file.","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}],
            "timestamp":t}}),
    );

    // User, string content: the key is followed by a comma, not a space.
    let ant1 = f.anthropic();
    s.plant("message.content", Some("anthropic-api-key"), &ant1);
    let t = s.ms;
    s.entry(
        "message",
        json!({"message":{"role":"user","content":format!(
            "The staging deploy fails with 401. I set ANTHROPIC_API_KEY to {ant1}, what is wrong?"),"timestamp":t}}),
    );

    // Assistant: thinking with a signature, text with placeholders, a bash call that exports a key.
    let legacy = f.openai_legacy();
    let proj = f.openai_project();
    let sig = f.signature(180);
    let placeholder = ["sk", "ant", "api03", &"x".repeat(93)].join("-") + "AA";
    let call1 = f.tool_call_id();
    let resp = f.response_id();
    s.plant("message.content[0].thinking", Some("openai-api-key"), &legacy);
    s.plant("message.content[0].thinkingSignature", None, &sig);
    s.plant("message.content[1].text", None, &placeholder);
    s.plant("message.content[1].text", None, "${ANTHROPIC_API_KEY}");
    s.plant("message.content[2].arguments.command", Some("openai-api-key"), &proj);
    s.plant("message.content[2].id", None, &call1);
    s.plant("message.responseId", None, &resp);
    let content = json!([
        {"type":"thinking","thinking":format!(
            "The user pasted a key in the chat. The deploy script also reads OPENAI_API_KEY; the old one in their shell history was {legacy} and it was revoked last week. Check what the script exports."),
         "thinkingSignature":sig},
        {"type":"text","text":format!(
            "Never paste real keys into a chat. Keys look like `{placeholder}`; in config files write `${{ANTHROPIC_API_KEY}}` instead. Let me run the deploy script to see the error.")},
        {"type":"toolCall","id":call1,"name":"bash","arguments":{"command":format!(
            "export OPENAI_API_KEY={proj} && ./scripts/deploy.sh --env staging")}}
    ]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);

    let request_id = f.uuid();
    s.plant("message.toolCallId", None, &call1);
    s.plant("message.content[0].text", None, &request_id);
    let m = s.tool_result(
        &call1,
        "bash",
        &format!("deploy: POST https://deploy.internal/v1/releases -> 401 Unauthorized\nrequest-id: {request_id}\nexit status 1"),
        None,
    );
    s.entry("message", m);

    // User, text blocks: a token and a screenshot.
    let ghp = f.github_pat();
    let image = b64(&png(&mut f.0), false);
    s.plant("message.content[0].text", Some("github-pat"), &ghp);
    s.plant("message.content[1].data", None, &image);
    let t = s.ms;
    s.entry(
        "message",
        json!({"message":{"role":"user","content":[
            {"type":"text","text":format!("The script also pushes tags with my GitHub token {ghp} and then this shows up:")},
            {"type":"image","data":image,"mimeType":"image/png"}],"timestamp":t}}),
    );

    // Assistant: a redacted thinking block, text naming a Slack token, a read call.
    let redacted_sig = f.signature(240);
    let slack1 = f.slack_bot();
    let call2 = f.tool_call_id();
    let resp = f.response_id();
    s.plant("message.content[0].thinkingSignature", None, &redacted_sig);
    s.plant("message.content[1].text", Some("slack-token"), &slack1);
    s.plant("message.content[2].id", None, &call2);
    s.plant("message.responseId", None, &resp);
    let content = json!([
        {"type":"thinking","thinking":"","thinkingSignature":redacted_sig,"redacted":true},
        {"type":"text","text":format!(
            "The screenshot also shows the notifier's Slack bot token ({slack1}) in the log; rotate it too. Now the AWS profile the script uses:")},
        {"type":"toolCall","id":call2,"name":"read","arguments":{"path":"~/.aws/credentials"}}
    ]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);

    let aws_id = f.aws_key_id();
    let aws_secret = f.aws_secret();
    let example_id = ["AK", "IA", "IOSFODNN7", "EXAMPLE"].concat();
    let example_secret = ["wJalrXUtnFEMI", "K7MDENG", "bPxRfiCYEXAMPLEKEY"].join("/");
    s.plant("message.toolCallId", None, &call2);
    s.plant("message.content[0].text", Some("aws-access-key-id"), &aws_id);
    s.plant("message.content[0].text", Some("aws-secret-access-key"), &aws_secret);
    s.plant("message.content[0].text", None, &example_id);
    s.plant("message.content[0].text", None, &example_secret);
    let m = s.tool_result(
        &call2,
        "read",
        &format!(
            "[default]\naws_access_key_id = {aws_id}\naws_secret_access_key = {aws_secret}\nregion = eu-west-1\n\n# from the AWS docs, kept as a template\n[docs-example]\naws_access_key_id = {example_id}\naws_secret_access_key = {example_secret}\n"
        ),
        None,
    );
    let creds_read = s.entry("message", m);

    // Assistant writes a .env file: a live Stripe key, a database URL with a password, a
    // password assignment, and placeholders.
    let stripe1 = f.stripe("live");
    let db_password = f.password();
    let url_password = "S3cr3t-P4ss";
    let call3 = f.tool_call_id();
    let resp = f.response_id();
    let env_file = format!(
        "# staging\nOPENAI_API_KEY=${{OPENAI_API_KEY}}\nANTHROPIC_API_KEY=your-api-key-here\nSTRIPE_SECRET_KEY={stripe1}\nDATABASE_URL=postgres://app:{url_password}@db.internal:5432/app\nDB_PASSWORD={db_password}\nLOG_LEVEL=debug\n"
    );
    let p = "message.content[1].arguments.content";
    s.plant(p, None, "${OPENAI_API_KEY}");
    s.plant(p, None, "your-api-key-here");
    s.plant(p, Some("stripe-live-key"), &stripe1);
    s.plant(p, Some("url-password"), url_password);
    s.plant(p, Some("generic-secret-assignment"), &db_password);
    s.plant("message.content[1].id", None, &call3);
    s.plant("message.responseId", None, &resp);
    let content = json!([
        {"type":"text","text":"I'll write a .env for staging that the deploy script can source."},
        {"type":"toolCall","id":call3,"name":"write","arguments":{"path":".env","content":env_file}}
    ]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);
    s.plant("message.toolCallId", None, &call3);
    let m = s.tool_result(
        &call3,
        "write",
        &format!("Successfully wrote {} bytes to .env", env_file.len()),
        None,
    );
    s.entry("message", m);

    // Assistant edits a file: the key is in newText, and again in the result's diff.
    let gcp1 = f.gcp();
    let call4 = f.tool_call_id();
    let resp = f.response_id();
    s.plant("message.content[0].arguments.oldText", None, "your-api-key-here");
    s.plant("message.content[0].arguments.newText", Some("gcp-api-key"), &gcp1);
    s.plant("message.content[0].id", None, &call4);
    s.plant("message.responseId", None, &resp);
    let content = json!([
        {"type":"toolCall","id":call4,"name":"edit","arguments":{"path":"src/firebase.js",
            "oldText":"  apiKey: \"your-api-key-here\",","newText":format!("  apiKey: \"{gcp1}\",")}}
    ]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);
    s.plant("message.toolCallId", None, &call4);
    s.plant("message.details.diff", Some("gcp-api-key"), &gcp1);
    let m = s.tool_result(
        &call4,
        "edit",
        "Successfully replaced text in src/firebase.js.",
        Some(json!({"diff":format!(
            "  const firebaseConfig = {{\n-  apiKey: \"your-api-key-here\",\n+  apiKey: \"{gcp1}\",\n   authDomain: \"fixture.firebaseapp.com\","),
            "firstChangedLine":2})),
    );
    s.entry("message", m);

    // Assistant runs `env`: tokens among plain variables, a commit SHA and a UUID.
    let call5 = f.tool_call_id();
    let resp = f.response_id();
    s.plant("message.content[0].id", None, &call5);
    s.plant("message.responseId", None, &resp);
    let content = json!([{"type":"toolCall","id":call5,"name":"bash","arguments":{"command":"env | sort"}}]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);
    let ghs = f.github_app("s");
    let glpat1 = f.gitlab();
    let commit = f.sha1();
    let run_id = f.uuid();
    s.plant("message.toolCallId", None, &call5);
    let p = "message.content[0].text";
    s.plant(p, None, &commit);
    s.plant(p, Some("github-app-token"), &ghs);
    s.plant(p, Some("gitlab-pat"), &glpat1);
    s.plant(p, None, &run_id);
    let m = s.tool_result(
        &call5,
        "bash",
        &format!(
            "CI=false\nGIT_COMMIT={commit}\nGH_TOKEN={ghs}\nGITLAB_TOKEN={glpat1}\nHOME=/home/user\nLANG=C.UTF-8\nPATH=/usr/local/bin:/usr/bin:/bin\nPI_RUN_ID={run_id}\nSHELL=/bin/bash\n"
        ),
        None,
    );
    s.entry("message", m);

    // A tool result that is JSON holding JSON: the secrets are escaped twice in the file.
    let call6 = f.tool_call_id();
    let resp = f.response_id();
    s.plant("message.content[0].id", None, &call6);
    s.plant("message.responseId", None, &resp);
    let content = json!([{"type":"toolCall","id":call6,"name":"bash","arguments":{
        "command":"aws secretsmanager get-secret-value --secret-id staging/app"}}]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);
    let ant2 = f.anthropic();
    let db_password2 = f.password();
    let version = f.uuid();
    let inner = json!({"ANTHROPIC_API_KEY": ant2, "DB_PASSWORD": db_password2}).to_string();
    let outer = serde_json::to_string_pretty(&json!({
        "ARN": "arn:aws:secretsmanager:eu-west-1:000000000000:secret:staging/app-Ab12Cd",
        "Name": "staging/app",
        "VersionId": version,
        "SecretString": inner,
        "VersionStages": ["AWSCURRENT"],
    }))
    .unwrap();
    s.plant("message.toolCallId", None, &call6);
    let p = "message.content[0].text";
    s.plant(p, None, &version);
    s.plant(p, Some("anthropic-api-key"), &ant2);
    s.plant(p, Some("generic-secret-assignment"), &db_password2);
    let m = s.tool_result(&call6, "bash", &outer, None);
    s.entry("message", m);

    // A private key read from disk.
    let call7 = f.tool_call_id();
    let resp = f.response_id();
    s.plant("message.content[0].id", None, &call7);
    s.plant("message.responseId", None, &resp);
    let content = json!([{"type":"toolCall","id":call7,"name":"read","arguments":{"path":"deploy/id_rsa"}}]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);
    let pem = f.private_key();
    s.plant("message.toolCallId", None, &call7);
    s.plant("message.content[0].text", Some("private-key"), &pem);
    let m = s.tool_result(&call7, "read", &format!("{pem}\n"), None);
    let branch_point = s.entry("message", m);

    // An abandoned branch: a publish attempt with hashes in its output.
    let t = s.ms;
    s.entry(
        "message",
        json!({"message":{"role":"user","content":"Publish the package to npm first.","timestamp":t}}),
    );
    let call8 = f.tool_call_id();
    let resp = f.response_id();
    s.plant("message.content[0].id", None, &call8);
    s.plant("message.responseId", None, &resp);
    let content = json!([{"type":"toolCall","id":call8,"name":"bash","arguments":{
        "command":"sha256sum dist/app-1.4.2.tgz && git rev-parse HEAD && npm publish dist/app-1.4.2.tgz"}}]);
    let m = s.assistant(content, &resp, "toolUse");
    s.entry("message", m);
    let digest = f.sha256();
    let head = f.sha1();
    s.plant("message.toolCallId", None, &call8);
    s.plant("message.content[0].text", None, &digest);
    s.plant("message.content[0].text", None, &head);
    let m = s.tool_result(
        &call8,
        "bash",
        &format!("{digest}  dist/app-1.4.2.tgz\n{head}\nnpm ERR! code E403\nnpm ERR! 403 Forbidden - PUT https://registry.npmjs.org/app"),
        None,
    );
    let abandoned = s.entry("message", m);

    let npm2 = f.npm();
    s.plant("summary", Some("npm-token"), &npm2);
    s.parent = Some(branch_point);
    s.entry(
        "branch_summary",
        json!({"fromId":abandoned,"summary":format!(
            "## Goal\nPublish the package to npm.\n\n## Progress\n### Done\n- [x] Tried `npm publish` with NPM_TOKEN={npm2} from ~/.npmrc: 403 Forbidden.\n\n<modified-files>\n</modified-files>")}),
    );

    // Commands the user ran directly (`!cmd`).
    let hf = f.huggingface();
    s.plant("message.command", Some("huggingface-token"), &hf);
    let t = s.ms;
    let first_kept = s.entry(
        "message",
        json!({"message":{"role":"bashExecution","command":format!("export HF_TOKEN={hf} && huggingface-cli whoami"),
            "output":"fixture-user\n","exitCode":0,"cancelled":false,"truncated":false,"timestamp":t}}),
    );
    let pypi = f.pypi();
    s.plant("message.output", Some("pypi-token"), &pypi);
    let t = s.ms;
    s.entry(
        "message",
        json!({"message":{"role":"bashExecution","command":"cat ~/.pypirc",
            "output":format!("[distutils]\nindex-servers =\n    pypi\n\n[pypi]\nusername = __token__\npassword = {pypi}\n"),
            "exitCode":0,"cancelled":false,"truncated":false,"timestamp":t}}),
    );

    // Extension state and an extension's message.
    let ghu = f.github_app("u");
    s.plant("data.accessToken", Some("github-app-token"), &ghu);
    s.entry_base_last(
        "custom",
        json!({"customType":"oauth-cache","data":{"provider":"github","login":"fixture-user","accessToken":ghu,"expiresAt":1794328800000u64}}),
    );
    let jwt = f.jwt();
    s.plant("content", Some("jwt"), &jwt);
    s.entry_base_last(
        "custom_message",
        json!({"customType":"vault-sync","content":format!(
            "Refreshed the staging session token: {jwt} (expires in 1h)."),"display":true,"details":{"source":"vault"}}),
    );

    // Compaction, whose summary keeps a token.
    let fine = f.github_fine_grained();
    s.plant("summary", Some("github-fine-grained-pat"), &fine);
    s.entry(
        "compaction",
        json!({"summary":format!(
            "## Goal\nFix the staging deploy (401 Unauthorized).\n\n## Progress\n### Done\n- [x] Wrote .env and src/firebase.js\n- [x] Release workflow uses GITHUB_TOKEN={fine}\n\n## Next Steps\n1. Rotate every key seen in this session"),
            "firstKeptEntryId":first_kept,"tokensBefore":48213,
            "details":{"readFiles":["~/.aws/credentials","deploy/id_rsa"],"modifiedFiles":[".env","src/firebase.js"]}}),
    );

    // The session's name, a label, and a context edit.
    let aws_id2 = f.aws_key_id();
    s.plant("name", Some("aws-access-key-id"), &aws_id2);
    s.entry(
        "session_info",
        json!({"name":format!("staging 401: rotate {aws_id2} and friends")}),
    );
    let stripe2 = f.stripe("live");
    s.plant("label", Some("stripe-live-key"), &stripe2);
    s.entry(
        "label",
        json!({"targetId":creds_read,"label":format!("leaked {stripe2} here")}),
    );
    let slack2 = f.slack_bot();
    let target = s.lines[4]["id"].as_str().unwrap().to_string();
    s.plant("replacement.content", Some("slack-token"), &slack2);
    s.entry(
        "context_edit",
        json!({"targetId":target,"replacement":{"content":format!(
            "The staging deploy fails with 401 (key removed). The notifier token is {slack2} if you need it.")}}),
    );

    // Last turn: near-misses only.
    let stripe_test = f.stripe("test");
    let uuid = f.uuid();
    let t = s.ms;
    s.plant("message.content", None, &stripe_test);
    s.plant("message.content", None, &uuid);
    s.entry(
        "message",
        json!({"message":{"role":"user","content":format!(
            "Which of these may stay in the repo: the Stripe test key {stripe_test} in tests/, and the fixture id {uuid}?"),
            "timestamp":t}}),
    );
    let resp = f.response_id();
    s.plant("message.content[0].text", None, &stripe_test);
    s.plant("message.content[0].text", None, "your-api-key-here");
    s.plant("message.content[0].text", None, &head);
    s.plant("message.responseId", None, &resp);
    let content = json!([{"type":"text","text":format!(
        "Both may stay: {stripe_test} is a test-mode key, the id is a UUID, and placeholders such as `your-api-key-here` are fine. Commit {head} holds no secret; every live key above must be rotated.")}]);
    let m = s.assistant(content, &resp, "stop");
    s.entry("message", m);
    s
}

/// Writes a session with secrets planted in it, and a manifest of them.
#[derive(clap::Parser)]
#[command(name = "plant_secrets")]
struct Cli {
    /// The session file to write.
    #[arg(long, default_value = "planted.v3.jsonl")]
    out: String,
    /// Also write one JSON record per planted value here.
    #[arg(long)]
    manifest: Option<String>,
    /// The seed of the generator: the same seed writes the same file.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() {
    let Cli { out, manifest, seed } = <Cli as clap::Parser>::parse();
    let s = build(seed);
    let mut w = std::io::BufWriter::new(std::fs::File::create(&out).expect("create --out"));
    for v in &s.lines {
        writeln!(w, "{v}").unwrap();
    }
    w.flush().unwrap();
    if let Some(path) = &manifest {
        let mut w = std::io::BufWriter::new(std::fs::File::create(path).expect("create --manifest"));
        for p in &s.manifest {
            let v = json!({"entry":p.entry,"path":p.path,"rule":p.rule,"secret":p.secret});
            writeln!(w, "{v}").unwrap();
        }
        w.flush().unwrap();
    }
    let secrets = s.manifest.iter().filter(|p| p.rule.is_some()).count();
    eprintln!(
        "wrote {out}: {} entries, {secrets} secrets and {} near-misses planted",
        s.lines.len() - 1,
        s.manifest.len() - secrets
    );
}
