//! The HTTP side: [`ProviderSummarizer`] sends one non-streaming request with reqwest
//! (blocking, rustls), retries 429, 5xx and connection failures with exponential backoff
//! (honouring `Retry-After`), reports its waits to the caller's [`Progress`], and stops
//! waiting when the caller's [`Cancel`] is set (nothing is written then).
//!
//! One overall deadline ([`HttpOptions::deadline`], `--timeout` / `PI_SESSION_LLM_TIMEOUT`)
//! bounds all attempts and waits together: a provider that never answers cannot hold a
//! command for the sum of its per-request timeouts and backoffs. An answer larger than
//! [`MAX_ANSWER_BYTES`], or a summary larger than [`MAX_SUMMARY_BYTES`], is refused (nothing
//! is written): no real summary is that large, and it would become one huge session line.
//!
//! Environment overrides (mainly for tests): `PI_SESSION_HTTP_TIMEOUT_MS` (request timeout),
//! `PI_SESSION_RETRY_BASE_MS` (first backoff delay).

use super::auth::{Credential, Secret};
use super::models::{Api, ModelInfo};
use super::settings::RetrySettings;
use super::wire::{WireRequest, bad_response, clamp_max_tokens, estimate_input_tokens, excerpt, set_header};
use super::{LlmError, Summarizer, SummaryRequest, SummaryResponse, anthropic, gemini, openai};
use crate::progress::{Cancel, Progress, Silent};
use reqwest::header::HeaderMap;
use serde_json::Value;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Pi's HTTP idle timeout; a non-streaming answer arrives all at once.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(300);
pub const ENV_HTTP_TIMEOUT_MS: &str = "PI_SESSION_HTTP_TIMEOUT_MS";
pub const ENV_RETRY_BASE_MS: &str = "PI_SESSION_RETRY_BASE_MS";
/// How long a summary may take in all, retries and waits included.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);
/// The largest answer body read from a provider.
pub const MAX_ANSWER_BYTES: u64 = 4 << 20;
/// The largest summary text accepted.
pub const MAX_SUMMARY_BYTES: usize = 1 << 20;

/// The message of an error body: `error.message` (with `error.type` / `error.status`), else
/// `message`, else the raw text.
fn error_body_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        // Some gateways answer with an array holding one error object.
        let v = v.as_array().and_then(|a| a.first()).cloned().unwrap_or(v);
        let err = v.get("error").unwrap_or(&v);
        if let Some(msg) = err.get("message").and_then(Value::as_str) {
            let kind = err
                .get("type")
                .or_else(|| err.get("status"))
                .or_else(|| err.get("code"))
                .and_then(|k| match k {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                });
            return match kind {
                Some(k) if !msg.contains(&k) => excerpt(&format!("{k}: {msg}")),
                _ => excerpt(msg),
            };
        }
        if let Some(s) = err.as_str() {
            return excerpt(s);
        }
    }
    if text.trim().is_empty() {
        "(empty body)".into()
    } else {
        excerpt(&text)
    }
}

/// Replaces every occurrence of a secret in `text` by `***`.
fn redact(text: String, secrets: &[&Secret]) -> String {
    secrets
        .iter()
        .filter(|s| s.expose().len() >= 4)
        .fold(text, |t, s| t.replace(s.expose(), "***"))
}

fn redact_error(err: LlmError, secrets: &[&Secret]) -> LlmError {
    match err {
        LlmError::Status {
            provider,
            status,
            message,
        } => LlmError::Status {
            provider,
            status,
            message: redact(message, secrets),
        },
        LlmError::Transport { provider, message } => LlmError::Transport {
            provider,
            message: redact(message, secrets),
        },
        LlmError::BadResponse { provider, message } => LlmError::BadResponse {
            provider,
            message: redact(message, secrets),
        },
        LlmError::Config(m) => LlmError::Config(redact(m, secrets)),
        LlmError::Interrupted => LlmError::Interrupted,
    }
}

// ---------------------------------------------------------------------------------------
// Retries.

/// Quota and billing errors sent with a retryable status: waiting does not help (Pi's
/// non-retryable provider limits).
const NON_RETRYABLE_PATTERNS: &[&str] = &[
    "gousagelimiterror",
    "freeusagelimiterror",
    "monthly usage limit reached",
    "available balance",
    "insufficient_quota",
    "out of budget",
    "quota exceeded",
    "billing",
    "subscription_sharing_usage_limit_exceeded",
    "subscription_sharing_workplace_individual_usage_limit_exceeded",
];

