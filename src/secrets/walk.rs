//! The string tokens of a JSON line, with their paths and byte spans, and rewriting one in place.
