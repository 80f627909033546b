//! Text from the server, made safe to show on a terminal.
//!
//! A terminal acts on some characters instead of showing them. With them
//! a server could show one URL and link another (OSC 8), write the
//! clipboard (OSC 52), clear or rewrite the screen (CSI, `\r`,
//! backspace), or turn text around so that `txt.exe` reads `exe.txt`
//! (a bidi override). So `presa` shows those characters escaped, as text
//! to read, and never lets the terminal act on them.
//!
//! The rules, in order, for each character:
//!
//! 1. a control character (C0, U+0000–U+001F; DEL, U+007F; C1,
//!    U+0080–U+009F, the 8-bit CSI U+009B among them) is escaped: `\n`,
//!    `\r` and `\t` by name, the other ASCII ones as `\x1b`, the C1 ones
//!    as `\u{9b}`;
//! 2. text that may run over several lines ([`lines`]: a tool's output, a
//!    question's message) keeps its line breaks (`\n`, and `\r\n` read as
//!    `\n`) and tabs. Text that is one item of a line ([`line()`]: a name, a
//!    title, an error) has them escaped too, so one item cannot pose as
//!    two, or as `presa`'s own words;
//! 3. the bidi controls that can disguise text are escaped as
//!    `\u{202e}`: the embeddings and overrides (U+202A–U+202E), the
//!    isolates (U+2066–U+2069), and the invisible marks U+200E, U+200F
//!    and U+061C. Text in a right-to-left script shows as it is; only the
//!    invisible controls become visible. So are U+2028 and U+2029, which
//!    some terminals take for line breaks;
//! 4. everything else shows as it is, backslashes included. So `\x1b` in
//!    the output may be the server's own four characters: either way it
//!    is shown, never acted on.
//!
//! With `--json` the output is one JSON document, and stays exact: a
//! string escaped in JSON reads back as the same string. serde_json
//! escapes C0 controls itself (`\u001b`); [`json`] also writes the other
//! characters of rules 1 and 3 as `\u009b`, so the document holds nothing
//! a terminal acts on either.
//!
//! Everything `presa` prints goes through [`say!`] (stdout) or [`note!`]
//! (stderr), which show the whole text by rule 2; clippy's
//! `disallowed_macros` (the crate's `clippy.toml`) forbids `println!`
//! and `eprintln!` anywhere else. A server's single-line text goes
//! through [`line()`] first. Prompts and the progress line draw by
//! themselves, and are given text that went through [`line()`].

use std::fmt::{self, Write as _};
use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

/// Whether a terminal may act on `c` (rules 1 and 3).
fn acted_on(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Server text shown on one line: every control character escaped, line
/// breaks and tabs too (rule 2).
pub fn line(text: &str) -> Shown<'_> {
    Shown {
        text,
        breaks: false,
    }
}

/// Server text that may run over several lines: line breaks and tabs kept,
/// every other control character escaped (rule 2).
pub fn lines(text: &str) -> Shown<'_> {
    Shown { text, breaks: true }
}

/// Text made safe to show; it escapes as it is written out
/// (`Display`), or as a `String` ([`ToString`]).
#[derive(Clone, Copy)]
pub struct Shown<'a> {
    text: &'a str,
    /// Whether line breaks and tabs are kept.
    breaks: bool,
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.text;
        while let Some((at, c)) = rest.char_indices().find(|&(_, c)| acted_on(c)) {
            f.write_str(&rest[..at])?;
            let after = &rest[at + c.len_utf8()..];
            rest = match c {
                '\n' | '\t' if self.breaks => {
                    f.write_char(c)?;
                    after
                }
                '\r' if self.breaks && after.starts_with('\n') => after,
                _ => {
                    escape(c, f)?;
                    after
                }
            };
        }
        f.write_str(rest)
    }
}

/// `c` as text to read (rule 1).
fn escape(c: char, out: &mut impl fmt::Write) -> fmt::Result {
    match c {
        '\n' => out.write_str(r"\n"),
        '\r' => out.write_str(r"\r"),
        '\t' => out.write_str(r"\t"),
        c if c.is_ascii() => write!(out, r"\x{:02x}", u32::from(c)),
        c => write!(out, r"\u{{{:x}}}", u32::from(c)),
    }
}

/// `println!`, its whole text shown by [`lines`]: for what `presa` prints
/// on stdout.
macro_rules! say {
    ($($arg:tt)*) => {{
        #[allow(clippy::disallowed_macros)]
        {
            println!("{}", $crate::output::shown::lines(&format!($($arg)*)))
        }
    }};
}

/// `eprintln!`, its whole text shown by [`lines`]: for notes, questions
/// and errors on stderr.
macro_rules! note {
    ($($arg:tt)*) => {{
        #[allow(clippy::disallowed_macros)]
        {
            eprintln!("{}", $crate::output::shown::lines(&format!($($arg)*)))
        }
    }};
}

pub(crate) use {note, say};

/// `value` as pretty-printed JSON that reads back as the same value and
/// holds nothing a terminal acts on.
pub fn json(value: &impl Serialize) -> serde_json::Result<String> {
    inert(value, PrettyFormatter::new())
}

