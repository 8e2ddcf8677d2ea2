//! The wire formats pi-session speaks, named as in Pi's `models.json`.

/// The wire format a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// Anthropic's Messages API (`POST {base}/v1/messages`).
    Anthropic,
    /// OpenAI's chat completions (`POST {base}/chat/completions`) and compatible servers.
    OpenAiChat,
    /// Google's Gemini API (`POST {base}/models/{id}:generateContent`).
    Gemini,
}

impl Api {
    /// Pi's name of an API in `models.json`. `openai-responses` and `mistral-conversations`
    /// servers also serve chat completions, which is what pi-session speaks to them.
    pub fn from_pi_name(name: &str) -> Option<Api> {
        match name {
            "anthropic-messages" => Some(Api::Anthropic),
            "openai-completions" | "openai-responses" | "mistral-conversations" => Some(Api::OpenAiChat),
            "google-generative-ai" => Some(Api::Gemini),
            _ => None,
        }
    }

    pub fn pi_name(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic-messages",
            Api::OpenAiChat => "openai-completions",
            Api::Gemini => "google-generative-ai",
        }
    }
}
