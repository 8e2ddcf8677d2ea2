//! Interop with Pi 1.6.0 for the session store: the name `name` writes is the name Pi reads
//! (`getSessionName`, and `/resume`'s listing), and the sessions `mv` moved are the ones Pi
//! lists for the new directory (`SessionManager.list`), opened without a change.

use crate::common;

use common::oracle::{oracle_module_dir, run_oracle};
use common::{cmd, example, run_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Pi's `SessionManager.list(cwd)` with the agent dir `agent`: [{path, id, cwd, name,
/// messageCount}], and for each listed file whether `SessionManager.open` changed its bytes.
fn pi_list(agent: &Path, cwd: &Path) -> Option<Vec<Value>> {
    let module = oracle_module_dir()?;
    let script = r#"
        import { pathToFileURL } from "node:url";
        import { join } from "node:path";
        import { readFileSync } from "node:fs";
        const [dir, cwd] = process.argv.slice(1);
        const m = await import(pathToFileURL(join(dir, "dist/core/session-manager.js")).href);
        const out = [];
        for (const s of await m.SessionManager.list(cwd)) {
            const before = readFileSync(s.path);
            const sm = m.SessionManager.open(s.path);
            const unchanged = Buffer.compare(before, readFileSync(s.path)) === 0;
            out.push({ path: s.path, id: s.id, cwd: s.cwd, name: s.name ?? null, messageCount: s.messageCount,
                       entries: sm.getEntries().length, sessionName: sm.getSessionName() ?? null, unchanged });
        }
        process.stdout.write(JSON.stringify(out));
    "#;
    let mut command = std::process::Command::new("node");
    command
        .args(["--input-type=module", "-e", script])
        .arg(&module)
        .arg(cwd)
        .env("PI_CODING_AGENT_DIR", agent);
    let out = common::ccusage::run(command, "Pi SessionManager.list");
    Some(serde_json::from_str(&out).unwrap())
}

#[test]
fn pi_reads_the_name_that_name_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::copy(example(), &file).unwrap();
    for name in ["  Port the\r\nparser ", "ünïcödé \u{1F600} name", ""] {
        if name.is_empty() {
            run_ok(&file, &["name", "--clear", "--force"]);
        } else {
            run_ok(&file, &["name", name, "--force"]);
        }
        let Some(pi) = run_oracle(&file, &[]) else { return };
        assert_eq!(pi["rewritten"], false, "Pi opens the file unchanged");
        // (Status 1 when there is no name; the record is printed all the same.)
        let ours = cmd().arg("-s").arg(&file).args(["name", "--json"]).output().unwrap();
        let ours: Value = serde_json::from_slice(&ours.stdout).unwrap();
        assert_eq!(pi["sessionName"], ours["name"], "after naming it {name:?}");
    }
}

#[test]
fn pi_lists_moved_sessions_under_the_new_directory() {
    let home = tempfile::tempdir().unwrap();
    let agent = home.path().join("agent");
    let (old, new) = (home.path().join("old"), home.path().join("new"));
    std::fs::create_dir_all(&old).unwrap();
    std::fs::create_dir_all(&new).unwrap();
    let encoded = |p: &Path| {
        format!(
            "--{}--",
            p.display().to_string().trim_start_matches('/').replace('/', "-")
        )
    };
    let folder = agent.join("sessions").join(encoded(&old));
    std::fs::create_dir_all(&folder).unwrap();
    let text = std::fs::read_to_string(example()).unwrap();
    let mut lines = text.lines();
    let mut header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["cwd"] = Value::from(old.display().to_string());
    let rest: String = lines.map(|l| format!("{l}\n")).collect();
    let files: Vec<PathBuf> = ["2026-01-01T00-00-00-000Z_a.jsonl", "2026-01-02T00-00-00-000Z_b.jsonl"]
        .iter()
        .map(|n| {
            let p = folder.join(n);
            std::fs::write(&p, format!("{header}\n{rest}")).unwrap();
            let f = std::fs::File::options().append(true).open(&p).unwrap();
            f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
                .unwrap();
            p
        })
        .collect();
    let Some(before) = pi_list(&agent, &old) else { return };
    assert_eq!(before.len(), 2);
    let out = cmd()
        .current_dir(home.path())
        .env("PI_CODING_AGENT_DIR", &agent)
        .args(["mv", "--from", old.to_str().unwrap(), "--to", new.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let moved: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(agent.join("sessions").join(encoded(&new)).join(f.file_name().unwrap())).unwrap())
        .collect();
    let after = pi_list(&agent, &new).unwrap();
    assert_eq!(after.len(), 2, "{after:?}");
    assert!(
        pi_list(&agent, &old).unwrap().is_empty(),
        "nothing left under the old directory"
    );
    for (theirs, was) in after.iter().zip(&before) {
        assert_eq!(theirs["cwd"], new.display().to_string());
        assert_eq!(theirs["unchanged"], true, "Pi opens {} unchanged", theirs["path"]);
        for key in ["id", "name", "messageCount"] {
            assert_eq!(theirs[key], was[key], "{key}");
        }
    }
    // Opening them did not change a byte.
    for (f, bytes) in files.iter().zip(&moved) {
        let path = agent.join("sessions").join(encoded(&new)).join(f.file_name().unwrap());
        assert_eq!(&std::fs::read(&path).unwrap(), bytes);
    }
}
