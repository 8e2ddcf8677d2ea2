//! Summaries from a local command: `--summarizer 'CMD'` runs CMD through the shell with the
//! whole request on stdin and takes its stdout as the summary.

use crate::llm::{LlmError, Summarizer, SummaryRequest, SummaryResponse, Usage};
use std::io::Write;
use std::process::{Command, Stdio};

pub struct CommandSummarizer {
    pub command: String,
}

impl CommandSummarizer {
    /// The text a command receives: the system prompt, a blank line, the prompt.
    pub fn input(request: &SummaryRequest) -> String {
        format!("{}\n\n{}", request.system, request.prompt)
    }
}

impl Summarizer for CommandSummarizer {
    fn summarize(&self, request: &SummaryRequest) -> Result<SummaryResponse, LlmError> {
        let shell = if cfg!(windows) { ("cmd", "/C") } else { ("sh", "-c") };
        let mut child = Command::new(shell.0)
            .arg(shell.1)
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| LlmError::Config(format!("cannot run the summarizer command: {e}")))?;
        let input = Self::input(request);
        let mut stdin = child.stdin.take().expect("piped stdin");
        // Write on a thread: a command that prints before reading all its input must not
        // deadlock against us.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(input.as_bytes());
        });
        let out = child
            .wait_with_output()
            .map_err(|e| LlmError::Config(format!("the summarizer command failed: {e}")))?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(LlmError::BadResponse {
                provider: "summarizer command".into(),
                message: format!("it exited with {}", out.status),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout).trim_end().to_owned();
        if text.trim().is_empty() {
            return Err(LlmError::BadResponse {
                provider: "summarizer command".into(),
                message: "it printed nothing".into(),
            });
        }
        Ok(SummaryResponse {
            text,
            usage: Usage::default(),
        })
    }

    fn describe(&self) -> String {
        format!("command `{}`", self.command)
    }
}