fn retryable_status(status: u16, headers: &HeaderMap, body: &[u8]) -> bool {
    match headers.get("x-should-retry").and_then(|v| v.to_str().ok()) {
        Some("true") => return true,
        Some("false") => return false,
        _ => {}
    }
    if !(status == 408 || status == 409 || status == 429 || status >= 500) {
        return false;
    }
    let lower = String::from_utf8_lossy(body).to_lowercase();
    !NON_RETRYABLE_PATTERNS.iter().any(|p| lower.contains(p))
}

/// The delay a server asks for: `retry-after-ms`, else `Retry-After` in seconds or as an
/// HTTP date. A value that is not one of these (negative, not a number) counts as absent.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = get("retry-after-ms")
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = get("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        // A negative or endless delay is no delay the server meant: as if absent, so the
        // backoff applies rather than an immediate retry.
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = jiff::fmt::rfc2822::DateTimeParser::new().parse_timestamp(value).ok()?;
    let ms = when.as_millisecond() - jiff::Timestamp::now().as_millisecond();
    Some(Duration::from_millis(ms.max(0) as u64))
}

/// HTTP behaviour of a [`ProviderSummarizer`].
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    /// Retries after the first attempt (Pi: 3).
    pub max_retries: u32,
    /// First backoff delay, doubled for each further retry (Pi: 2 s).
    pub retry_base_delay: Duration,
    /// Longest backoff delay.
    pub max_retry_delay: Duration,
    /// Longest `Retry-After` honoured; a longer one fails at once. None: no limit.
    pub max_retry_after: Option<Duration>,
    /// All attempts and waits together end by then.
    pub deadline: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions::from_settings(&RetrySettings::default())
    }
}

impl HttpOptions {
    /// From Pi's retry settings, then the environment overrides.
    pub fn from_settings(retry: &RetrySettings) -> HttpOptions {
        let env_ms = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_millis)
        };
        let request_timeout = env_ms(ENV_HTTP_TIMEOUT_MS)
            .or(retry.timeout_ms.map(Duration::from_millis))
            .filter(|d| !d.is_zero())
            .unwrap_or(DEFAULT_REQUEST_TIMEOUT);
        HttpOptions {
            connect_timeout: CONNECT_TIMEOUT.min(request_timeout),
            request_timeout,
            max_retries: if retry.enabled { retry.max_retries } else { 0 },
            retry_base_delay: env_ms(ENV_RETRY_BASE_MS).unwrap_or(Duration::from_millis(retry.base_delay_ms)),
            max_retry_delay: Duration::from_millis(retry.max_delay_ms),
            max_retry_after: (retry.max_retry_after_ms > 0).then(|| Duration::from_millis(retry.max_retry_after_ms)),
            deadline: DEFAULT_DEADLINE,
        }
    }

    fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        self.retry_base_delay.saturating_mul(factor).min(self.max_retry_delay)
    }
}

// ---------------------------------------------------------------------------------------
// The summarizer.

/// A [`Summarizer`] backed by a provider's HTTP API.
pub struct ProviderSummarizer {
    model: ModelInfo,
    credential: Option<Credential>,
    /// Headers from `models.json` (values resolved; all treated as secret).
    extra_headers: Vec<(String, Secret)>,
    /// `authHeader` of `models.json`: also send the key as `Authorization: Bearer`.
    auth_header: bool,
    options: HttpOptions,
    client: reqwest::blocking::Client,
    /// Told about the request and its retries.
    progress: Arc<dyn Progress + Send + Sync>,
    /// Set by the caller to abandon the request.
    cancel: Cancel,
}

impl std::fmt::Debug for ProviderSummarizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSummarizer")
            .field("model", &self.model.spec())
            .field("base_url", &self.model.base_url)
            .field("credential", &self.credential)
            .field("options", &self.options)
            .finish()
    }
}

/// What one attempt produced.
enum Attempt {
    Answer {
        status: u16,
        headers: HeaderMap,
        body: Vec<u8>,
    },
    Failed(reqwest::Error),
    /// The body broke off while it was read.
    Broken(std::io::Error),
    /// The body was larger than [`MAX_ANSWER_BYTES`].
    TooLarge,
}