/// `value` as JSON on one line (for a stream of documents, one a line),
/// holding nothing a terminal acts on.
pub fn json_line(value: &impl Serialize) -> serde_json::Result<String> {
    inert(value, CompactFormatter)
}

/// `value` written by `formatter`, escaped as [`Inert`] escapes.
fn inert<F: Formatter>(value: &impl Serialize, formatter: F) -> serde_json::Result<String> {
    let mut bytes = Vec::new();
    let mut writer = serde_json::Serializer::with_formatter(&mut bytes, Inert(formatter));
    value.serialize(&mut writer)?;
    // serde_json writes UTF-8, and escapes only write ASCII.
    Ok(String::from_utf8(bytes).expect("serde_json writes UTF-8"))
}

/// A serde_json formatter (pretty, or compact), writing each character a terminal acts
/// on as a `\uXXXX` escape inside strings. serde_json hands its escapes of
/// C0 controls, quotes and backslashes to `write_char_escape`, which is
/// left as it is, and the runs between them to `write_string_fragment`.
struct Inert<F>(F);

impl<F: Formatter> Formatter for Inert<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = rest.char_indices().find(|&(_, c)| acted_on(c)) {
            writer.write_all(&rest.as_bytes()[..at])?;
            // Every character of rules 1 and 3 is in the Basic
            // Multilingual Plane: one `\uXXXX` each.
            write!(writer, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// OSC 8, OSC 52, CSI, the 8-bit CSI, `\r`, backspace, bell, and a
    /// bidi override.
    const HOSTILE: &str = "\x1b]8;;https://evil.example/\x1b\\good\x1b]8;;\x1b\\ \
                           \x1b]52;c;cHduZWQ=\x07 \x1b[2J \u{9b}31m \rfake\x08 \u{202e}exe.txt";

    #[test]
    fn escapes_are_shown_as_text() {
        assert_eq!(
            line(HOSTILE).to_string(),
            r"\x1b]8;;https://evil.example/\x1b\good\x1b]8;;\x1b\ \x1b]52;c;cHduZWQ=\x07 \x1b[2J \u{9b}31m \rfake\x08 \u{202e}exe.txt"
        );
    }

    #[test]
    fn nothing_shown_is_a_character_a_terminal_acts_on() {
        let every: String = (0..=0x2070u32).filter_map(char::from_u32).collect();
        for shown in [line(&every).to_string(), lines(&every).to_string()] {
            let live: Vec<char> = shown
                .chars()
                .filter(|&c| acted_on(c) && c != '\n' && c != '\t')
                .collect();
            assert!(live.is_empty(), "{live:?}");
        }
        assert!(!line(&every).to_string().contains(['\n', '\t']));
    }

    #[test]
    fn several_lines_keep_their_breaks_and_tabs() {
        assert_eq!(lines("a\tb\nc\r\nd").to_string(), "a\tb\nc\nd");
        assert_eq!(lines("over\rwrite").to_string(), r"over\rwrite");
        assert_eq!(lines("end\r").to_string(), r"end\r");
        assert_eq!(line("a\tb\nc\r\nd").to_string(), r"a\tb\nc\r\nd");
    }

    #[test]
    fn ordinary_text_is_left_as_it_is() {
        for text in [
            r"C:\Users\ada and \x1b",
            "naïve café, 東京, emoji 👩‍💻",
            "שלום עולם and مرحبا",
            "",
        ] {
            assert_eq!(line(text).to_string(), text);
        }
    }

    #[test]
    fn bidi_controls_and_separators_are_escaped() {
        assert_eq!(
            line("\u{202a}\u{2066}\u{2069}\u{200e}\u{200f}\u{061c}\u{2028}\u{2029}").to_string(),
            r"\u{202a}\u{2066}\u{2069}\u{200e}\u{200f}\u{61c}\u{2028}\u{2029}"
        );
        assert_eq!(line("\u{7f}\u{80}\u{9f}").to_string(), r"\x7f\u{80}\u{9f}");
    }

    #[test]
    fn json_reads_back_as_the_same_value_with_nothing_raw() {
        let value = json!({HOSTILE: [HOSTILE, "\u{2029}", 1, null, {"k": "plain"}]});
        let text = json(&value).unwrap();
        assert!(!text.chars().any(|c| acted_on(c) && c != '\n'), "{text}");
        assert!(
            text.contains(r"\u009b31m") && text.contains(r"\u202eexe"),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }

    #[test]
    fn a_json_line_is_one_line_escaped_as_json_is() {
        let value = json!({"a": [1, {"b": HOSTILE}], "lines": "a\nb"});
        let text = json_line(&value).unwrap();
        assert!(!text.contains('\n'), "{text}");
        assert!(!text.chars().any(acted_on), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }

    #[test]
    fn json_is_pretty_printed_as_serde_json_prints_it() {
        let value = json!({"a": [1, {"b": "c"}], "d": {}, "e": []});
        assert_eq!(
            json(&value).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }

    #[test]
    fn printed_json_is_not_changed_by_the_escaping_of_lines() {
        let text = json(&json!({"said": HOSTILE, "lines": "a\nb\tc"})).unwrap();
        assert_eq!(lines(&text).to_string(), text);
    }
}
