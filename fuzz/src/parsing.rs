//! The `parsing` harness: the parsers that read what a peer controls,
//! without a server around them. The input's first byte picks one, the
//! rest is its input; where a parser takes two texts, a newline separates
//! them.
//!
//! | first byte % 6 | parser | and checks that |
//! |---|---|---|
//! | 0 | `wire::Message` from a frame | a parsed message writes as one line that parses back to it |
//! | 1 | `wire::UriTemplate`, then matching a URI | the template's text is kept; the expansion of a match matches again |
//! | 2 | `server::FormSchema` from JSON, then checking an answer | nothing panics |
//! | 3 | `requestState`: opening a token, opening any payload with a valid tag, sealing and opening | a sealed state opens for its call, to what was sealed, and not for another |
//! | 4 | header values and `x-mcp-header` annotations (`wire::headers`) | encoding then decoding a value gives it back |
//! | 5 | `wire::AbsoluteUrl` | the text is kept |

use std::collections::BTreeMap;

use presa::server::{FormSchema, StateError};
use presa::wire::{
    AbsoluteUrl, InputResponses, MAX_MATCHED_URI, Message, Method, UriTemplate, headers,
};
use presa_runtime::__fuzz::{Binding, RequestStateCodec, check_form_answer};
use serde_json::{Map, Value};

use crate::dispatch::{REQUEST_STATE_KEY, REQUEST_STATE_TTL};

/// Runs one input; panics on a finding.
pub fn run(input: &[u8]) {
    let Some((&selector, rest)) = input.split_first() else {
        return;
    };
    match selector % 6 {
        0 => message(&String::from_utf8_lossy(rest)),
        1 => uri_template(&String::from_utf8_lossy(rest)),
        2 => form_schema(rest),
        3 => request_state(rest),
        4 => header(rest),
        _ => url(&String::from_utf8_lossy(rest)),
    }
}

/// `text` split at its first newline; all of it and nothing without one.
fn two(text: &str) -> (&str, &str) {
    text.split_once('\n').unwrap_or((text, ""))
}

fn two_bytes(bytes: &[u8]) -> (&[u8], &[u8]) {
    match bytes.iter().position(|&b| b == b'\n') {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (bytes, &[]),
    }
}

fn message(frame: &str) {
    let Ok(message) = frame.parse::<Message>() else {
        return;
    };
    if let Message::Request(request) = &message {
        let _ = Method::parse(&request.method);
    }
    let line = message.to_line();
    assert!(!line.contains('\n'), "a message writes as one line: {line}");
    let again: Message = line
        .parse()
        .unwrap_or_else(|e| panic!("{line} written from {frame} does not parse: {e:?}"));
    assert_eq!(again, message, "{frame} does not survive writing as {line}");
}

fn uri_template(text: &str) {
    let (template, uri) = two(text);
    let Ok(parsed) = UriTemplate::parse(template) else {
        return;
    };
    assert_eq!(parsed.as_str(), template);
    assert_eq!(
        UriTemplate::parse(&parsed.to_string()).as_ref(),
        Ok(&parsed)
    );
    let _ = parsed.variables().count();
    let Some(values) = parsed.matches(uri) else {
        return;
    };
    let expanded = parsed.expand(&values);
    if expanded.len() <= MAX_MATCHED_URI {
        assert_eq!(
            parsed.matches(&expanded).as_ref(),
            Some(&values),
            "{template:?} matches {uri:?} as {values:?}, but their expansion {expanded:?} does not match as them"
        );
    }
    // Expanding arbitrary values never panics.
    let own: BTreeMap<String, String> = parsed
        .variables()
        .map(|v| (v.to_owned(), uri.to_owned()))
        .collect();
    let _ = parsed.expand(&own);
}

fn form_schema(bytes: &[u8]) {
    let (schema, answer) = two_bytes(bytes);
    let Ok(schema) = serde_json::from_slice::<Value>(schema) else {
        return;
    };
    let Ok(form) = FormSchema::new(schema) else {
        return;
    };
    let answer = serde_json::from_slice::<Value>(answer).unwrap_or(Value::Null);
    let _ = check_form_answer(&form, &answer);
}

fn request_state(bytes: &[u8]) {
    let Some((&mode, rest)) = bytes.split_first() else {
        return;
    };
    let codec = RequestStateCodec::new(REQUEST_STATE_KEY, REQUEST_STATE_TTL);
    let arguments = Map::new();
    let binding = Binding {
        method: Method::ToolsCall,
        subject: None,
        target: "build",
        arguments: &arguments,
    };
    match mode % 3 {
        // A token from anywhere, for the call the `state_token` seed was
        // sealed for by the dispatch server: `build` with `{"target":
        // "docs"}`, anonymously.
        0 => {
            let docs = Map::from_iter([("target".to_owned(), Value::from("docs"))]);
            let binding = Binding {
                arguments: &docs,
                ..binding
            };
            let _ = codec.open(&String::from_utf8_lossy(rest), &binding);
        }
        // Any payload, signed: the decoding past the signature.
        1 => {
            let _ = codec.open(&codec.sign(rest), &binding);
        }
        // A state sealed for any call opens for that call, to what was
        // sealed, and only for it.
        _ => {
            let (call, answers) = two_bytes(rest);
            let Ok(Value::Object(call)) = serde_json::from_slice::<Value>(call) else {
                return;
            };
            let Ok(answers) = serde_json::from_slice::<InputResponses>(answers) else {
                return;
            };
            let target = call
                .get("target")
                .and_then(Value::as_str)
                .unwrap_or("build");
            let subject = call.get("subject").and_then(Value::as_str);
            let arguments = match call.get("arguments") {
                Some(Value::Object(arguments)) => arguments.clone(),
                _ => Map::new(),
            };
            let binding = Binding {
                method: Method::ToolsCall,
                subject,
                target,
                arguments: &arguments,
            };
            let state = codec.seal(&binding, answers.clone());
            let opened = codec
                .open(&state, &binding)
                .unwrap_or_else(|e| panic!("a state sealed for {call:?} does not open: {e}"));
            assert_eq!(opened, answers);
            let someone_else = match subject {
                Some("other") => "another",
                _ => "other",
            };
            let other = Binding {
                subject: Some(someone_else),
                ..binding
            };
            assert_eq!(codec.open(&state, &other).err(), Some(StateError::Foreign));
            let prompt = Binding {
                method: Method::PromptsGet,
                ..binding
            };
            assert_eq!(codec.open(&state, &prompt).err(), Some(StateError::Foreign));
        }
    }
}

fn header(bytes: &[u8]) {
    let (raw, schema) = two_bytes(bytes);
    if let Ok(value) = headers::decode_value(raw) {
        let encoded = headers::encode_value(&value);
        assert_eq!(
            headers::decode_value(encoded.as_bytes()).as_ref(),
            Ok(&value),
            "{value:?} encodes as {encoded:?}"
        );
    }
    let text = String::from_utf8_lossy(raw);
    let encoded = headers::encode_value(&text);
    assert_eq!(
        headers::decode_value(encoded.as_bytes()).as_deref(),
        Ok(&*text),
        "{text:?} encodes as {encoded:?}"
    );
    let Ok(schema) = serde_json::from_slice::<Value>(schema) else {
        return;
    };
    if let Ok(params) = headers::header_params(&schema) {
        let arguments = schema.as_object().cloned().unwrap_or_default();
        for param in params {
            let _ = param.header_name();
            let _ = param.value_in(&arguments);
        }
    }
}

fn url(text: &str) {
    if let Ok(url) = AbsoluteUrl::parse(text) {
        assert_eq!(url.as_str(), text);
    }
}
