//! Message content as Pi reads it, through the entry view ([`crate::json::view`]): over a
//! line's bytes (the transcript of `export`) or over a parsed value (the context a model is
//! sent, `show`, `grep`) alike, so the rule is written once.
//!
//! Pi stores a message's `content` as a string or as an array of blocks, each an object with
//! a `type`: `text` (`text`), `thinking` (`thinking`), `toolCall` (`id`, `name`, `arguments`)
//! or `image` (`mimeType`, `data`). Pi reads fields only when they have the expected JSON type,
//! so a field of another type is `None` here; a block that is not an object, has no string
//! `type`, or has a type Pi does not know is [`Block::Other`]. Content that is neither a string
//! nor an array has no blocks. Over a parsed value the view never declines, so the `Scan`
//! results of a value's content are always `Ok`.

use crate::json::scan::Scan;
use crate::json::view::{Obj, Val};
use serde_json::Value;
use std::borrow::Cow;

/// The content of a message (`message.content`, or a custom message's `content`).
#[derive(Debug, Clone)]
pub enum Content<'a, 'v> {
    /// Absent, or neither a string nor an array.
    None,
    /// Content stored as one string.
    Text(Cow<'a, str>),
    /// Content stored as blocks.
    Blocks(Vec<Val<'a, 'v>>),
}

/// One block of content.
#[derive(Debug, Clone)]
pub enum Block<'a, 'v> {
    Text {
        text: Option<Cow<'a, str>>,
    },
    Thinking {
        thinking: Option<Cow<'a, str>>,
    },
    ToolCall {
        id: Option<Cow<'a, str>>,
        name: Option<Cow<'a, str>>,
        arguments: Option<Val<'a, 'v>>,
    },
    Image {
        mime_type: Option<Cow<'a, str>>,
        data: Option<Cow<'a, str>>,
    },
    /// Any other block: `kind` is its `type` when that is a string.
    Other {
        kind: Option<Cow<'a, str>>,
    },
}

impl<'a, 'v> Block<'a, 'v> {
    /// Reads one element of a content array.
    pub fn of(v: Val<'a, 'v>) -> Scan<Block<'a, 'v>> {
        let Some(b) = v.obj() else {
            return Ok(Block::Other { kind: None });
        };
        let kind = b.str("type")?;
        Ok(match kind.as_deref() {
            Some("text") => Block::Text { text: b.str("text")? },
            Some("thinking") => Block::Thinking {
                thinking: b.str("thinking")?,
            },
            Some("toolCall") => Block::ToolCall {
                id: b.str("id")?,
                name: b.str("name")?,
                arguments: b.get("arguments")?,
            },
            Some("image") => Block::Image {
                mime_type: b.str("mimeType")?,
                data: b.str("data")?,
            },
            _ => Block::Other { kind },
        })
    }
}

/// The role of a message value, as the index names roles (`None` when `role` is not a
/// string).
pub fn role_of(message: &Value) -> Option<super::Role> {
    message.get("role").and_then(Value::as_str).map(super::Role::parse)
}

impl<'a, 'v> Content<'a, 'v> {
    /// Reads a `content` value.
    pub fn of(content: Option<Val<'a, 'v>>) -> Scan<Content<'a, 'v>> {
        let Some(c) = content else {
            return Ok(Content::None);
        };
        if let Some(text) = c.str()? {
            return Ok(Content::Text(text));
        }
        Ok(c.arr().map_or(Content::None, Content::Blocks))
    }

    /// The content of a message (its `content` field).
    pub fn of_message(message: &Obj<'a, 'v>) -> Scan<Content<'a, 'v>> {
        Content::of(message.get("content")?)
    }

    /// The content of a parsed `content` value.
    pub fn of_value(content: Option<&'v Value>) -> Content<'a, 'v> {
        Content::of(content.map(Val::of_value)).unwrap_or(Content::None)
    }