impl ProviderSummarizer {
    pub fn new(model: ModelInfo, credential: Option<Credential>, options: HttpOptions) -> Result<Self, LlmError> {
        let client = reqwest::blocking::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .user_agent(concat!("pi-session/", env!("CARGO_PKG_VERSION")))
            // A redirect would carry x-api-key / x-goog-api-key to wherever it points.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| LlmError::Config(format!("cannot set up the HTTP client: {e}")))?;
        Ok(ProviderSummarizer {
            model,
            credential,
            extra_headers: Vec::new(),
            auth_header: false,
            options,
            client,
            progress: Arc::new(Silent),
            cancel: Cancel::new(),
        })
    }

    /// Reports the request (and each wait before a retry) to `progress`.
    pub fn with_progress(mut self, progress: Arc<dyn Progress + Send + Sync>) -> Self {
        self.progress = progress;
        self
    }

    /// Abandons the request, and any wait before a retry, once `cancel` is set:
    /// [`Summarizer::summarize`] then returns [`LlmError::Interrupted`].
    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = cancel;
        self
    }

    /// Adds headers (from `models.json`) and, with `auth_header`, the key as a bearer token.
    pub fn with_headers(mut self, headers: Vec<(String, Secret)>, auth_header: bool) -> Self {
        self.extra_headers = headers;
        self.auth_header = auth_header;
        self
    }

    /// Gives up once `deadline` has passed since the summary was asked for.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.options.deadline = deadline;
        self
    }

    pub fn model(&self) -> &ModelInfo {
        &self.model
    }

    pub fn options(&self) -> &HttpOptions {
        &self.options
    }

    fn secrets(&self) -> Vec<&Secret> {
        self.credential
            .iter()
            .map(Credential::secret)
            .chain(self.extra_headers.iter().map(|(_, v)| v))
            .collect()
    }

    fn wire(&self, request: &SummaryRequest) -> Result<WireRequest, LlmError> {
        let input = estimate_input_tokens(request);
        let max_tokens = clamp_max_tokens(self.model.context_window, input, self.model.max_output_tokens);
        let cred = self.credential.as_ref();
        let mut wire = match self.model.api {
            Api::Anthropic => anthropic::build(&self.model, request, max_tokens, input, cred)?,
            Api::OpenAiChat => openai::build(&self.model, request, max_tokens, cred)?,
            Api::Gemini => gemini::build(&self.model, request, max_tokens, cred)?,
        };
        if self.auth_header {
            let key = self.credential.as_ref().ok_or_else(|| {
                LlmError::Config(format!(
                    "provider {} sets authHeader but has no API key",
                    self.model.provider
                ))
            })?;
            set_header(
                &mut wire.headers,
                "authorization",
                &format!("Bearer {}", key.secret().expose()),
                true,
            )?;
        }
        for (name, value) in &self.extra_headers {
            set_header(&mut wire.headers, name, value.expose(), true)?;
        }
        Ok(wire)
    }

    fn parse(&self, body: &[u8], max_tokens: u64) -> Result<SummaryResponse, LlmError> {
        let value: Value = serde_json::from_slice(body).map_err(|e| {
            bad_response(
                &self.model,
                format!(
                    "the answer is not valid JSON ({e}): {}",
                    excerpt(&String::from_utf8_lossy(body))
                ),
            )
        })?;
        match self.model.api {
            Api::Anthropic => anthropic::parse(&self.model, &value, max_tokens),
            Api::OpenAiChat => openai::parse(&self.model, &value, max_tokens),
            Api::Gemini => gemini::parse(&self.model, &value, max_tokens),
        }
    }

    /// Sends once on a worker thread, waiting for it while watching the cancel flag. Once
    /// it is set the request is abandoned (its thread is left to finish or die with the
    /// process; nothing has been written).
    fn attempt(&self, wire: &WireRequest, body: &[u8], end: Instant) -> Result<Attempt, LlmError> {
        let timeout = self
            .options
            .request_timeout
            .min(end.saturating_duration_since(Instant::now()));
        let builder = self
            .client
            .post(&wire.url)
            .headers(wire.headers.clone())
            .timeout(timeout)
            .body(body.to_vec());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let outcome = match builder.send() {
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let headers = resp.headers().clone();
                    // One byte past the bound tells "too large" from "exactly the bound".
                    let mut body = Vec::new();
                    match std::io::Read::read_to_end(&mut std::io::Read::take(resp, MAX_ANSWER_BYTES + 1), &mut body) {
                        Ok(_) if body.len() as u64 > MAX_ANSWER_BYTES => Attempt::TooLarge,
                        Ok(_) => Attempt::Answer { status, headers, body },
                        Err(e) => Attempt::Broken(e),
                    }
                }
                Err(e) => Attempt::Failed(e),
            };
            let _ = tx.send(outcome);
        });
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(outcome) => return Ok(outcome),
                Err(RecvTimeoutError::Timeout) if self.cancel.is_cancelled() => return Err(LlmError::Interrupted),
                // The request's own timeout should end it first; this is the backstop.
                Err(RecvTimeoutError::Timeout) if Instant::now() >= end + Duration::from_secs(1) => {
                    return Err(self.past_deadline());
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.transport("the request thread stopped unexpectedly".into()));
                }
            }
        }
    }

    fn past_deadline(&self) -> LlmError {
        self.transport(format!(
            "no summary within {} (the deadline set by --timeout or PI_SESSION_LLM_TIMEOUT)",
            human(self.options.deadline)
        ))
    }

    fn transport(&self, message: String) -> LlmError {
        LlmError::Transport {
            provider: self.model.provider.clone(),
            message,
        }
    }

    fn describe_transport(&self, e: &reqwest::Error) -> String {
        let host = reqwest::Url::parse(&self.model.base_url)
            .ok()
            .and_then(|u| {
                u.host_str().map(|h| match u.port() {
                    Some(p) => format!("{h}:{p}"),
                    None => h.to_string(),
                })
            })
            .unwrap_or_else(|| self.model.base_url.clone());
        let mut cause = String::new();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            cause = s.to_string();
            source = s.source();
        }
        let what = if e.is_timeout() {
            format!("no answer from {host} within {}", human(self.options.request_timeout))
        } else if e.is_connect() {
            format!("cannot connect to {host}")
        } else if e.is_body() || e.is_decode() {
            format!("the answer from {host} broke off")
        } else {
            format!("the request to {host} failed")
        };
        if cause.is_empty() || e.is_timeout() {
            what
        } else {
            format!("{what}: {}", excerpt(&cause))
        }
    }

    /// Sleeps `delay` in small steps, watching the cancel flag.
    fn wait(&self, delay: Duration) -> Result<(), LlmError> {
        let end = Instant::now() + delay;
        loop {
            if self.cancel.is_cancelled() {
                return Err(LlmError::Interrupted);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            std::thread::sleep((end - now).min(Duration::from_millis(50)));
        }
    }

    fn run(&self, request: &SummaryRequest) -> Result<SummaryResponse, LlmError> {
        let wire = self.wire(request)?;
        let body =
            serde_json::to_vec(&wire.body).map_err(|e| LlmError::Config(format!("cannot encode the request: {e}")))?;
        let attempts = self.options.max_retries + 1;
        let provider = self.model.provider.clone();
        let end = Instant::now() + self.options.deadline;
        let mut attempt = 0;
        loop {
            attempt += 1;
            if self.cancel.is_cancelled() {
                return Err(LlmError::Interrupted);
            }
            let gave_up = |n: u32| {
                if n > 1 {
                    format!(" (gave up after {n} attempts)")
                } else {
                    String::new()
                }
            };
            let (reason, server_delay) = match self.attempt(&wire, &body, end)? {
                Attempt::Answer { status, body, .. } if (200..300).contains(&status) => {
                    let answer = self.parse(&body, wire.max_tokens)?;
                    if answer.text.len() > MAX_SUMMARY_BYTES {
                        return Err(bad_response(
                            &self.model,
                            format!(
                                "the summary is {} bytes, more than the {} a summary may have",
                                answer.text.len(),
                                MAX_SUMMARY_BYTES
                            ),
                        ));
                    }
                    return Ok(answer);
                }
                Attempt::TooLarge => {
                    return Err(bad_response(
                        &self.model,
                        format!("the answer is larger than {MAX_ANSWER_BYTES} bytes, more than any summary needs"),
                    ));
                }
                Attempt::Broken(e) => {
                    let message = format!("the answer broke off: {}", excerpt(&e.to_string()));
                    if attempt >= attempts {
                        return Err(self.transport(format!("{message}{}", gave_up(attempt))));
                    }
                    ("the answer broke off".to_string(), None)
                }
                Attempt::Answer { status, headers, body } => {
                    let message = error_body_message(&body);
                    if attempt >= attempts || !retryable_status(status, &headers, &body) {
                        return Err(LlmError::Status {
                            provider,
                            status,
                            message: format!("{message}{}", gave_up(attempt)),
                        });
                    }
                    let requested = retry_after(&headers);
                    if let (Some(d), Some(max)) = (requested, self.options.max_retry_after)
                        && d > max
                    {
                        return Err(LlmError::Status {
                            provider,
                            status,
                            message: format!(
                                "{message} (the server asks to retry after {}, more than the {} limit)",
                                human(d),
                                human(max)
                            ),
                        });
                    }
                    (format!("HTTP {status}"), requested)
                }
                Attempt::Failed(e) if e.is_builder() => {
                    return Err(LlmError::Config(format!(
                        "cannot send a request to {} (base URL {}): {}",
                        self.model.provider,
                        self.model.base_url,
                        excerpt(&e.to_string())
                    )));
                }
                Attempt::Failed(e) => {
                    let message = self.describe_transport(&e);
                    if Instant::now() >= end {
                        return Err(self.past_deadline());
                    }
                    if attempt >= attempts {
                        return Err(self.transport(format!("{message}{}", gave_up(attempt))));
                    }
                    (
                        if e.is_timeout() {
                            "timed out".to_string()
                        } else {
                            "connection failed".to_string()
                        },
                        None,
                    )
                }
            };
            let delay = server_delay.unwrap_or_else(|| self.options.backoff(attempt));
            if Instant::now() + delay >= end {
                return Err(self.past_deadline());
            }
            self.progress.message(&format!(
                "{}: {reason}, retrying in {} (attempt {}/{attempts})",
                self.describe(),
                human(delay),
                attempt + 1
            ));
            self.wait(delay)?;
            self.progress.message(&format!(
                "Summarizing with {} (attempt {}/{attempts})",
                self.describe(),
                attempt + 1
            ));
        }
    }
}

fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

impl Summarizer for ProviderSummarizer {
    fn summarize(&self, request: &SummaryRequest) -> Result<SummaryResponse, LlmError> {
        self.progress
            .start(&format!("Summarizing with {}", self.describe()), None);
        let result = self.run(request);
        self.progress.finish();
        result.map_err(|e| redact_error(e, &self.secrets()))
    }

    fn describe(&self) -> String {
        self.model.spec()
    }
}

#[cfg(test)]
mod tests {
    use super::super::wire::estimate_tokens;
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn clamp_like_pi() {
        // Plenty of room: the model's limit.
        assert_eq!(clamp_max_tokens(200_000, 1000, 64_000), 64_000);
        // 15 % margin while it leaves 32768.
        assert_eq!(clamp_max_tokens(100_000, 40_000, 64_000), 100_000 - 40_000 - 6000);
        // Else the fixed margin, output capped at 32768.
        assert_eq!(clamp_max_tokens(40_000, 1100, 64_000), 40_000 - 1100 - 4096);
        assert_eq!(clamp_max_tokens(20_000, 1100, 64_000), 20_000 - 1100 - 4096);
        assert_eq!(clamp_max_tokens(300_000, 1000, 1_000_000), 300_000 - 1000 - 4096);
        assert_eq!(clamp_max_tokens(50_000, 60_000, 64_000), 1);
        assert_eq!(estimate_tokens("abcdefg"), 2);
        assert_eq!(estimate_tokens("😀"), 1);
    }

