//! The rules that recognise a credential in a piece of text.
