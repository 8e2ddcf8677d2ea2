//! The verdicts `check` reached on each session file, kept between runs ([`crate::file_cache`],
//! the cache behind `ls` and `usage`) so that checking a project's unchanged sessions again
//! costs a `stat` per file. A record is used only for the same version of the file, written
//! by the same build, under the same policy: the policy, the credential rules and the home
//! directory the tool paths were resolved with are hashed into the cache's probe, so a cache
//! written under another policy is not used (and is replaced by this run's).

use super::{Context, Offender, Policy, RULES, Verdict};
use crate::file_cache::{FileCache, Reader, Stamp, Writer, key};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;

const MAGIC: &[u8] = b"pi-session check cache 1\n";

/// What the verdicts depend on besides the file and the build.
fn probe(policy: &Policy, cx: &Context<'_>) -> u128 {
    let mut h = Sha256::new();
    h.update(format!("{policy:?}\0{:?}\0", cx.home));
    if let Some(rules) = cx.secrets.filter(|_| policy.no_secrets) {
        h.update(rules.fingerprint());
    }
    let digest: [u8; 32] = h.finalize().into();
    u128::from_le_bytes(digest[..16].try_into().expect("16 bytes"))
}

pub struct Cache(FileCache);

impl Cache {
    /// The cache kept in `file` for this policy: empty when there is none, it cannot be
    /// used, or it was written under another policy.
    pub fn open(file: &Path, policy: &Policy, cx: &Context<'_>) -> Cache {
        Cache(FileCache::open(file, MAGIC, probe(policy, cx)))
    }

    /// The verdicts recorded for this version of the session file `path`.
    pub fn get(&self, path: &Path, stamp: Option<Stamp>) -> Option<Vec<Verdict>> {
        let mut r = self.0.get(&key(path), stamp)?;
        let n = r.u32()?;
        let verdicts = (0..n).map(|_| read_verdict(&mut r)).collect::<Option<Vec<_>>>()?;
        r.done().then_some(verdicts)
    }

    /// Records the verdicts reached on a version of `path` (not when it changed moments ago).
    pub fn record(&mut self, path: &Path, stamp: Stamp, verdicts: &[Verdict]) {
        self.0.record(&key(path), stamp, |w| {
            w.u32(verdicts.len() as u32);
            for v in verdicts {
                write_verdict(w, v);
            }
        });
    }

    /// Writes the cache file when something new was recorded (best effort).
    pub fn save(self) {
        self.0.save();
    }
}

fn write_verdict(w: &mut Writer, v: &Verdict) {
    w.str(v.rule);
    w.str(&v.limit.to_string());
    w.str(&v.value.to_string());
    w.u8(u8::from(v.pass));
    w.u32(v.entries.len() as u32);
    for o in &v.entries {
        w.opt(o.id.as_deref());
        w.u32(o.line);
        w.str(&o.note);
    }
}

fn read_verdict(r: &mut Reader) -> Option<Verdict> {
    let name = r.str()?;
    let rule = *RULES.iter().find(|&&known| known == name)?;
    let json = |s: &str| serde_json::from_str::<Value>(s).ok();
    let limit = json(r.str()?)?;
    let value = json(r.str()?)?;
    let pass = r.u8()? == 1;
    let n = r.u32()?;
    let entries = (0..n)
        .map(|_| {
            Some(Offender {
                id: r.opt()?.map(str::to_owned),
                line: r.u32()?,
                note: r.str()?.to_owned(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Verdict {
        rule,
        limit,
        value,
        pass,
        entries,
    })
}