    #[test]
    fn retry_after_forms() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        let later = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(30);
        let date = jiff::fmt::rfc2822::DateTimePrinter::new()
            .timestamp_to_rfc9110_string(&later)
            .unwrap();
        h.insert("retry-after", HeaderValue::from_str(&date).unwrap());
        let d = retry_after(&h).unwrap();
        assert!(d > Duration::from_secs(25) && d <= Duration::from_secs(30), "{d:?}");
        // Values no server means are as if absent: the backoff applies.
        for bad in ["-5", "NaN", "inf", "soon"] {
            let mut h = HeaderMap::new();
            h.insert("retry-after", HeaderValue::from_str(bad).unwrap());
            assert_eq!(retry_after(&h), None, "{bad}");
        }
        let mut h = HeaderMap::new();
        h.insert("retry-after-ms", HeaderValue::from_static("-1"));
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn error_bodies() {
        assert_eq!(
            error_body_message(br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
            "overloaded_error: Overloaded"
        );
        assert_eq!(
            error_body_message(
                br#"{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}"#
            ),
            "RESOURCE_EXHAUSTED: Resource exhausted"
        );
        assert_eq!(
            error_body_message(b"<html>\n bad gateway </html>"),
            "<html> bad gateway </html>"
        );
        assert!(!retryable_status(
            429,
            &HeaderMap::new(),
            br#"{"error":{"code":"insufficient_quota"}}"#
        ));
        assert!(retryable_status(503, &HeaderMap::new(), b"busy"));
        assert!(!retryable_status(400, &HeaderMap::new(), b"bad"));
    }
}