    /// The blocks in order; string content is one text block.
    pub fn blocks(&self) -> Scan<Vec<Block<'a, 'v>>> {
        match self {
            Content::None => Ok(Vec::new()),
            Content::Text(text) => Ok(vec![Block::Text {
                text: Some(text.clone()),
            }]),
            Content::Blocks(blocks) => blocks.iter().map(|b| Block::of(*b)).collect(),
        }
    }

    /// The text: a string as it is, or the text blocks joined by `sep` (a text block without
    /// a string `text` joins as an empty string): pi-ai's `contentText`.
    pub fn text(&self, sep: &str) -> Scan<Cow<'a, str>> {
        Ok(texts_joined(self.blocks()?, sep))
    }
}

/// The text blocks of `blocks` joined by `sep` ([`Content::text`] of blocks already read).
pub fn texts_joined<'a: 'v, 'v>(blocks: impl IntoIterator<Item = Block<'a, 'v>>, sep: &str) -> Cow<'a, str> {
    let mut texts = blocks.into_iter().filter_map(|b| match b {
        Block::Text { text } => Some(text.unwrap_or_default()),
        _ => None,
    });
    let Some(first) = texts.next() else {
        return Cow::Borrowed("");
    };
    let Some(second) = texts.next() else {
        return first;
    };
    let mut joined = format!("{first}{sep}{second}");
    for t in texts {
        joined.push_str(sep);
        joined.push_str(&t);
    }
    Cow::Owned(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn blocks(v: &Value) -> Vec<Block<'static, '_>> {
        Content::of_value(Some(v)).blocks().unwrap()
    }

    #[test]
    fn string_content_is_one_text_block() {
        let v = json!("hello");
        assert!(matches!(&blocks(&v)[..], [Block::Text { text: Some(t) }] if t == "hello"));
        assert_eq!(Content::of_value(Some(&v)).text("\n").unwrap(), "hello");
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
        let b = blocks(&v);
        assert!(matches!(&b[0], Block::Text { text: Some(t) } if t == "a"));
        assert!(matches!(&b[1], Block::Thinking { thinking: Some(t) } if t == "hmm"));
        match &b[2] {
            Block::ToolCall { id, name, arguments } => {
                assert_eq!((id.as_deref(), name.as_deref()), (Some("c1"), Some("read")));
                assert_eq!(*arguments.unwrap().to_value().unwrap(), json!({"path": "x"}));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&b[3], Block::Image { mime_type: Some(m), data: Some(d) } if m == "image/png" && d == "AAA"));
        assert!(matches!(&b[4], Block::Text { text: None }));
        assert!(matches!(
            &b[5],
            Block::ToolCall {
                id: None,
                name: None,
                arguments: None
            }
        ));
        assert!(matches!(&b[6], Block::Other { kind: Some(k) } if k == "audio"));
        assert!(matches!(&b[7], Block::Other { kind: None }));
        assert!(matches!(&b[8], Block::Other { kind: None }));
        assert_eq!(Content::of_value(Some(&v)).text("|").unwrap(), "a||b");
    }

    #[test]
    fn bytes_and_values_read_alike() {
        let line = br#"{"content":[{"type":"text","text":"a\nb"},{"type":"toolCall","name":"x","arguments":{"k":1}},{"type":"text","text":"c"}]}"#;
        let tape = crate::json::view::Tape::of_line(line).unwrap();
        let from_bytes = Content::of_message(&tape.root()).unwrap();
        let v: Value = serde_json::from_slice(line).unwrap();
        let from_value = Content::of_value(v.get("content"));
        assert_eq!(from_bytes.text("|").unwrap(), "a\nb|c");
        assert_eq!(from_value.text("|").unwrap(), "a\nb|c");
    }

    #[test]
    fn other_shapes_have_no_blocks() {
        for v in [json!(null), json!(3), json!({"type": "text", "text": "x"})] {
            assert!(blocks(&v).is_empty());
            assert_eq!(Content::of_value(Some(&v)).text("\n").unwrap(), "");
        }
        assert!(Content::of_value(None).blocks().unwrap().is_empty());
    }
}
