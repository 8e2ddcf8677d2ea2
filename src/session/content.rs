//! A typed view of message content, borrowed from the entry's JSON (no large string copied).
//!
//! Pi stores a message's `content` as a string or as an array of blocks, each an object with
//! a `type`: `text` (`text`), `thinking` (`thinking`), `toolCall` (`id`, `name`, `arguments`)
//! or `image` (`mimeType`, `data`). Pi reads fields only when they have the expected JSON type,
//! so a field of another type is `None` here; a block that is not an object, has no string
//! `type`, or has a type Pi does not know is [`Block::Other`]. Content that is neither a string
//! nor an array has no blocks.

use serde_json::Value;

/// The content of a message (`message.content`, or a custom message's `content`).
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    /// Absent, or neither a string nor an array.
    None,
    /// Content stored as one string.
    Text(&'a str),
    /// Content stored as blocks.
    Blocks(&'a [Value]),
}

/// One block of content.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Block<'a> {
    Text {
        text: Option<&'a str>,
    },
    Thinking {
        thinking: Option<&'a str>,
    },
    ToolCall {
        id: Option<&'a str>,
        name: Option<&'a str>,
        arguments: Option<&'a Value>,
    },
    Image {
        mime_type: Option<&'a str>,
        data: Option<&'a str>,
    },
    /// Any other block: `kind` is its `type` when that is a string.
    Other {
        kind: Option<&'a str>,
        value: &'a Value,
    },
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

impl<'a> Block<'a> {
    /// Reads one element of a content array.
    pub fn of(v: &'a Value) -> Block<'a> {
        match str_field(v, "type") {
            Some("text") => Block::Text {
                text: str_field(v, "text"),
            },
            Some("thinking") => Block::Thinking {
                thinking: str_field(v, "thinking"),
            },
            Some("toolCall") => Block::ToolCall {
                id: str_field(v, "id"),
                name: str_field(v, "name"),
                arguments: v.get("arguments"),
            },
            Some("image") => Block::Image {
                mime_type: str_field(v, "mimeType"),
                data: str_field(v, "data"),
            },
            kind => Block::Other { kind, value: v },
        }
    }
}

/// A tool call block's fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolCall<'a> {
    pub id: Option<&'a str>,
    pub name: Option<&'a str>,
    pub arguments: Option<&'a Value>,
}

/// The role of a message value, as the index names roles (`None` when `role` is not a
/// string).
pub fn role_of(message: &Value) -> Option<super::Role> {
    message.get("role").and_then(Value::as_str).map(super::Role::parse)
}

impl<'a> Content<'a> {
    /// Reads a `content` value.
    pub fn of(content: Option<&'a Value>) -> Content<'a> {
        match content {
            Some(Value::String(s)) => Content::Text(s),
            Some(Value::Array(blocks)) => Content::Blocks(blocks),
            _ => Content::None,
        }
    }

    /// The content of a message value (its `content` field).
    pub fn of_message(message: &'a Value) -> Content<'a> {
        Content::of(message.get("content"))
    }

    /// The blocks in order; string content is one text block.
    pub fn blocks(self) -> impl Iterator<Item = Block<'a>> {
        let (text, blocks): (Option<&'a str>, &'a [Value]) = match self {
            Content::None => (None, &[]),
            Content::Text(s) => (Some(s), &[]),
            Content::Blocks(b) => (None, b),
        };
        text.map(|t| Block::Text { text: Some(t) })
            .into_iter()
            .chain(blocks.iter().map(Block::of))
    }

    /// The text blocks in order: `None` for a text block whose `text` is not a string.
    pub fn texts(self) -> impl Iterator<Item = Option<&'a str>> {
        self.blocks().filter_map(|b| match b {
            Block::Text { text } => Some(text),
            _ => None,
        })
    }

    /// The text: a string as it is, or the text blocks joined by `sep` (a text block without
    /// a string `text` joins as an empty string).
    pub fn text(self, sep: &str) -> String {
        match self {
            Content::Text(s) => s.to_owned(),
            _ => self.texts().map(|t| t.unwrap_or("")).collect::<Vec<_>>().join(sep),
        }
    }

    /// The tool call blocks in order.
    pub fn tool_calls(self) -> impl Iterator<Item = ToolCall<'a>> {
        self.blocks().filter_map(|b| match b {
            Block::ToolCall { id, name, arguments } => Some(ToolCall { id, name, arguments }),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_content_is_one_text_block() {
        let v = json!("hello");
        let c = Content::of(Some(&v));
        assert_eq!(
            c.blocks().collect::<Vec<_>>(),
            vec![Block::Text { text: Some("hello") }]
        );
        assert_eq!(c.text("\n"), "hello");
    }

    #[test]
    fn blocks_by_type_with_fields_of_the_right_type_only() {
        let v = json!([
            {"type": "text", "text": "a"},
            {"type": "thinking", "thinking": "hmm"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}},
            {"type": "image", "mimeType": "image/png", "data": "AAA"},
            {"type": "text", "text": 5},
            {"type": "toolCall", "id": 7},
            {"type": "audio"},
            {"text": "no type"},
            "just a string",
            {"type": "text", "text": "b"}
        ]);
        let c = Content::of(Some(&v));
        let blocks: Vec<_> = c.blocks().collect();
        assert_eq!(blocks[0], Block::Text { text: Some("a") });
        assert_eq!(blocks[1], Block::Thinking { thinking: Some("hmm") });
        assert_eq!(
            blocks[2],
            Block::ToolCall {
                id: Some("c1"),
                name: Some("read"),
                arguments: Some(&json!({"path": "x"}))
            }
        );
        assert_eq!(
            blocks[3],
            Block::Image {
                mime_type: Some("image/png"),
                data: Some("AAA")
            }
        );
        assert_eq!(blocks[4], Block::Text { text: None });
        assert_eq!(
            blocks[5],
            Block::ToolCall {
                id: None,
                name: None,
                arguments: None
            }
        );
        assert!(matches!(
            blocks[6],
            Block::Other {
                kind: Some("audio"),
                ..
            }
        ));
        assert!(matches!(blocks[7], Block::Other { kind: None, .. }));
        assert!(matches!(blocks[8], Block::Other { kind: None, .. }));
        assert_eq!(c.text("|"), "a||b");
        assert_eq!(c.tool_calls().count(), 2);
    }

    #[test]
    fn other_shapes_have_no_blocks() {
        for v in [json!(null), json!(3), json!({"type": "text", "text": "x"})] {
            let c = Content::of(Some(&v));
            assert_eq!(c.blocks().count(), 0);
            assert_eq!(c.text("\n"), "");
        }
        assert_eq!(Content::of(None).blocks().count(), 0);
    }
}
